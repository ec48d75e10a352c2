"""The one-line messages the window shows, said in the table's language: the panels' errors,
the pipeline's notices, a suspected ruling's question, the referee's rulings.

The controllers, the pipeline and the engine speak English (their messages are also the command
line's and the tests'); the window says them in Arabic from a catalogue (``hakam.gui.catalogue``)
of English patterns and Arabic sentences. What a pattern leaves open (a card, a list of cards,
a call, why a card was named, a message of its own) is said in Arabic too. A message the
catalogue does not know keeps its English detail after its field's Arabic name, so nothing is
ever hidden. Cards read rank then suit in both languages (``10♠``), isolated left to right
inside Arabic.
"""

from __future__ import annotations

import re
from typing import Any

from hakam.engine.cards import CARD_NAMES
from hakam.gui.catalogue import CATALOGUE, DETAILS, FIELDS, NAMED_FIELDS, OS_ERRORS, SEAT
from hakam.gui.i18n import RULE_NAMES, STRINGS, SUIT_SYMBOL, Language, card_label
from hakam.vision.provenance import NAMED_BY, RENAMED

LRI, PDI = "\u2066", "\u2069"  # a left-to-right isolate inside right-to-left text
RLI = "\u2067"  # a right-to-left isolate: Arabic typed by the person inside an English line
ARABIC_RUN = re.compile(r"[\u0600-\u06ff]+(?:\s+[\u0600-\u06ff]+)*")
CARD_TOKEN = re.compile(r"\b(10|[7-9JQKA])([CDHS])\b")
# "AS seat 1 (not read, the only card left)": a card of a trick, its seat and why it was named
PLAYED = re.compile(r"(\S+) seat (\d)(?: \(([^()]*)\))?(?:, |$)")
SUIT_WORDS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
# the game's words a message may hold (a call, a raise, a project), said as the table says them
GAME_WORDS = ("hokum", "sun", "ashkal", "pass", "double", "triple", "quadruple", "gahwa",
              "siri", "fifty", "hundred", "four_hundred", "baloot", "kaboot")  # fmt: skip

# Why the pipeline named a card it did not read (``NAMED_BY``, ``RENAMED``), in Arabic.
REASONS = {
    NAMED_BY["elimination"]: "لم تُقرأ، وهي الورقة الوحيدة الباقية",
    NAMED_BY["exchange"]: "بُدّلت بورقة لم تُقرأ: تقلّ المخالفات بذلك",
    NAMED_BY["displaced"]: "وضع أحدكم الورقة المسجّلة هنا في مكان آخر؛ الورقة التي بقيت",
    NAMED_BY["overruled"]: "نقل تصحيحٌ لاحق الورقة التي أعطاها أحدكم هنا؛ الورقة التي بقيت",
    NAMED_BY["rules"]: "لم تُقرأ؛ الوحيدة من الباقي التي لا تخالف قاعدة",
    NAMED_BY["reader"]: "لم تُقرأ بثقة؛ من الطرق التي لا تخالف قاعدة، التي سمّتها القراءات أكثر",
    NAMED_BY["same-result"]: "لم تُقرأ؛ واحدة من عدة أوراق لا تخالف قاعدة وتعطي النتيجة نفسها",
    NAMED_BY["fewest"]: "لم تُقرأ بثقة؛ لا طريقة تحفظ كل القواعد: التي تخالف أقلها وسمّتها "
    "القراءات أكثر",
    NAMED_BY["reads"]: "لم يقبلها التصويت؛ قُرئت بثقة حيث كانت، ولم تُقرأ ورقةً غيرها",
    RENAMED: "قُرئت كورقة رُئيت ثانية في مكان آخر؛ سُمّيت بأرجح ورقة لم تُلعب",
    "named by the rules": "سمّتها القواعد",
}


def _compiled(pairs: tuple[tuple[str, str], ...]) -> list[tuple[re.Pattern[str], str]]:
    return [(re.compile(rf"^{pattern}$"), text) for pattern, text in pairs]


_WHOLE, _DETAILS, _NAMED = _compiled(CATALOGUE), _compiled(DETAILS), _compiled(NAMED_FIELDS)


def cards_as_symbols(text: str) -> str:
    """The engine's card names in a sentence (10S, 8H) as the window writes cards (10♠, 8♥)."""
    return CARD_TOKEN.sub(lambda m: card_label(m.group(0)), text)


def _ltr(text: str) -> str:
    return f"{LRI}{text}{PDI}"


def _filled(found: re.Match[str], text: str) -> str:
    return text.format(*("" if g is None else _part(g) for g in found.groups()))


def _played(text: str) -> str | None:
    """The cards of a trick with their seats ("AS seat 1, KS seat 2 (why named)"), in Arabic."""
    found = list(PLAYED.finditer(text))
    if not found or "".join(m.group(0) for m in found) != text:
        return None
    if any(m.group(1) not in CARD_NAMES or (m.group(3) or "") not in ("", *REASONS)
           for m in found):  # fmt: skip
        return None
    return "، ".join(
        f"{_part(m.group(1))} {SEAT.format(m.group(2))}"
        + (f" ({REASONS[m.group(3)]})" if m.group(3) else "")
        for m in found
    )


def _part(text: str) -> str:
    """What a pattern left open, in Arabic: a card (``A♣``, left to right), cards, a trick's
    cards and seats, why a card was named, a call, a rule, a suit, a file's error, a source, a
    message of its own; else as it is (a number, a name), kept left to right."""
    if text in CARD_NAMES:
        return _ltr(card_label(text))
    for table in (REASONS, OS_ERRORS):
        if text in table:
            return table[text]
    if text.startswith("hokum:") and text[6:] in SUIT_SYMBOL:  # a call: Hokum in a suit
        return f"{STRINGS['hokum'][1]} {SUIT_SYMBOL[text[6:]]}"
    if text.lower() in GAME_WORDS:
        return STRINGS[text.lower()][1]
    if text in RULE_NAMES:
        return RULE_NAMES[text][1]
    if text in SUIT_WORDS:
        return SUIT_SYMBOL[SUIT_WORDS[text]]
    cards = text.split(", ")
    if len(cards) > 1 and all(c in CARD_NAMES for c in cards):
        return "، ".join(_part(c) for c in cards)
    said = _played(text) or _field(text, named_only=True) or _detail(text) or _translate(text)
    if said is not None:
        return said
    return text if text.replace(".", "").isdigit() or not text.isascii() else _ltr(text)


def _field(field: str, named_only: bool = False) -> str | None:
    """A message's field in Arabic ("deal 3": "الجولة 3"), or None."""
    if not named_only and field in FIELDS:
        return FIELDS[field]
    for pattern, text in _NAMED:
        found = pattern.match(field)
        if found:
            return _filled(found, text)
    return None


def _translate(message: str) -> str | None:
    """``message`` wholly in Arabic, or None where the catalogue does not know it."""
    for pattern, text in _WHOLE:
        found = pattern.match(message)
        if found:
            return _filled(found, text)
    field, sep, detail = message.partition(": ")
    name = _field(field) if sep else None
    if name is None:
        return None
    said = _detail(detail) or _translate(detail)  # "calibration: dealer: must be ..."
    return None if said is None else f"{name}: {said}"


def _detail(detail: str) -> str | None:
    """An error said after its field ("four 9s score nothing"), in Arabic, or None."""
    for pattern, text in _DETAILS:
        found = pattern.match(detail)
        if found:
            return _filled(found, text)
    return None


def known(message: str) -> bool:
    """The catalogue says ``message`` wholly in Arabic (the tests ask it of every message a
    table can cause)."""
    return _translate(message) is not None


def arabic(message: str) -> str:
    """``message`` in Arabic: the catalogue's sentence, else its field's name and the English
    detail (isolated left to right, so it reads as written)."""
    said = _translate(message)
    if said is not None:
        return said
    field, sep, detail = message.partition(": ")
    name = _field(field) if sep else None
    return f"{name}: {_ltr(detail)}" if name else _ltr(message)


def sentence(text: str) -> str:
    """English ``text`` as a sentence in the window: its first letter a capital, unless its
    first word is a name written as it is (``hakam-match/1``, ``deck.json``)."""
    word = text.split(" ", 1)[0]
    if text[:1].isascii() and text[:1].islower() and not any(c in word for c in "-/._"):
        return text[0].upper() + text[1:]
    return text


def say(lang: Language, message: str, within: bool = False) -> str:
    """A one-line message (an error, a notice, a question) as the window says it: in Arabic
    from the catalogue in an Arabic window, in its digits; in English with its cards as the
    window writes them (10♠), as a sentence (the command line's messages start in lower case)
    unless it is said ``within`` another ("Not taken: correction: ...")."""
    if lang.rtl:
        return lang.num(arabic(message))
    said = ARABIC_RUN.sub(lambda m: f"{RLI}{m.group(0)}{PDI}", cards_as_symbols(message))
    return said if within else sentence(said)


def violation(lang: Language, v: dict[str, Any]) -> str:
    """A ruling's sentence (the banner's, the dispute's): the referee's own, with all it says,
    in the window's language; the rule's short sentence where the catalogue lacks it."""
    text = str(v.get("text") or "")
    said = _translate(text) if lang.rtl else None
    if said is not None:
        return lang.num(said)
    return cards_as_symbols(lang.violation(v))
