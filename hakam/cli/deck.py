"""``hakam deck``: learn the deck a table brought, list the decks learnt, forget one, and
carry one to other machines (``export``, ``import``: a tournament's tables learn its deck once).

Learning is two steps, so that a person confirms every card before anything is kept:

1. ``hakam deck learn --source SRC --name NAME``: frames of the 32 cards laid face up are taken
   from the source and kept (``decks/.pending/NAME/``); every card found is straightened and
   given a proposed name; the proposals are printed, written as an answers file
   (``proposals.json``: one card name or null a find, in order) with a numbered sheet of the
   cards found (``sheet.jpg``), and what is missing or twice is said.
   With ``--window`` the cards found are shown in a window instead, each with its proposed name
   to confirm or correct; *Learn and save* is offered once they are the 32 cards once each.
2. ``hakam deck learn --name NAME --answers FILE``: the person's answers (the proposals file,
   corrected) for the kept frames; refused unless they are the 32 Baloot cards once each; then
   the deck is learnt (its own index network trained: about three minutes) and saved.
   ``--again --name NAME`` learns a saved deck again from its faces (after the networks changed).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import sys
import time
from pathlib import Path

from hakam.cli.common import decks_root, has_display
from hakam.engine.cards import CARD_NAMES
from hakam.errors import Terminated, UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    d = subparsers.add_parser("deck", help="learn the deck a table brought; list or forget decks")
    sub = d.add_subparsers(dest="deck_command", metavar="ACTION", required=True)
    learn = sub.add_parser("learn", help="learn a deck from its 32 cards laid face up")
    learn.add_argument("--name", required=True, help="the deck's name (letters, digits, _ . -)")
    learn.add_argument("--source", help="camera index, video, image folder: the cards laid out")
    learn.add_argument("--frames", type=int, default=None,
                       help="frames to take (default 1; of an image folder, all)")  # fmt: skip
    learn.add_argument("--every", type=int, default=None,
                       help="take every N-th frame of the source (default 15; of an image "
                       "folder, every image)")  # fmt: skip
    learn.add_argument("--answers", help="the person's answers (a corrected proposals.json)")
    learn.add_argument("--window", action="store_true",
                       help="confirm the cards found in a window (with --source; alone, or "
                       "with --answers, to go on with the cards waiting)")  # fmt: skip
    learn.add_argument("--lang", choices=["en", "ar"], default="en", help="the window's language")
    learn.add_argument("--replace", action="store_true",
                       help="learn NAME anew over the deck kept, or take new frames over those "
                       "waiting")  # fmt: skip
    learn.add_argument("--again", action="store_true",
                       help="learn the saved deck NAME again from its faces")  # fmt: skip
    learn.add_argument(
        "--scenes",
        type=int,
        default=None,
        help="scenes drawn with the deck to learn from (default 2000: ~3 min on 2 cores)",
    )
    learn.add_argument("--threads", type=int, default=0, help="detector CPU threads (0: auto)")
    learn.set_defaults(func=_learn)
    ls = sub.add_parser("list", help="the decks learnt on this machine")
    ls.set_defaults(func=_list)
    forget = sub.add_parser("forget", help="forget a learnt deck")
    forget.add_argument("name")
    forget.add_argument("--yes", action="store_true", help="forget it without asking")
    forget.set_defaults(func=_forget)
    export = sub.add_parser("export", help="write a learnt deck to one file, for other machines")
    export.add_argument("name")
    export.add_argument("file", help="the deck file to write (a new .zip)")
    export.set_defaults(func=_export)
    imp = sub.add_parser("import", help="keep a deck another machine learnt (hakam deck export)")
    imp.add_argument("file", help="the deck file")
    imp.add_argument("--name", default=None, help="keep it under this name (default: its own)")
    imp.add_argument("--replace", action="store_true", help="replace a deck of that name here")
    imp.set_defaults(func=_import)


def _detector(threads: int):
    from hakam.vision import detector as det
    from hakam.vision.decks import learner

    try:
        return learner(det.make_detector("openvino", threads=threads))
    except det.DetectorError as exc:
        raise UserError(str(exc)) from None


def _frames(spec: str, count: int | None, every: int | None) -> list:
    """``count`` frames of the source, every ``every``-th (defaults: all the images of a folder;
    one frame of a camera or video, every 15th); fewer where the source ends first, said so."""
    from hakam.vision.sources import FolderSource, SourceError, open_source

    if (count is not None and count < 1) or (every is not None and every < 1):
        raise UserError("--frames and --every: 1 or more")
    try:
        source = open_source(spec)
    except SourceError as exc:
        raise UserError(str(exc)) from None
    folder = isinstance(source, FolderSource)
    every = every or (1 if folder else 15)
    count = count or (-(-len(source.files) // every) if folder else 1)
    frames = []
    with source:
        for k, frame in enumerate(source):
            if k % every == 0:
                frames.append(frame.image)
            if len(frames) == count:
                break
    if not frames:
        raise UserError(f"--source {spec}: no frame could be read")
    if len(frames) < count:
        print(f"--source {spec}: {len(frames)} of the {count} frames asked for taken (one in "
              f"{every}: --every)", flush=True)  # fmt: skip
    return frames


def _stop(signum, frame) -> None:
    raise Terminated


def _learn(args: argparse.Namespace) -> int:
    """``_learn_deck``; stopped (Ctrl+C, SIGTERM), it says what was kept and what was not."""
    from hakam.vision.deck_store import DeckStore

    store = DeckStore(decks_root())
    store.settle(args.name)  # a save cut short earlier is not this run's
    before = store.saved_as(args.name)
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        return _learn_deck(args)
    except KeyboardInterrupt as exc:
        pending = store.waiting_folder(args.name)
        store.settle(args.name)
        if (now := store.saved_as(args.name)) is not None and now != before:
            if not args.again:
                shutil.rmtree(pending, ignore_errors=True)  # learnt from them: nothing waits
            print(f"stopped: deck {args.name} was learnt and saved before the stop (read with "
                  f"it: --deck {args.name})", flush=True)  # fmt: skip
        elif args.again:
            print(f"stopped: deck {args.name} kept as it was", flush=True)
        elif pending.is_dir():  # the window's answers are written to the cards waiting
            answers = pending / "proposals.json" if args.window else args.answers or (
                pending / "proposals.json")  # fmt: skip
            how = (_in_window(args.name, args.replace) if args.window
                   else _go_on(args.name, answers, args.replace))  # fmt: skip
            print(f"stopped: nothing learnt; the cards found wait in {pending} (go on with "
                  f"{how})", flush=True)  # fmt: skip
        else:
            print("stopped: nothing learnt", flush=True)
        if isinstance(exc, Terminated):
            return 128 + signal.SIGTERM
        raise
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _go_on(name: str, answers, replace: bool) -> str:
    """The command that learns ``name`` from the cards waiting, with the ``answers`` file."""
    again = " --replace" if replace else ""
    return f"hakam deck learn --name {name} --answers {shlex.quote(str(answers))}{again}"


def _in_window(name: str, replace: bool) -> str:
    """The command that opens the cards waiting for ``name`` in the deck window."""
    return f"hakam deck learn --name {name} --window{' --replace' if replace else ''}"


def _take_again(args: argparse.Namespace) -> str:
    """The command that takes the frames again, with the person's own options."""
    words = ["hakam deck learn --name", args.name, "--source", shlex.quote(args.source)]
    words += [f"--{k} {getattr(args, k)}" for k in ("frames", "every", "threads")
              if getattr(args, k)]  # fmt: skip
    return " ".join(words + (["--replace"] if args.replace else []))


def _learn_deck(args: argparse.Namespace) -> int:
    from hakam.vision import deck_store, decks

    store = deck_store.DeckStore(decks_root())
    try:
        decks.check_name(args.name)
        if args.scenes is not None and args.scenes < 1:
            raise UserError(f"--scenes {args.scenes}: 1 or more")
        if args.again and (args.source or args.answers):
            raise UserError("--again learns from the faces kept: leave out --source and --answers")
        if args.again:
            detector = _detector(args.threads)
            faces, frames = store.faces(args.name), store.frames(args.name)
            return _fit_and_save(store, args.name, faces, frames, args.scenes, detector)
        pending = store.waiting_folder(args.name)
        if args.window and not (args.source or args.answers):
            if not pending.is_dir():
                raise UserError(f"--window: no cards wait for deck {args.name}; give --source "
                                f"(the cards laid out)")  # fmt: skip
            args.answers = str(pending / "proposals.json")  # on with the cards waiting
        if args.window and not has_display():
            raise UserError("no display for the window: leave out --window (answers file)")
        if args.source and args.answers:
            raise UserError("--source takes the frames, --answers confirms them: one at a time")
        if not (args.source or args.answers):
            waiting = "; cards wait for it: --window goes on with them" if pending.is_dir() else ""
            raise UserError(f"give --source (the cards laid out) or --answers (your answers)"
                            f"{waiting}")  # fmt: skip
        if args.name in store.names() and not args.replace:
            raise UserError(
                f"deck {args.name}: learnt already (--replace learns it anew; "
                f"`hakam deck forget {args.name}`; --again from its faces)"
            )
        answers_file = pending / "proposals.json"
        if args.source and args.window and _camera(args.source) and pending.is_dir() and (
                not args.replace):  # fmt: skip
            # On with the cards waiting, in the window, the camera there to add a picture.
            detector = _detector(args.threads)
            frames, found = deck_store.pending(pending)
            names = decks.read_answers(answers_file, len(found), waiting=True)
            decks.check_known(names)
            return _answer_in_window(args, store, frames, found, names, detector)
        if args.source:
            if pending.exists() and not args.replace:
                raise UserError(
                    f"deck {args.name}: cards found earlier wait in {pending} (go on with "
                    f"{_in_window(args.name, False)}, or --answers {answers_file}; or "
                    f"--replace them)"
                )
            detector = _detector(args.threads)  # refused here, before the camera is asked
            frames = _frames(args.source, args.frames, args.every)
            found = decks.find_cards(frames, detector)
            shutil.rmtree(pending, ignore_errors=True)
            adding = args.window and _camera(args.source) and found  # *Add a picture* the rest
            if len(found) < len(CARD_NAMES) and not adding:  # no answers make up the others
                _print_proposals(found)
                print(f"Only {len(found)} of the 32 cards found: lay out all 32 face up, not "
                      f"touching (or show each in turn, --frames), and take them again:\n  "
                      f"{_take_again(args)}")  # fmt: skip
                return 0
            _keep_found(store, args.name, frames, found)
            if not args.window:
                _print_proposals(found)
                _say_check([c.proposed for c in found])
                print(f"Look at {pending / 'sheet.jpg'}; correct {answers_file} (a card name, or "
                      f"null to drop a find), then run:\n  "
                      f"{_go_on(args.name, answers_file, args.replace)}")  # fmt: skip
                return 0
            proposed = [c.proposed for c in found]
            return _answer_in_window(args, store, frames, found, proposed, detector)
        else:
            detector = _detector(args.threads)
            frames, found = deck_store.pending(pending)
            kept = Path(args.answers).resolve() == (pending / "proposals.json").resolve()
            names = decks.read_answers(Path(args.answers), len(found), waiting=kept)
            if args.window:  # back in the window with the answers given so far
                decks.check_known(names)
                return _answer_in_window(args, store, frames, found, names, detector)
        decks.check_cards(names)
        faces = {n: c.face for c, n in zip(found, names, strict=True) if n is not None}
        code = _fit_and_save(store, args.name, faces, frames, args.scenes, detector)
        shutil.rmtree(pending, ignore_errors=True)
        return code
    except decks.DeckError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"deck {args.name}: {exc.strerror or exc} ({exc.filename})") from None


def _answer_in_window(args, store, frames: list, found: list, answers: list, detector) -> int:
    """The cards found, with ``answers`` to confirm or correct in the window, learnt there; the
    window closed first, the answers given wait with the cards (``--answers ... --window``
    opens them again). With a camera as ``--source``, *Add a picture* takes another frame."""
    grab = (lambda: _frames(args.source, 1, None)[0]) if _camera(args.source) else None
    if not _learn_in_window(store, args.name, frames, found, answers, args.lang, args.scenes,
                            detector, grab):  # fmt: skip
        camera = f"--source {args.source} " if grab is not None else ""
        print(f"closed: nothing learnt; the cards found wait in "
              f"{store.waiting_folder(args.name)} with your answers so far (go on with hakam "
              f"deck learn --name {args.name} {camera}--window)")  # fmt: skip
    return 0


def _camera(source: str | None) -> bool:
    """Whether ``--source`` is a camera (its number): another frame can be taken from it."""
    return source is not None and source.strip().isdigit()


def _learn_in_window(store, name: str, frames: list, found: list, answers: list,
                     language: str, scenes: int | None, detector, grab=None,
                     chosen: bool = False) -> bool:  # fmt: skip
    """The cards found, with ``answers``, confirmed or corrected in the window and learnt
    there: whether the deck was learnt and saved. Closed first, the answers and which finds
    the person named wait with the cards; closed by Ctrl+C or SIGTERM, the stop is raised
    (``Terminated`` for SIGTERM). ``grab()``: the camera's frame, for *Add a picture* (None:
    not offered)."""
    from hakam.vision import decks
    from hakam.vision.deck_ahead import LearningAhead

    pending = store.waiting_folder(name)
    named = _named(pending, found, answers)  # the window adds to it as the person names
    changed = _changed(pending, found, named)  # the finds marked to look at again
    count = decks.LEARN_SCENES if scenes is None else scenes
    # The deck learnt while the person looks (``hakam.vision.deck_ahead``).
    ahead = LearningAhead.for_deck(name, lambda k: found[k].face, detector, count)
    learn = _window_learning(store, name, frames, found, scenes, detector, named, ahead,
                             changed)  # fmt: skip
    more = None if grab is None else _more_finds(store, name, frames, found, grab, detector,
                                                 changed)  # fmt: skip
    try:
        names, learnt, stopped_by = _confirm_in_window(
            found,
            language,
            learn,
            answers,
            named=named,
            more=more,
            ahead=ahead,
            changed=changed,
            chosen=chosen,
        )
    finally:
        ahead.close()
    if not learnt:
        _keep_answers(pending, names, named, changed)
    if stopped_by is not None:
        raise Terminated if stopped_by == signal.SIGTERM else KeyboardInterrupt
    return learnt


def _more_finds(store, name: str, frames: list, found: list, grab, detector,
                changed: set[int] | None = None):  # fmt: skip
    """*Add a picture*: ``more(answers, named)`` takes the camera's frame and adds the cards
    found in it to ``frames`` and ``found`` (in place: the learning sees them), keeps them
    waiting with the answers given so far and the new finds' proposals, and returns the new
    finds; a ``UserError`` where none is found."""
    from dataclasses import replace

    import cv2

    from hakam.vision import deck_store, decks

    pending = store.waiting_folder(name)

    def more(answers: list, named: set[int]) -> list:
        frame = grab()
        if frame.shape != frames[0].shape:  # (its cards could not be told from those found)
            h, w = frames[0].shape[:2]
            raise UserError(f"the new picture is {frame.shape[1]}x{frame.shape[0]}, the cards "
                            f"found are in {w}x{h} ones: take it at that size")  # fmt: skip
        seen = decks.find_cards([frame], detector)
        if not seen:
            raise UserError("no card found in the new picture: lay the cards face up before "
                            "the camera, not touching")  # fmt: skip
        new = [replace(c, frame=len(frames))
               for c in decks.not_found_before(found, frames, seen, frame)]  # fmt: skip
        if not new:
            raise UserError("every card in the new picture was found before: lay the cards "
                            "missing before the camera")  # fmt: skip
        # Kept before the lists change (a write refused: nothing changed). The answers first:
        # cut short by a crash, answers beyond the finds kept are dropped when gone on with.
        try:
            _keep_answers(pending, [*answers, *(c.proposed for c in new)], named, changed)
            deck_store.keep_pending(pending, [*frames, frame], [*found, *new])
            cv2.imwrite(str(pending / "sheet.jpg"), _sheet([*found, *new]))
        except (OSError, decks.DeckError) as exc:
            _keep_answers(pending, answers, named, changed)
            raise UserError(f"deck {name}: the new picture cannot be kept ({exc})") from None
        frames.append(frame)
        found.extend(new)
        return new

    return more


def _named(folder: Path, found: list, answers: list) -> set[int]:
    """The finds the person named in the window before (``named.json`` with the cards waiting)
    and those whose answer was changed by hand in the answers file since (against the answers
    the window kept, else the proposals): the re-proposals leave them as they are. The window's
    own re-proposals are not the person's."""
    try:
        kept = json.loads((folder / "named.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = []
    since = [c.proposed for c in found]
    if isinstance(kept, dict):  # {"named": [...], "answers": [...]}: as the window left them
        if isinstance(kept.get("answers"), list) and len(kept["answers"]) >= len(found):
            since = kept["answers"][: len(found)]  # (longer: a picture added, cut short)
        kept = kept.get("named")
    named = {k for k, (a, b) in enumerate(zip(answers, since, strict=True)) if a != b}
    if isinstance(kept, list):
        named |= {k for k in kept if isinstance(k, int) and 0 <= k < len(found)}
    return named


def _changed(folder: Path, found: list, named: set[int]) -> set[int]:
    """The finds the window marked to look at again when it closed (``named.json``), but for
    those named since."""
    try:
        kept = json.loads((folder / "named.json").read_text(encoding="utf-8"))
        marked = kept.get("changed", []) if isinstance(kept, dict) else []
    except (OSError, ValueError):
        marked = []
    if not isinstance(marked, list):
        return set()
    return {k for k in marked if isinstance(k, int) and 0 <= k < len(found)} - named


def _keep_answers(folder: Path, names: list, named: set[int], changed=None) -> None:
    """The person's answers, which finds they named and which the window marked to look at
    again (``changed``), kept with the cards waiting."""
    _write_answers(folder / "proposals.json", names)
    kept = {"named": sorted(named), "answers": list(names), "changed": sorted(changed or ())}
    # Whole or not at all: cut short, a half-written file would lose the marks, and the
    # window's re-proposals would then pass for the person's answers.
    part = folder / "named.json.part"
    part.write_text(json.dumps(kept) + "\n", encoding="utf-8")
    os.replace(part, folder / "named.json")


def _window_learning(store, name: str, frames: list, found: list, scenes: int | None, detector,
                     named: set[int] | None = None, ahead=None,
                     changed: set[int] | None = None):  # fmt: skip
    """What the deck window's *Learn and save* does with the person's answers: they are written
    to the cards waiting whatever follows, with ``named`` (the finds the person named); the
    deck is learnt and kept (then nothing waits), or a ``UserError`` says why not. ``ahead``:
    the deck learnt while the person looked (``LearningAhead``), taken where it fits."""
    from hakam.vision import decks

    pending = store.waiting_folder(name)

    def learn(names: list, progress) -> str:
        try:
            _keep_answers(pending, names, set() if named is None else named, changed)  # their word
            decks.check_cards(names)
            faces = {n: c.face for c, n in zip(found, names, strict=True) if n is not None}
            _fit_and_save(store, name, faces, frames, scenes, detector, progress,
                          None if ahead is None else (ahead, names))  # fmt: skip
            shutil.rmtree(pending, ignore_errors=True)  # kept: nothing waits
        except decks.DeckError as exc:
            raise UserError(str(exc)) from None
        except OSError as exc:
            raise UserError(f"deck {name}: {exc.strerror or exc}") from None
        return name

    return learn


def _keep_found(store, name: str, frames: list, found: list) -> None:
    """The frames and the cards found kept waiting for the person's answers, with the
    proposals as the answers file and a numbered sheet of the faces."""
    import cv2

    from hakam.vision import deck_store

    pending = store.waiting_folder(name)
    shutil.rmtree(pending, ignore_errors=True)
    deck_store.keep_pending(pending, frames, found)
    _write_answers(pending / "proposals.json", [c.proposed for c in found])
    cv2.imwrite(str(pending / "sheet.jpg"), _sheet(found))


def learn_from_frame(grab, name: str, language: str, retake: bool = False,
                     scenes: int | None = None) -> str | None:  # fmt: skip
    """The start screen's *Learn a deck*: the cards laid out in the camera's frame (``grab()``)
    found, confirmed or corrected in the deck window (where *Add a picture* finds the cards
    missing in another frame), learnt and saved there. The deck's name
    once saved; None where the window closed first: the cards found then wait with the answers
    given, and *Learn a deck* with the same name opens them again without the camera (as
    ``hakam deck learn --answers ... --window``), unless ``retake``: the person chose a new
    picture, whose 32 cards found then replace them. A ``UserError`` says in one line why
    nothing was found; a stop (Ctrl+C; SIGTERM: ``Terminated``) while the window is open is
    raised, to stop table mode."""
    from hakam.vision import deck_store, decks

    store = deck_store.DeckStore(decks_root())
    try:
        decks.check_new_name(name, store.names())
    except decks.DeckError as exc:
        raise UserError(str(exc)) from None
    detector = _detector(0)
    waiting = store.waiting_folder(name)
    if waiting.exists() and not retake:  # found earlier, the window closed: on with them
        try:
            frames, found = deck_store.pending(waiting)
            answers = decks.read_answers(waiting / "proposals.json", len(found), waiting=True)
            decks.check_known(answers)
        except decks.DeckError as exc:
            raise UserError(f"{exc} (hakam deck forget {name} drops the cards waiting)") from None
    else:
        frames = [grab()]
        found = decks.find_cards(frames, detector)
        # Fewer: the window asks for the others (*Add a picture*); but a new picture replaces
        # the cards waiting, and their answers, only with the whole deck.
        if not found or (retake and len(found) < len(CARD_NAMES)):
            raise UserError(f"only {len(found)} of the 32 cards found: lay out all 32 face up, "
                            f"not touching, and learn the deck again")  # fmt: skip
        _keep_found(store, name, frames, found)  # in place of any waiting (``retake``)
        answers = [c.proposed for c in found]
    learnt = _learn_in_window(store, name, frames, found, answers, language, scenes, detector,
                              grab, chosen=True)  # fmt: skip
    return name if learnt else None


def _write_answers(path: Path, answers: list) -> None:
    """One find a line: find k (as numbered on the sheet) on line k + 1, after the bracket."""
    path.write_text(json.dumps(answers, indent=0) + "\n", encoding="utf-8")


def _fit_and_save(store, name: str, faces: dict, frames: list, scenes: int | None, detector,
                  shown=None, ahead=None):  # fmt: skip
    """Learn the deck and keep it; ``shown``: the window's progress, told each step too;
    ``ahead``: the learning done ahead (``LearningAhead``) and the answers, where there are."""
    from hakam.vision import decks

    scenes = decks.LEARN_SCENES if scenes is None else scenes
    if scenes < decks.LEARN_SCENES:
        print(f"--scenes {scenes}: fewer than the {decks.LEARN_SCENES} a deck's figures are "
              f"measured with; it will read its cards less well", flush=True)  # fmt: skip
    t0 = time.monotonic()
    printed = learning_progress()

    def tick(stage: str, k: int, n: int) -> None:
        if shown is not None:
            shown(stage, k, n)  # raises LearningStopped when the person stopped it
        printed(stage, k, n)

    # What was done while the person looked, where it fits: the deck, or its scenes.
    taken = None if ahead is None else ahead[0].take(ahead[1], tick)
    if taken is not None and taken[0] == "deck":
        deck = taken[1]
    else:
        deck = decks.learn_deck(name, faces, detector, scenes, progress=tick,
                                samples=None if taken is None else taken[1])  # fmt: skip
    folder = store.save(deck, faces, frames)
    print(f"deck {name}: learnt from {deck.samples} corner samples in "
          f"{time.monotonic() - t0:.0f} s, "
          f"kept in {folder}; read with it: --deck {name}")  # fmt: skip
    return 0


def learning_progress():
    """A ``learn_deck`` progress callback that prints each stage's progress and time left:
    every 100 scenes drawn, then every 20 training steps."""
    from hakam.gui.deck_answers import LearningProgress

    pace = LearningProgress()

    def tick(stage: str, k: int, n: int) -> None:
        pace.update(stage, k, n)
        if stage == "training" and k == 1:
            print(f"[learn] training the deck's index network: {n} steps", flush=True)
        if k != n and k % (100 if stage == "scenes" else 20):
            return
        left = pace.left or 0.0
        if stage == "scenes":
            print(f"[learn] {k}/{n} scenes drawn with the deck, about {left:.0f} s left to "
                  f"draw (then the training, with its own time left)", flush=True)  # fmt: skip
        else:
            print(f"[learn] {k}/{n} training steps, about {left:.0f} s left", flush=True)

    return tick


def _confirm_in_window(
    found: list,
    language: str,
    learn,
    answers: list,
    named: set[int] | None = None,
    more=None,
    ahead=None,
    changed: set[int] | None = None,
    chosen: bool = False,
) -> tuple[list, bool, int | None]:
    """The person's answers from the window (starting from ``answers``), whether the deck was
    learnt and saved there (``learn``, with its progress shown), and the signal that closed it
    (None: the person). ``named``: the finds the person named (never proposed again), updated
    with those named in the window; ``changed``: the finds marked to look at again, updated as
    the window marks them. ``more(answers, named)``: *Add a picture*, the new finds
    (``found`` grows with them; None: not offered). ``ahead``: the deck learnt while the
    person looks (``LearningAhead``), told the answers as they change."""
    from hakam.cli.common import exec_until_signal
    from hakam.gui.deck_answers import DeckAnswers
    from hakam.gui.views.deck_view import DeckView
    from hakam.gui.views.main_window import make_app
    from hakam.vision.index_glyphs import alike

    make_app()
    reads = [c.read for c in found]
    named = set() if named is None else named
    changed = set() if changed is None else changed  # marked when the window closed before
    if any(r is None for r in reads):  # found before reads were kept: not proposed again
        given = DeckAnswers(answers, None, named, changed=changed)
    else:
        given = DeckAnswers(answers, reads, named, alike([c.face for c in found]), changed)

    def add() -> list:
        if ahead is not None:  # the detector is this picture's now
            ahead.pause()
        new = more(list(given.answers), set(given.named))
        reads = [c.read for c in new]
        given.extend([c.proposed for c in new], reads, alike([c.face for c in found]))
        return [c.face for c in new]

    view = DeckView([c.face for c in found], given, language, learn=learn,
                    more=None if more is None else add,
                    ahead=None if ahead is None else ahead.update, chosen=chosen)  # fmt: skip
    view.fit_screen()
    # Ctrl+C or SIGTERM: as Cancel or Close (a learning under way is stopped, nothing saved;
    # the caller then says the stop and exits as stopped).
    got: list[int] = []

    def close(signum: int) -> None:
        got.append(signum)
        view.reject()

    exec_until_signal(view, close)
    named |= given.named
    return list(given.answers), view.learnt is not None, (got[0] if got else None)


def _sheet(found: list):
    """The faces found, numbered as in the proposals, eight a row."""
    import cv2
    import numpy as np

    tiles = []
    for k, c in enumerate(found, 1):
        label = np.full((22, 126, 3), 255, np.uint8)  # under the face: its indices stay in view
        cv2.putText(label, f"{k}: {c.proposed or '?'}", (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (0, 0, 0), 1)  # fmt: skip
        tiles.append(np.vstack([cv2.resize(c.face, (126, 176)), label]))
    while len(tiles) % 8:
        tiles.append(np.zeros((198, 126, 3), np.uint8))
    rows = [np.hstack(tiles[i : i + 8]) for i in range(0, len(tiles), 8)]
    return np.vstack(rows) if rows else np.zeros((198, 126 * 8, 3), np.uint8)


def _print_proposals(found: list) -> None:
    print(f"{len(found)} cards found:")
    for k, c in enumerate(found, 1):
        x1, y1, x2, y2 = (int(v) for v in c.box)
        print(f"  {k:2d}  {c.proposed or '?':>3}  {c.probability:.0%}  "
              f"frame {c.frame} at ({x1},{y1})-({x2},{y2})")  # fmt: skip


def _say_check(proposals: list) -> None:
    from hakam.vision.decks import DeckError, check_cards

    try:
        check_cards(proposals)
        print("As proposed these are the 32 Baloot cards once each.")
    except DeckError as exc:
        print(f"As proposed: {str(exc).split(': ', 1)[1].removesuffix('; nothing saved')}")


def _list(args: argparse.Namespace) -> int:
    from hakam.vision.deck_store import OLD_FORMATS, DeckStore
    from hakam.vision.decks import LEARN_SCENES, DeckError, how_read

    store = DeckStore(decks_root())
    names = store.names()
    shipped = _shipped_networks() if names else {}
    if not names:
        print("no deck learnt yet (hakam deck learn --source ... --name ...)")
    for name in store.waiting():
        answers = store.waiting_folder(name) / "proposals.json"
        try:
            rows = json.loads((answers.parent / "found.json").read_text(encoding="utf-8"))
            finds = f"{len(rows)} " if isinstance(rows, list) else ""
        except (OSError, ValueError):  # (said when they are gone on with)
            finds = ""
        replace = name in names
        print(f"{name}  {finds}cards found, waiting for answers (go on with "
              f"{_in_window(name, replace)}, or {_go_on(name, answers, replace)}; hakam deck "
              f"forget {name} drops them)")  # fmt: skip
    for name in names:
        try:
            meta = store.describe(name)
        except DeckError as exc:  # one damaged deck.json: said, the others listed
            print(f"{name}  {str(exc).removeprefix(f'deck {name!r}: ')}")
            continue
        if meta.get("format") in OLD_FORMATS:
            print(f"{name}  learnt {meta.get('learnt_at', '?')}  (by an older Hakam: "
                  f"hakam deck learn --again --name {name})")  # fmt: skip
            continue
        how = how_read(meta, shipped)
        scenes = meta.get("scenes", 0)
        few = isinstance(scenes, int) and 0 < scenes < LEARN_SCENES
        hint = {"as learnt": (f"  (learnt from {scenes} scenes, fewer than the {LEARN_SCENES} "
                              f"its figures are for: hakam deck learn --again --name {name})"
                              if few else ""),
                "uncalibrated": f"  (read surer if learnt again: hakam deck learn --again "
                                f"--name {name})",
                "stale": f"  (learnt with other networks, cannot be read: hakam deck learn "
                         f"--again --name {name})"}[how]  # fmt: skip
        print(f"{name}  learnt {meta.get('learnt_at', '?')}  from {meta.get('samples', '?')} "
              f"corner samples{hint}")  # fmt: skip
    return 0


def _fits_here(deck) -> None:
    """Refuse a deck learnt on the index network here whose layers do not fit it (one learnt
    on other networks is kept, to be learnt again here)."""
    from hakam.vision import detector as det
    from hakam.vision.decks import how_read, index_onnx

    shipped = _shipped_networks()
    if shipped and how_read({"networks": deck.networks}, shipped) != "stale":
        deck.fits(index_onnx(det.corner_paths("openvino")[1]))


def _shipped_networks() -> dict[str, str]:
    """The fingerprints of the networks a deck is read with here (``networks_of``); none where
    a model is missing (the decks are then listed as they are)."""
    from hakam.vision import detector as det
    from hakam.vision.decks import DeckError, networks_at

    try:
        return networks_at(*det.corner_paths("openvino"), det.reader_path("openvino"))
    except (OSError, IndexError, DeckError):
        return {}


def _forget(args: argparse.Namespace) -> int:
    from hakam.vision.deck_store import DeckStore
    from hakam.vision.decks import DeckError

    store = DeckStore(decks_root())
    try:
        kind, _ = store.held(args.name)
        if not args.yes and not _asked_yes(args.name, kind):
            print(f"deck {args.name}: kept")
            return 0
        gone = store.forget(args.name)
    except DeckError as exc:
        raise UserError(str(exc)) from None
    said = {"deck": "forgotten", "waiting": "the cards found waiting for answers dropped"}
    print(f"deck {args.name}: {said[gone]}")
    return 0


def _asked_yes(name: str, kind: str) -> bool:
    """The person at the terminal says yes to forgetting; nobody there: a one-line refusal
    (``--yes``), nothing forgotten."""
    what = (f"forget deck {name}" if kind == "deck"
            else f"drop the cards found for deck {name} and the answers given")  # fmt: skip
    if sys.stdin is None or not sys.stdin.isatty():
        raise UserError(f"deck {name}: nobody at the terminal to ask; `hakam deck forget "
                        f"{name} --yes` to {what}")  # fmt: skip
    again = " (learning it again takes its 32 cards laid out and about three minutes)"
    try:
        answer = input(f"{what}{again if kind == 'deck' else ''}? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _export(args: argparse.Namespace) -> int:
    from hakam.vision.deck_files import export_deck
    from hakam.vision.deck_store import DeckStore
    from hakam.vision.decks import DeckError

    try:
        path = export_deck(DeckStore(decks_root()), args.name, Path(args.file))
    except DeckError as exc:
        raise UserError(str(exc)) from None
    print(f"deck {args.name}: written to {path} ({path.stat().st_size // 1024} KB); on another "
          f"machine: hakam deck import {shlex.quote(str(path))}")  # fmt: skip
    return 0


def _import(args: argparse.Namespace) -> int:
    from hakam.vision.deck_files import import_deck
    from hakam.vision.deck_store import DeckStore
    from hakam.vision.decks import DeckError, how_read

    store = DeckStore(decks_root())
    try:
        name = import_deck(store, Path(args.file), args.name, args.replace, _fits_here)
    except DeckError as exc:
        raise UserError(str(exc)) from None
    meta = store.describe(name)
    shipped = _shipped_networks()
    said = {"as learnt": "reads as it was learnt",
            "stale": f"learnt with other networks than these: learn it again here from its "
                     f"faces (hakam deck learn --again --name {name}, about three minutes)",
            "uncalibrated": f"reads surer learnt again here (hakam deck learn --again --name "
                            f"{name})"}[how_read(meta, shipped)]  # fmt: skip
    if not shipped:
        said = "not checked against the networks here (not found)"
    print(f"deck {name}: imported, learnt {meta.get('learnt_at', '?')}; {said}")
    return 0
