"""The one-line errors the window shows, in Arabic: a catalogue of the messages the panels and
the engine give, each an English pattern and its Arabic sentence.

The controllers and the engine speak English (their messages are also the command line's and
the tests'); the window says them in the table's language. A message the catalogue does not
know keeps its English detail after its field's Arabic name, so nothing is ever hidden.
"""

from __future__ import annotations

import re

from hakam.engine.cards import CARD_NAMES
from hakam.gui.i18n import STRINGS, SUIT_SYMBOL, Language, card_label
from hakam.vision.provenance import NAMED_BY, RENAMED

SEAT = "اللاعب {0}"

# (English pattern, Arabic sentence): groups are put into the sentence in order.
CATALOGUE: tuple[tuple[str, str], ...] = (
    (r"card points: type the card points of one team", "الأبناط: اكتب أبناط أحد الفريقين"),
    (r"card points: '?(.*?)'? is not a whole number", "الأبناط: «{0}» ليس عددًا صحيحًا"),
    (r"card points: (-?\d+) is below 0 \(0 to (\d+)\)", "الأبناط: {0} أقل من الصفر (من 0 إلى {1})"),
    (r"card points: (\d+) is more than the (\d+) of a deal", "الأبناط: {0} أكثر من {1} في الجولة"),
    (r"card points: must add up to (\d+)", "الأبناط: يجب أن يكون المجموع {0}"),
    (r"card points: missing", "الأبناط: ناقصة"),
    (r"card points: kaboot gives team (\d) all (\d+)", "الأبناط: الكبوت يعطي الفريق {0} كل الـ{1}"),
    (r"open card: choose the dealer first", "الورقة المكشوفة: اختر الموزّع أولًا"),
    (r"bidding: the bidding is not open", "المزايدة: المزايدة غير مفتوحة"),
    (r"bidding: the bidding is over", "المزايدة: انتهت المزايدة"),
    (r"bidding: seat (\d) spoke out of turn; seat (\d) speaks",
     "المزايدة: " + SEAT.format("{0}") + " تكلّم قبل دوره؛ الدور على " + SEAT.format("{1}")),
    (r"bidding: '(.+)' is not allowed for seat (\d) now",
     "المزايدة: «{0}» غير مسموح لـ" + SEAT.format("{1}") + " الآن"),
    (r"bidding: round 2 Hokum must name a suit other than the open card's",
     "المزايدة: حكم الدورة الثانية يكون بلون غير لون الورقة المكشوفة"),
    (r"doubling: (\w+) by seat (\d) is not allowed now",
     "الدبل: {0} من " + SEAT.format("{1}") + " غير مسموح الآن"),
    (r"projects: no contract yet", "المشاريع: لا مشترى بعد"),
    (r"project: a card cannot be in two projects", "المشروع: لا تكون الورقة في مشروعين"),
    (r"baloot: only in Hokum", "البلوت: في الحكم فقط"),
    (r"baloot: there is no Baloot in Sun", "البلوت: لا بلوت في الصن"),
    (r"deal: finish the bidding first", "الجولة: أكمل المزايدة أولًا"),
    (r"deal: no camera to play it \(table mode is off\)",
     "الجولة: لا كاميرا تلعبها (وضع الطاولة غير مفعّل)"),
    (r"deal (\d+): no such deal", "الجولة {0}: غير موجودة"),
    (r"dealer: seat (\d) out of range", "الموزّع: " + SEAT.format("{0}") + " خارج المدى"),
    (r"dealer: seat (\d) deals this deal \(the deal passes to the right\)",
     "الموزّع: " + SEAT.format("{0}") + " يوزّع هذه الجولة (التوزيع ينتقل إلى اليمين)"),
    (r"the match is over at deal (\d+) \((\d+)-(\d+)\): start a new match",
     "انتهت المباراة في الجولة {0} ({1}-{2}): ابدأ مباراة جديدة"),
    (r"calibration: click the table's centre, then the first dealer's seat, on the frame",
     "المعايرة: انقر وسط الطاولة ثم مقعد الموزّع الأول في الصورة"),
    (r"calibration: click the table's centre, then the first dealer's seat",
     "المعايرة: انقر وسط الطاولة ثم مقعد الموزّع الأول"),
    (r"source: give a camera number \(0, 1, \.\.\.\) or a video file",
     "المصدر: اكتب رقم الكاميرا (0، 1، ...) أو ملف فيديو"),
    # the pipeline's notices (``uncertain`` events) shown in the live view
    (r"card in front of seat (\d) not read \(trick (\d)\); the deal waits for it \(\)? ?held\)",
     "ورقة أمام " + SEAT.format("{0}") + " لم تُقرأ (الأكلة {1})؛ الجولة تنتظرها"),
    (r"card in front of seat (\d) not read \(trick (\d)\); the deal waits for it \((.+) held\)",
     "ورقة أمام " + SEAT.format("{0}") + " لم تُقرأ (الأكلة {1})؛ الجولة تنتظرها "
     "(محجوزة: {2})"),
    (r"a card reads as (\S+), which seat (\d) played in trick (\d): one of the two reads is wrong",
     "ورقة تُقرأ {0}، وقد لعبها " + SEAT.format("{1}") + " في الأكلة {2}: إحدى القراءتين خطأ"),
    (r"trick (\d) \((.+)\): a card may be read at the wrong seat; the score is provisional "
     r"until a person confirms the trick or corrects it",
     "الأكلة {0} ({1}): قد تكون ورقة قُرئت عند مقعد خطأ؛ النتيجة مؤقتة حتى يؤكد أحد الأكلة "
     "أو يصححها"),
    (r"(\S+) seen after the deal's 8 tricks; not counted",
     "{0} رُئيت بعد أكلات الجولة الثماني؛ لا تُحتسب"),
    # the questions of a suspected ruling (hakam.vision.provenance.question)
    (r"Did seat (\d) break the rule in trick (\d)\? The ruling depends on it",
     "هل خالف " + SEAT.format("{0}") + " القاعدة في الأكلة {1}؟ الحكم يتوقف على ذلك"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(read, but not "
     r"lying clearly in front of a seat\)",
     "هل لعب " + SEAT.format("{0}") + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك "
     "(قُرئت، لكنها لم تكن أمام مقعد بوضوح)"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(read in front of "
     r"a seat not on turn\)",
     "هل لعب " + SEAT.format("{0}") + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك "
     "(قُرئت أمام مقعد ليس عليه الدور)"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(not read: (.*)\)",
     "هل لعب " + SEAT.format("{0}") + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك "
     "({3})"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(confirmed\)",
     "هل لعب " + SEAT.format("{0}") + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك (مؤكَّدة)"),
)  # fmt: skip

# A message's field, when the whole message is not in the catalogue.
FIELDS = {
    "card points": "الأبناط", "open card": "الورقة المكشوفة", "bidding": "المزايدة",
    "doubling": "الدبل", "projects": "المشاريع", "project": "المشروع", "baloot": "البلوت",
    "deal": "الجولة", "dealer": "الموزّع", "contract": "المشترى", "correction": "التصحيح",
    "calibration": "المعايرة", "source": "المصدر", "export": "التصدير", "language": "اللغة",
}  # fmt: skip

_COMPILED = [(re.compile(rf"^{pattern}$"), text) for pattern, text in CATALOGUE]


# Why the pipeline named a card it did not read (``NAMED_BY``, ``RENAMED``), in Arabic.
REASONS = {
    NAMED_BY["elimination"]: "لم تُقرأ، وهي الورقة الوحيدة الباقية",
    NAMED_BY["exchange"]: "بُدّلت بورقة لم تُقرأ: تقلّ المخالفات بذلك",
    NAMED_BY["rules"]: "لم تُقرأ؛ الوحيدة من الباقي التي لا تخالف قاعدة",
    NAMED_BY["reader"]: "لم تُقرأ بثقة؛ من الطرق التي لا تخالف قاعدة، التي سمّتها القراءات أكثر",
    NAMED_BY["same-result"]: "لم تُقرأ؛ واحدة من عدة أوراق لا تخالف قاعدة وتعطي النتيجة نفسها",
    NAMED_BY["fewest"]: "لم تُقرأ بثقة؛ لا طريقة تحفظ كل القواعد: التي تخالف أقلها وسمّتها "
    "القراءات أكثر",
    RENAMED: "قُرئت كورقة رُئيت ثانية في مكان آخر؛ سُمّيت بأرجح ورقة لم تُلعب",
    "named by the rules": "سمّتها القواعد",
}


def _card(text: str) -> str:
    """A card's name (``AC``) as the window writes it, kept left to right (``A♣``); a reason
    a card was named, in Arabic (else as it is, left to right)."""
    if text in CARD_NAMES:
        return f"\u2066{card_label(text)}\u2069"
    if text in REASONS:
        return REASONS[text]
    if text.startswith("hokum:") and text[6:] in SUIT_SYMBOL:  # a call: Hokum in a suit
        return f"{STRINGS['hokum'][1]} {SUIT_SYMBOL[text[6:]]}"
    if text in STRINGS:  # a call or a raise (pass, sun, ashkal, double...)
        return STRINGS[text][1]
    return text if text.isdigit() or not text.isascii() else f"\u2066{text}\u2069"


def say(lang: Language, message: str) -> str:
    """A one-line message (an error, a question) as the window says it: in Arabic from the
    catalogue in an Arabic window, in its digits; as it is in English."""
    return lang.num(arabic(message)) if lang.rtl else message


def known(message: str) -> bool:
    """The catalogue has ``message`` (the tests ask it of every message a table can cause)."""
    return any(pattern.match(message) for pattern, _ in _COMPILED)


def arabic(message: str) -> str:
    """``message`` in Arabic: the catalogue's sentence, else its field's name and the English
    detail (isolated left to right, so it reads as written)."""
    for pattern, text in _COMPILED:
        found = pattern.match(message)
        if found:
            groups = [_card(g) for g in found.groups()]
            return text.format(*groups)
    field, sep, detail = message.partition(": ")
    if sep and field in FIELDS:
        return f"{FIELDS[field]}: \u2066{detail}\u2069"
    return f"\u2066{message}\u2069"
