"""Reads replayed from a cache (``benchmarks/cached.py``): the deck check's notice with them."""

from __future__ import annotations

import numpy as np

from hakam.vision.dealvideo import render_deal
from hakam.vision.pipeline import Pipeline
from hakam.vision.reader import READER_CLASSES
from hakam.vision.settings import DealSetup
from hakam.vision.sources import Frame


def test_a_deck_told_not_to_fit_is_told_again_at_its_frame_from_the_cache():
    from benchmarks.cached import CachedDetector

    clip = render_deal(3, tricks=1)
    nothing = (np.zeros((0, 4), np.float32), np.zeros((0, READER_CLASSES), np.float32))
    det = CachedDetector([nothing] * 4, 0.25, boxes=True, told=(1, "not the deck", "majlis"))
    pipe = Pipeline(DealSetup.from_record(clip.deal.record), det, calibration=clip.calibration)
    told = []
    for k in range(4):
        events = pipe.process(Frame(k, k / 15, np.zeros((480, 640, 3), np.uint8)))
        told += [(k, e["deck"], e["text"]) for e in events if e.get("about") == "deck"]
    assert told == [(1, "majlis", "not the deck")]  # at the frame it was found, once


def test_a_replayed_notice_names_the_reader_the_cards_read_like():
    from benchmarks.cached import CachedDetector

    nothing = (np.zeros((0, 4), np.float32), np.zeros((0, READER_CLASSES), np.float32))
    kept = (0, "read better with deck arabic", None, "arabic")
    det = CachedDetector([nothing] * 2, 0.25, boxes=True, told=kept)
    assert (det.deck_check.name, det.deck_check.like) == (None, "arabic")
    old = CachedDetector([nothing] * 2, 0.25, boxes=True, told=(0, "not the deck", "majlis"))
    assert (old.deck_check.name, old.deck_check.like) == ("majlis", None)  # kept before "like"
