"""How many corrections a person makes to the proposed names of a spread's cards (issue 51).

Each design's 32 cards laid out (``hakam.datasets.spread``, 1920x1080, a seed a spread), found
and proposed as ``hakam deck learn`` does (``find_cards``); then a simulated person, as in the
deck window, corrects the first find proposed wrong (by the spread's labels; a find on no card
is dropped), the finds not named are proposed again, and so on until every find is right.
Side by side on the same finds: proposed from the generic reads alone, and with the finds that
print the same rank sharing their rank evidence (``hakam.vision.index_glyphs``), as shipped.
Printed for each design: finds, proposed wrong at first, and the person's corrections.

``--designs tuning`` is the tuning design (``hakam.datasets.arabic_deck.TUNING``); the glyph
constants were chosen on its spreads of seeds 0, 7, 8 and 11-15.

    python benchmarks/proposals.py --designs tuning --seeds 16-23
    python benchmarks/proposals.py --designs arabic,kennard,paris,bellot --seeds 0,7,8,11-15
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hakam.datasets import arabic_deck, art
from hakam.datasets.spread import labelled_names, learning_spread
from hakam.gui.deck_answers import DeckAnswers
from hakam.vision import decks, index_glyphs
from hakam.vision.detector import make_detector


def design_images(design: str) -> dict[str, np.ndarray]:
    if design == "tuning":
        return {n: arabic_deck.draw_card(n, arabic_deck.TUNING)
                for n in (*art.ALL_FACE_NAMES, "BACK")}  # fmt: skip
    return art.load_deck_images(art.deck_by_name(design))


def corrections(reads: list, truth: list, alike: np.ndarray | None) -> tuple[int, int, int, int]:
    """(finds proposed wrong at first, corrections until every find is right, finds proposed
    right that a correction turned wrong, finds a correction changed): the deck window's answers
    (``DeckAnswers``, as shipped), the person naming the first find proposed wrong."""
    answers = DeckAnswers([name for name, _ in decks.propose(reads, alike=alike)], reads,
                          alike=alike)  # fmt: skip
    wrong_at_first, turned, changed = None, 0, 0
    while True:
        wrong = [i for i, (p, t) in enumerate(zip(answers.answers, truth, strict=True)) if p != t]
        if wrong_at_first is None:
            wrong_at_first = len(wrong)
        if not wrong:
            return wrong_at_first, len(answers.named), turned, changed
        before = list(answers.answers)
        answers.set(wrong[0], truth[wrong[0]])  # never proposed again
        moved = [i for i, (a, b) in enumerate(zip(before, answers.answers, strict=True))
                 if a != b and i != wrong[0]]  # fmt: skip
        changed += len(moved)
        turned += sum(before[i] == truth[i] for i in moved)


def seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default="tuning")
    ap.add_argument("--seeds", type=seeds, default=seeds("16-23"), help="e.g. 0,7,8,11-15")
    args = ap.parse_args(argv)
    detector = make_detector()
    print(f"{time.strftime('%Y-%m-%d')}; seeds {','.join(map(str, args.seeds))}")
    print("| design | spreads | finds | wrong at first: generic / glyphs | corrections: "
          "generic / glyphs | right turned wrong / changed (↻), glyphs | s a spread to compare "
          "the glyphs |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for design in args.designs.split(","):
        images = design_images(design)
        finds = spent = 0
        totals = np.zeros(8, int)
        per: list[str] = []
        for seed in args.seeds:
            frame, labels = learning_spread(images, seed)
            found = decks.find_cards([frame], detector)
            truth = labelled_names([c.box for c in found], labels, decks.MATCH_IOU)
            reads = [c.read for c in found]
            t = time.perf_counter()
            alike = index_glyphs.alike([c.face for c in found])
            spent += time.perf_counter() - t
            row = (*corrections(reads, truth, None), *corrections(reads, truth, alike))
            totals += row
            finds += len(found)
            per.append(f"{row[1]}/{row[5]}")
            said = f"wrong at first {row[0]} / {row[4]}; corrections {row[1]} / {row[5]}"
            print(f"  {design} {seed}: {len(found)} finds; {said}", file=sys.stderr, flush=True)
        n = len(args.seeds)
        print(f"| {design} | {n} | {finds} | {totals[0]} / {totals[4]} | {totals[1]} / "
              f"{totals[5]} ({', '.join(per)}) | {totals[6]} / {totals[7]} | {spent / n:.2f} |",
              flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
