"""Arabic and English in the table's own words; Arabic is laid out right to left.

``Language`` is switched at run time: views ask ``tr(key)`` again when ``changed`` fires. The
Arabic terms are those said at a Saudi Baloot table (حكم، صن، أشكل، دبل، ثري، فور، قهوة، سرا،
خمسين، مية، أربعمية، بلوت، كبوت، إكّه), not a dictionary translation.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

LANGUAGES = ("en", "ar")

STRINGS: dict[str, tuple[str, str]] = {
    # game terms
    "hokum": ("Hokum", "حكم"),
    "sun": ("Sun", "صن"),
    "ashkal": ("Ashkal", "أشكل"),
    "pass": ("Pass", "بس"),
    "double": ("Double", "دبل"),
    "triple": ("Triple", "ثري"),
    "quadruple": ("Four", "فور"),
    "gahwa": ("Gahwa", "قهوة"),
    "siri": ("Siri", "سرا"),
    "fifty": ("Fifty", "خمسين"),
    "hundred": ("Hundred", "مية"),
    "four_hundred": ("Four Hundred", "أربعمية"),
    "baloot": ("Baloot", "بلوت"),
    "kaboot": ("Kaboot", "كبوت"),
    "ekka": ("Ekka", "إكّه"),
    "locked": ("locked", "مقفول"),
    "open": ("open", "مفتوح"),
    "void": ("void (all passed)", "ملغية (الكل بس)"),
    # people and places
    "seat": ("Seat {n}", "اللاعب {n}"),
    "team0": ("Us", "لنا"),
    "team1": ("Them", "لهم"),
    "team0_seats": ("Us (seats 0+2)", "لنا (٠+٢)"),
    "team1_seats": ("Them (seats 1+3)", "لهم (١+٣)"),
    "dealer": ("Dealer", "الموزّع"),
    "declarer": ("Buyer", "المشتري"),
    "next_dealer": ("Next dealer: {seat}", "يوزّع التالي: {seat}"),
    "dir0": ("South", "جنوب"),
    "dir1": ("East", "شرق"),
    "dir2": ("North", "شمال"),
    "dir3": ("West", "غرب"),
    # tabs and titles
    "app_title": ("Hakam — Baloot referee", "حَكَم — حكم البلوت"),
    "tab_live": ("Live", "مباشر"),
    "tab_setup": ("New deal", "جولة جديدة"),
    "tab_sheet": ("Score sheet", "ورقة الحساب"),
    "tab_dispute": ("Dispute", "اعتراض"),
    "language": ("العربية", "English"),
    # score sheet
    "col_deal": ("#", "#"),
    "col_dealer": ("Dealer", "الموزّع"),
    "col_contract": ("Contract", "المشترى"),
    "col_card_points": ("Card points", "الأبناط"),
    "col_game_points": ("Game points", "النقاط"),
    "col_projects": ("Projects", "المشاريع"),
    "col_baloot": ("Baloot", "بلوت"),
    "col_result": ("Written", "المكتوب"),
    "col_total": ("Total", "المجموع"),
    "col_winner": ("Won", "الفائز"),
    "edit": ("Edit", "تعديل"),
    "delete": ("Delete", "حذف"),
    "undo": ("Undo", "تراجع"),
    "export_csv": ("Export CSV", "تصدير CSV"),
    "export_html": ("Printable sheet", "ورقة للطباعة"),
    "export_pdf": ("PDF", "PDF"),
    "new_match": ("New match", "مباراة جديدة"),
    "to_target": ("{total} / 152", "\u2066{total} / 152\u2069"),
    "match_won": ("{team} win the match {a}–{b}", "{team} فازوا بالمباراة {a}–{b}"),
    "saved": ("Saved", "محفوظ"),
    "undone": ("Undone: {action}", "تم التراجع: {action}"),
    "nothing_to_undo": ("Nothing to undo", "لا يوجد ما يُتراجع عنه"),
    "penalty": ("penalty: {rule}", "جزاء: {rule}"),
    "camera": ("camera", "كاميرا"),
    "manual": ("manual", "يدوي"),
    "deleted": ("Deal {n} deleted", "حُذفت الجولة {n}"),
    "exported": ("Saved to {path}", "حُفظ في {path}"),
    "confirm_delete": ("Delete deal {n}?", "حذف الجولة {n}؟"),
    # deal set-up
    "step_dealer": ("Who deals?", "من الموزّع؟"),
    "step_open": ("Open card", "الورقة المكشوفة"),
    "step_bidding": ("Bidding — {seat} speaks", "الشراء — يتكلم {seat}"),
    "step_doubling": ("Doubling", "الدبل"),
    "step_projects": ("Projects (first trick)", "المشاريع (الأكلة الأولى)"),
    "step_points": ("Card points of one team", "أبناط أحد الفريقين"),
    "no_raise": ("No more raises", "بدون دبل"),
    "raise_by": ("{call} by {seat}", "{call} من {seat}"),
    "record_deal": ("Write on the sheet", "سجّل في الورقة"),
    "record_void": ("Void deal: write it", "جولة ملغية: سجّلها"),
    "start_deal": ("Play this deal on camera", "العب هذه الجولة أمام الكاميرا"),
    "start_void": ("Void deal: next dealer", "جولة ملغية: الموزّع التالي"),
    "editing_deal": ("Editing deal {n}", "تعديل الجولة {n}"),
    "cancel_edit": ("Cancel", "إلغاء"),
    "remove_project": ("Remove the chosen project", "احذف المشروع المختار"),
    "raise_refused": ("No doubling now: {why}", "لا دبل الآن: {why}"),
    "preview": ("On the sheet: Us {us} – Them {them}", "في الورقة: لنا {us} – لهم {them}"),
    "start_title": ("Hakam: table mode", "حَكَم: وضع الطاولة"),
    "start_source": (
        "Camera (number), video or folder:",
        "الكاميرا (رقم) أو فيديو أو مجلد صور:",
    ),
    "start_new": ("A new match", "مباراة جديدة"),
    "start_deck": ("Deck:", "الورق:"),
    "start_learn_deck": ("Learn a deck…", "تعلَّم ورقًا…"),
    "start_deck_name": (
        "Lay the deck's 32 cards face up before the camera, not touching; then name the deck "
        "(Latin letters, digits, _ . -):",
        "افرد أوراق الورق الـ32 مكشوفةً أمام الكاميرا متباعدةً، ثم سمِّ الورق (حروف لاتينية أو "
        "أرقام أو _ . -):",
    ),
    "start_deck_waiting": (
        "Cards found earlier wait for deck {name}, with your answers. Go on with them, or take "
        "a new picture of the cards laid out (the answers given are dropped)?",
        "أوراق وُجدت من قبل تنتظر الورق {name} مع إجاباتك. أتكمل بها، أم تلتقط صورة جديدة "
        "للأوراق المفرودة (وتُحذف الإجابات السابقة)؟",
    ),
    "start_deck_go_on": ("Go on with them", "أكمل بها"),
    "start_ask_close": ("Close without starting the match?", "أتغلق دون أن تبدأ المباراة؟"),
    "start_close": ("Close", "أغلق"),
    "start_stay": ("Stay", "ابقَ"),
    "start_deck_retake": ("Take a new picture", "التقط صورة جديدة"),
    "start_deck_learnt": ("Deck {name} learnt and chosen.", "تمّ تعلُّم الورق {name} واختياره."),
    "start_deck_kept_waiting": (
        "Deck {name} not learnt: the cards found wait with your answers; Learn a deck… with "
        "the same name goes on with them.",
        "لم يُتعلَّم الورق {name}: الأوراق التي وُجدت تنتظر مع إجاباتك؛ «تعلَّم ورقًا…» بالاسم "
        "نفسه يكمل بها.",
    ),
    "deck_title": ("Hakam: learn a deck", "حَكَم: تعلُّم ورق"),
    "deck_hint": (
        "Check the name under each card found; choose another where it is wrong, or — for a "
        "find that is no card. Arabic indices: و is J, ب is Q, ش is K, ١ is A.",
        "راجع الاسم تحت كل ورقة وُجدت؛ اختر غيره إن كان خطأ، أو — لما ليس ورقة. في القائمة: "
        "الولد (و) هو J، والبنت (ب) Q، والشايب (ش) K، والإكَّة (١) A.",
    ),
    "deck_training_start": ("Training the deck's index network…", "تدريب شبكة الزوايا على الورق…"),
    "deck_too_few": (
        "Only {found} of the 32 cards found: cancel, lay out all 32 face up, not touching, and "
        "take them again",
        "لم يُعثر إلا على {found} من الأوراق الـ32: ألغِ، وافرد الأوراق كلها مكشوفةً متباعدةً، "
        "ثم صوّرها من جديد",
    ),
    "deck_missing": ("missing: {cards}", "ناقصة: {cards}"),
    "deck_proposed_again": ("proposed again", "اقتُرح من جديد"),
    "deck_look_again": (
        "↻ Changed by your other answers after you may have checked them: {finds}. Look at "
        "these finds again; choosing a card for one clears its mark.",
        "↻ غيّرتها إجاباتك الأخرى بعد أن راجعتها ربما: {finds}. انظر في هذه الأوراق مرة أخرى؛ "
        "اختيار ورقة لإحداها يزيل علامتها.",
    ),
    "deck_twice": ("more than once: {cards}", "مكررة: {cards}"),
    "deck_taken": ("{card} (find {finds})", "{card} (الورقة {finds})"),  # in a find's choices
    "deck_complete": ("The 32 Baloot cards, once each.", "أوراق البلوت الـ32، كل ورقة مرة."),
    "deck_save": ("Learn and save the deck", "تعلَّم الورق واحفظه"),
    "deck_cancel": ("Cancel", "ألغِ"),  # as Qt's own buttons say it
    "deck_add": ("Add a picture", "أضف صورة"),
    "deck_too_few_add": (
        "Only {found} of the 32 cards found: lay the others before the camera, then Add a picture",
        "لم يُعثر إلا على {found} من الأوراق الـ32: ضع البقية أمام الكاميرا ثم «أضف صورة»",
    ),
    "deck_missing_add": (
        " (give each to its find if it was found; else lay it before the camera, then Add a "
        "picture)",
        " (أعطِ كلًّا منها ورقتها إن وُجدت؛ وإلا فضعها أمام الكاميرا ثم «أضف صورة»)",
    ),
    "deck_missing_give": (
        " (give each to its find if it was found)",
        " (أعطِ كلًّا منها ورقتها إن وُجدت)",
    ),
    "deck_learning": ("Learning the deck…", "جارٍ تعلُّم الورق…"),
    "deck_scenes": (
        "Drawing scenes with the deck: {done} of {total}, about {left} s left to draw (then "
        "the training, with its own time left)",
        "رسم مشاهد بالورق: {done} من {total}، بقي للرسم نحو {left} ثانية (ثم التدريب، بوقته "
        "الباقي)",
    ),
    "deck_training": (
        "Training the deck's index network: step {done} of {total}, about {left} s left",
        "تدريب شبكة الزوايا على الورق: الخطوة {done} من {total}، بقي نحو {left} ثانية",
    ),
    "deck_stop": ("Stop learning", "أوقف التعلُّم"),
    "deck_ask_stop": (
        "Stop learning the deck? Nothing of it is kept; the cards found wait with your answers.",
        "أأوقِف تعلُّم الورق؟ لا يُحفظ منه شيء، وتنتظر الأوراق التي وُجدت مع إجاباتك.",
    ),
    "deck_go_on": ("Go on learning", "تابِع التعلُّم"),
    "deck_stopping": ("Stopping…", "جارٍ الإيقاف…"),
    "deck_saved": (
        "Deck {name} learnt and saved: choose it on the table's start screen (hakam table "
        "--deck {name}).",
        "تُعلِّم الورق {name} وحُفظ: اختره في شاشة بدء الطاولة (‎hakam table --deck {name}).",
    ),
    "deck_saved_chosen": (
        "Deck {name} learnt and saved; the table reads with it.",
        "تُعلِّم الورق {name} وحُفظ، وتقرأ الطاولة به.",
    ),
    "deck_ask_changed": (
        "↻ Finds {finds} were changed by your other answers after you may have checked them. "
        "Learn the deck as it stands?",
        "↻ غيّرت إجاباتك الأخرى الأوراق {finds} بعد أن راجعتها ربما. أتتعلَّم الورق كما هو؟",
    ),
    "deck_learn_anyway": ("Learn as it stands", "تعلَّمه كما هو"),
    "deck_look_first": ("Look at them first", "انظر فيها أولًا"),
    "deck_stopped": (
        "Learning stopped: nothing of it is kept. Your answers stay: learn again, or Cancel.",
        "أُوقف التعلُّم ولم يُحفظ منه شيء. إجاباتك باقية: تعلَّم من جديد أو ألغِ.",
    ),
    "deck_close": ("Close", "إغلاق"),
    "hide": ("Hide", "إخفاء"),
    "deck_misfit": (
        "The cards on the table do not read like deck {name}: if the table plays another deck, "
        "choose it on the start screen (or none: the standard readers).",
        "الأوراق على الطاولة لا تبدو من الورق {name}: إن كانت الطاولة تلعب بورق آخر فاختره في "
        "شاشة البدء (أو «بلا ورق متعلَّم»: القراءة العامة).",
    ),
    "deck_misfit_like": (
        "The cards on the table read more like deck {like} than deck {name}: if the table plays "
        "deck {like}, choose it on the start screen.",
        "الأوراق على الطاولة أقرب إلى الورق {like} منها إلى الورق {name}: إن كانت الطاولة تلعب "
        "بالورق {like} فاختره في شاشة البدء.",
    ),
    "deck_unchosen": (
        "The cards on the table read better with deck {like}, learnt here, than with the "
        "standard readers: if the table plays it, choose it on the start screen.",
        "الأوراق على الطاولة تُقرأ بالورق {like} المتعلَّم هنا أدقَّ من القراءة العامة: إن كانت "
        "الطاولة تلعب به فاختره في شاشة البدء.",
    ),
    "start_deck_standard": ("none: the standard readers", "بلا ورق متعلَّم: القراءة العامة"),
    "start_continue": (
        "Go on with match {match}: {deals} deals played, {a}-{b}",
        "متابعة المباراة {match}: {deals} جولات، {a}-{b}",
    ),
    "start_new_instead": ("Start a new match instead", "ابدأ مباراة جديدة بدلًا منها"),
    "start_click_centre": (
        "Calibrate: click the centre of the table on the picture",
        "المعايرة: انقر وسط الطاولة في الصورة",
    ),
    "start_click_dealer": (
        "Now click the seat of the player who deals first",
        "الآن انقر مقعد اللاعب الذي يوزّع أولًا",
    ),
    "start_clicked": (
        "Calibrated. Start, or click again to redo it",
        "تمت المعايرة. ابدأ، أو انقر من جديد لإعادتها",
    ),
    "start_saved": (
        "The saved calibration of this camera is used",
        "تُستعمل المعايرة المحفوظة لهذه الكاميرا",
    ),
    "start_again": ("Calibrate again", "أعد المعايرة"),
    "start_go": ("Start", "ابدأ"),
    "deal_started": ("The camera referees this deal", "الكاميرا تحكم هذه الجولة"),
    "not_counted": (
        "Deal {deal} was played after the match was decided: not counted",
        "الجولة {deal} لُعبت بعد حسم المباراة: لا تُحتسب",
    ),
    "undo_call": ("Back", "رجوع"),
    "restart_deal": ("Start over", "من جديد"),
    "add_project": ("Add", "أضف"),
    "top_card": ("top card", "أعلى ورقة"),
    "four_of": ("four of", "أربع"),
    "from_camera": ("(from camera)", "(من الكاميرا)"),
    "kaboot_by": ("Kaboot by", "كبوت لـ"),
    "none": ("none", "لا أحد"),
    "points_for": ("points of", "أبناط"),
    "baloot_by": ("Baloot held by", "البلوت عند"),
    "bought": ("{contract}", "{contract}"),
    # live view
    "turn": ("Turn: {seat}", "الدور: {seat}"),
    "trick_n": ("Trick {n}", "الأكلة {n}"),
    "no_contract": ("No contract yet", "لم يُشترَ بعد"),
    "waiting": ("Waiting for the camera…", "بانتظار الكاميرا…"),
    "fps": ("{fps:.1f} fps · detector {ms:.0f} ms", "{fps:.1f} إطار/ث · الكاشف {ms:.0f} ms"),
    "no_feed": ("no camera", "بدون كاميرا"),
    "reading_deck": ("deck {name}", "الورق {name}"),
    "accept": ("Accept", "قبول"),
    "dismiss": ("Dismiss", "رفض"),
    "warnings": ("Warnings", "التنبيهات"),
    "violation_title": (
        "{rule} — {seat}, trick {trick}",
        "{rule} — {seat}، الأكلة {trick}",
    ),
    "proof": ("proof: {card} (trick {trick})", "الدليل: {card} (الأكلة {trick})"),
    "uncertain": ("Not sure: {text}", "غير متأكد: {text}"),
    "correct": ("Pick the card", "اختر الورقة"),
    "notices": ("Uncertain reads (tap to correct)", "قراءات غير مؤكدة (اضغط للتصحيح)"),
    "all_cards": ("all 32", "الـ٣٢ كلها"),
    "possible_cards": ("still possible", "الممكنة"),
    "status_accepted": ("accepted", "مقبول"),
    "status_dismissed": ("dismissed", "مرفوض"),
    "status_withdrawn": ("withdrawn after a correction", "سُحب بعد التصحيح"),
    "status_renamed": ("renamed: its card was seen again", "صُحّحت: ظهرت ورقتها مرة أخرى"),
    "status_open": ("open", "قائم"),
    "status_confirmed": ("confirmed by a person", "أكّده شخص"),
    "suspected": ("suspected", "مشتبه"),
    "suspected_title": (
        "Suspected: {rule} — {seat}, trick {trick}",
        "مخالفة مشتبه بها: {rule} — {seat}، الأكلة {trick}",
    ),
    "confirm": ("Confirm", "تأكيد"),
    "confirm_trick": (
        "Confirm trick {trick} as recorded (every card and its seat)? Or correct a card of it.",
        "تأكيد الأكلة {trick} كما سُجّلت (كل ورقة ومقعدها)؟ أو صحّح ورقة منها.",
    ),
    "correct_a_card": ("Correct a card", "صحّح ورقة"),
    "correct_trick": ("Correct a card of this trick", "صحّح ورقة من هذه الأكلة"),
    "withdrawn_n": (
        "{n} ruling(s) withdrawn after a correction",
        "{n} حكم سُحب بعد تصحيح",
    ),
    "cancel": ("Cancel", "ألغِ"),  # as Qt's own buttons say it
    "refused": ("Not taken: {text}", "لم يُؤخذ: {text}"),
    "pick_seat": (
        "Trick {trick}: whose card is wrong?",
        "الأكلة {trick}: ورقة من فيها خطأ؟",
    ),
    "correct_for": (
        "{seat}, trick {trick}: pick the card played",
        "{seat}، الأكلة {trick}: اختر الورقة الملعوبة",
    ),
    "correct_seat": ("{seat}: pick the card", "{seat}: اختر الورقة"),
    "provisional": ("provisional", "مؤقت"),
    "provisional_totals": (
        "Not final: a deal counted has a ruling suspected or a card guessed",
        "غير نهائية: في جولة محسوبة مخالفة مشتبه بها أو ورقة مُخمَّنة",
    ),
    "status_corrected": ("corrected", "مصحّح"),
    "status_eliminated": ("the only card left", "الورقة الباقية الوحيدة"),
    "status_read_sparsely": (
        "read surely there, too seldom for the vote: a person may correct it",
        "قُرئت بثقة هناك، أقل مما يكفي للتصويت: لأحدكم أن يصححها",
    ),
    "status_deduced": (
        "of the cards left, the only one that breaks no rule",
        "من الأوراق الباقية، الوحيدة التي لا تخالف القواعد",
    ),
    "status_read_unsurely": (
        "of the cards that break no rule, the one the camera half read",
        "من الأوراق التي لا تخالف القواعد، التي قرأتها الكاميرا بلا تأكّد",
    ),
    "status_same_result": (
        "one of several cards that give the same score (may be exchanged)",
        "إحدى أوراق تعطي النتيجة نفسها (قد تُبدَّل)",
    ),
    "status_fewest_broken": (
        "no card keeps every rule: the one the camera half read, breaking the fewest",
        "لا ورقة تلتزم بكل القواعد: التي قرأتها الكاميرا بلا تأكّد، وهي الأقل مخالفة",
    ),
    "status_exchanged": (
        "exchanged with a card not read: a violation withdrawn",
        "بُدّلت مع ورقة لم تُقرأ: سُحبت مخالفة",
    ),
    # dispute
    "pick_deal": ("Deal", "الجولة"),
    "pick_trick": ("Trick", "الأكلة"),
    "no_evidence": ("no evidence frame", "لا توجد صورة دليل"),
    "known_named": ("not read: named", "لم تُقرأ: مسمّاة"),
    "known_named_p": ("not read: named, {p}%", "لم تُقرأ: مسمّاة، {p}٪"),
    "known_guessed": ("not read: a guess, asked", "لم تُقرأ: تخمين يُسأل عنه"),
    "known_overruled": (
        "left over by a person's later word: asked",
        "بقيت بعد كلمة لاحقة لشخص: يُسأل عنها",
    ),
    "known_person": ("named by a person", "سمّاها شخص"),
    "known_confirmed": ("confirmed by a person", "أكّدها شخص"),
    "ruling": ("Ruling", "الحكم"),
    "won_by": ("won by {seat}, {points} card points", "أكلها {seat}، {points} بنط"),
    "legal_trick": ("No rule broken in this trick.", "لا مخالفة في هذه الأكلة."),
    "audit": ("Deal audit", "تدقيق الجولة"),
    "audit_clean": (
        "Deal {n}: no violation in {tricks} tricks.",
        "الجولة {n}: لا مخالفة في {tricks} أكلات.",
    ),
    "audit_line": ("Deal {n}: {count} violation(s).", "الجولة {n}: {count} مخالفة."),
    "no_deals": ("No deal seen by the camera yet.", "لم ترَ الكاميرا أي جولة بعد."),
}

RULE_NAMES: dict[str, tuple[str, str]] = {
    "follow-suit": ("Revoke", "قاطع"),
    "must-trump": ("Did not trump", "ما دقّ بالحكم"),
    "must-overtrump": ("Did not over-trump", "ما كبّر الحكم"),
    "third-player": ("Third player rule", "قاعدة الثالث"),
    "locked-lead": ("Trump led in a locked game", "لعب حكم والدبل مقفول"),
    "false-ekka": ("False Ekka", "إكّه غلط"),
    "out-of-turn": ("Out of turn", "لعب بغير دوره"),
    "duplicate-card": ("Card seen twice", "ورقة مكررة"),
    "false-project": ("False project", "مشروع غلط"),
    "false-baloot": ("False Baloot", "بلوت غلط"),
}

RULE_TEXTS: dict[str, tuple[str, str]] = {
    "follow-suit": (
        "A player must follow the suit led whenever he holds a card of it.",
        "يجب على اللاعب أن يلعب من لون الورقة الأولى ما دام عنده منه.",
    ),
    "must-trump": (
        "Hokum: a player without the suit led must trump when an opponent is winning.",
        "في الحكم: من ليس عنده اللون يدقّ بالحكم إذا كان الخصم آكلاً.",
    ),
    "must-overtrump": (
        "Hokum: when trump is led, or an opponent wins with trump, a higher trump must be played "
        "if held.",
        "في الحكم: إذا لُعب حكم أو أكل الخصم بحكم يجب اللعب بحكم أعلى إن وُجد.",
    ),
    "third-player": (
        "Hokum: the third player without the suit led must trump unless an Ace or a valid Ekka "
        "was led and still wins.",
        "في الحكم: الثالث الذي ليس عنده اللون يدقّ إلا إذا نزل الأس "
        "أو أُعلنت إكّه صحيحة وما زالت آكلة.",
    ),
    "locked-lead": (
        "Locked double: trump may not be led while the leader holds another suit.",
        "الدبل المقفول: لا يُفتح بالحكم ما دام عند اللاعب لون آخر.",
    ),
    "false-ekka": (
        "Ekka may be announced only on the highest card still out in its suit (never a trump).",
        "لا تُعلن الإكّه إلا على أعلى ورقة باقية في لونها، ولا تكون حكماً.",
    ),
    "out-of-turn": (
        "Play goes to the right; the winner of a trick leads the next.",
        "اللعب إلى اليمين، ومن أكل الأكلة يبدأ التالية.",
    ),
    "duplicate-card": (
        "Each of the 32 cards is played once in a deal.",
        "كل ورقة من الـ٣٢ تُلعب مرة واحدة في الجولة.",
    ),
    "false-project": (
        "An announced project must be held by the announcer and shown with those cards.",
        "المشروع المعلن يجب أن يكون في يد صاحبه بنفس الأوراق.",
    ),
    "false-baloot": (
        "Baloot is K and Q of trump held together by the player who says it.",
        "البلوت: الشايب والبنت من الحكم في يد من أعلنه.",
    ),
}

_HELD = "، وكانت عنده {proof} ولعبها في الأكلة {pt}."

RULE_TEXT_AR: dict[str, str] = {
    "follow-suit": "{seat} لعب {card} في الأكلة {trick} ولم يتبع اللون" + _HELD,
    "must-trump": "{seat} كان عليه أن يدقّ في الأكلة {trick} لكنه لعب {card}" + _HELD,
    "must-overtrump": "{seat} كان عليه أن يكبّر الحكم في الأكلة {trick} لكنه لعب {card}" + _HELD,
    "third-player": "{seat} ثالث في الأكلة {trick} وكان عليه أن يدقّ لكنه لعب {card}" + _HELD,
    "locked-lead": "{seat} فتح بالحكم {card} في الأكلة {trick} والدبل مقفول" + _HELD,
    "false-ekka": "{seat} أعلن إكّه على {card} في الأكلة {trick} وهي ليست أعلى ورقة باقية.",
    "out-of-turn": "{seat} لعب {card} في الأكلة {trick} بغير دوره.",
    "duplicate-card": "الورقة {card} ظهرت مرتين (الأكلة {trick}).",
    "false-project": "{seat} أعلن مشروعاً غير صحيح بالورقة {card}.",
    "false-baloot": "{seat} أعلن بلوت غير صحيح بالورقة {card}.",
}

SUIT_SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_label(card: str | None) -> str:
    """``10H`` -> ``10♥``: the face as players read it, in both languages."""
    if not card:
        return "—"
    return card[:-1] + SUIT_SYMBOL.get(card[-1], card[-1])


ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
WESTERN = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")
DIGITS = ("western", "arabic")  # 0-9, or ٠-٩ (Arabic only)


class Language:
    """The current language, its direction and (in Arabic) its digits; listeners are called
    after a switch. ``digits``: ``western`` (0-9) or ``arabic`` (٠-٩), the user's choice, one
    style everywhere the window writes a number in Arabic."""

    def __init__(self, code: str = "en", digits: str = "western") -> None:
        self.code = code if code in LANGUAGES else "en"
        self.digits = digits if digits in DIGITS else "western"
        self._listeners: list[Callable[[], None]] = []

    @property
    def rtl(self) -> bool:
        return self.code == "ar"

    def subscribe(self, fn: Callable[[], None]) -> None:
        self._listeners.append(fn)

    def set(self, code: str) -> None:
        if code not in LANGUAGES:
            raise ValueError(f"language: must be one of {', '.join(LANGUAGES)}")
        if code != self.code:
            self.code = code
            self._changed()

    def toggle(self) -> None:
        self.set("ar" if self.code == "en" else "en")

    def set_digits(self, digits: str) -> None:
        if digits not in DIGITS:
            raise ValueError(f"digits: must be one of {', '.join(DIGITS)}")
        if digits != self.digits:
            self.digits = digits
            self._changed()

    def _changed(self) -> None:
        for fn in list(self._listeners):
            fn()

    def num(self, text: Any) -> str:
        """``text`` with its digits in the chosen style (Arabic only; English is 0-9)."""
        text = str(text)
        if self.code == "ar" and self.digits == "arabic":
            return text.translate(ARABIC_INDIC)
        return text.translate(WESTERN)

    def card(self, card: str | None) -> str:
        """``card_label``, kept left to right inside Arabic text (``A♣``, not ``♣A``)."""
        label = card_label(card)
        return f"\u2066{self.num(label)}\u2069" if self.rtl and card else label

    def tr(self, key: str, **kw: Any) -> str:
        pair = STRINGS.get(key)
        text = key if pair is None else pair[LANGUAGES.index(self.code)]
        # The text and its numbers in the chosen digits; other values (a file's path, a card's
        # name) as they are.
        out = []
        for literal, field, spec, conversion in string.Formatter().parse(text):
            out.append(self.num(literal))
            if field is not None:
                value = kw[field] if field else ""
                if conversion:
                    value = str(value) if conversion == "s" else repr(value)
                shown = format(value, spec or "")
                out.append(self.num(shown) if isinstance(value, int | float) else shown)
        return "".join(out)

    def seat(self, seat: int | None) -> str:
        return "—" if seat is None else self.tr("seat", n=seat)

    def team(self, team: int | None) -> str:
        return "—" if team is None else self.tr(f"team{team}")

    def rule(self, rule: str) -> str:
        pair = RULE_NAMES.get(rule)
        return rule if pair is None else pair[LANGUAGES.index(self.code)]

    def rule_text(self, rule: str) -> str:
        pair = RULE_TEXTS.get(rule)
        return "" if pair is None else pair[LANGUAGES.index(self.code)]

    def call(self, call: str) -> str:
        """A bid as said at the table: ``hokum:S`` -> ``Hokum ♠`` / ``حكم ♠``."""
        if call.startswith("hokum:"):
            return f"{self.tr('hokum')} {SUIT_SYMBOL.get(call[6:], call[6:])}"
        return self.tr(call)

    def contract(self, c: dict[str, Any] | None) -> str:
        """``Hokum ♥ · Seat 1 · Double, locked`` in the current language."""
        if c is None:
            return self.tr("void")
        head = (
            self.tr("sun")
            if c["kind"] == "sun"
            else f"{self.tr('hokum')} {SUIT_SYMBOL[c['trump']]}"
        )
        if c.get("ashkal"):
            head += f" ({self.tr('ashkal')})"
        parts = [head, self.seat(c["declarer"])]
        level = c.get("level", "none")
        if level != "none":
            lock = self.tr("locked") if c.get("locked") else ""
            parts.append(self.tr(level) + (f" {lock}" if lock else ""))
        return " · ".join(parts)

    def project(self, p: dict[str, Any]) -> str:
        return f"{self.tr(p['kind'])} ({self.seat(p['seat'])})"

    def violation(self, v: dict[str, Any]) -> str:
        """The violation sentence; English is the engine's own proof text."""
        if self.code == "en":
            return str(v.get("text", ""))
        proof = v.get("proof") or {}
        template = RULE_TEXT_AR.get(v["rule"], "{seat}: {card}")
        return self.num(
            template.format(
                seat=self.seat(v["seat"]),
                card=self.card(v.get("card")),
                trick=v["trick"],
                proof=self.card(proof.get("card")),
                pt=proof.get("trick", "—"),
            )
        )
