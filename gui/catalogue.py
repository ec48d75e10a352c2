"""The window's messages in Arabic: each English pattern the panels, the pipeline and the engine
say, and its Arabic sentence (``hakam.gui.messages`` matches them and fills the groups in).

A sentence says a seat as ``اللاعب N`` (as the window's strings do), a trick ``الأكلة``, a deal
``الجولة``, card points ``الأبناط``, and a person at the table ``أحدكم``. Groups are put into
the sentence in order; a group that is a card, a list of cards, a call, a project, a rule or a
message of its own is said in Arabic too (``messages._part``).
"""

from __future__ import annotations

SEAT = "اللاعب {0}"
FOR_SEAT = "للاعب {0}"
WAITS = "الجولة تنتظر أحدكم"
NOTHING = "لم يتغير شيء"
CARDS_NOT_READ = "أوراق لم تُقرأ: {0}؛ "
HELD = "، وكانت عنده {3} ولعبها في الأكلة {4}."

# (English pattern, Arabic sentence): a whole message.
CATALOGUE: tuple[tuple[str, str], ...] = (
    # --- the panels (New deal, the sheet, the start) ---------------------------------------
    (r"card points: type the card points of one team", "الأبناط: اكتب أبناط أحد الفريقين"),
    (r"card points: '?(.*?)'? is not a whole number", "الأبناط: «{0}» ليس عددًا صحيحًا"),
    (r"card points: (-?\d+) is below 0 \(0 to (\d+)\)", "الأبناط: {0} أقل من الصفر (من 0 إلى {1})"),
    (r"card points: (\d+) is more than the (\d+) of a deal", "الأبناط: {0} أكثر من {1} في الجولة"),
    (r"card points: must add up to (\d+)", "الأبناط: يجب أن يكون المجموع {0}"),
    (r"card points: missing", "الأبناط: ناقصة"),
    (r"card points: kaboot gives team (\d) all (\d+)", "الأبناط: الكبوت يعطي الفريق {0} كل الـ{1}"),
    (r"card points: kaboot gives team (\d) all (\d+), not (\d+)",
     "الأبناط: الكبوت يعطي الفريق {0} كل الـ{1}، لا {2}"),
    (r"open card: choose the dealer first", "الورقة المكشوفة: اختر الموزّع أولًا"),
    (r"bidding: the bidding is not open", "المزايدة: المزايدة غير مفتوحة"),
    (r"bidding: seat (\d) spoke out of turn; seat (\d) speaks",
     "المزايدة: " + SEAT + " تكلّم قبل دوره؛ الدور على " + SEAT.format("{1}")),
    (r"bidding: '(.+)' is not allowed for seat (\d) now",
     "المزايدة: «{0}» غير مسموح " + FOR_SEAT.format("{1}") + " الآن"),
    (r"doubling: (\w+) by seat (\d) is not allowed now",
     "الدبل: {0} من " + SEAT.format("{1}") + " غير مسموح الآن"),
    (r"projects: no contract yet", "المشاريع: لا مشترى بعد"),
    (r"projects: (\S+) is in two projects", "المشاريع: {0} في مشروعين"),
    (r"project: a card cannot be in two projects", "المشروع: لا تكون الورقة في مشروعين"),
    (r"baloot: only in Hokum", "البلوت: في الحكم فقط"),
    (r"baloot: there is no Baloot in Sun", "البلوت: لا بلوت في الصن"),
    (r"baloot: only one player holds K and Q of trump",
     "البلوت: الشايب والبنت من الحكم عند لاعب واحد فقط"),
    (r"baloot: seat (\d) out of range", "البلوت: " + SEAT + " خارج المدى"),
    (r"deal: finish the bidding first", "الجولة: أكمل المزايدة أولًا"),
    (r"deal: no camera to play it \(table mode is off\)",
     "الجولة: لا كاميرا تلعبها (وضع الطاولة غير مفعّل)"),
    (r"deal (\d+): no such deal", "الجولة {0}: غير موجودة"),
    (r"deal (\d+): nothing to audit", "الجولة {0}: لا شيء يُدقَّق"),
    (r"dealer: seat (\d) out of range", "الموزّع: " + SEAT + " خارج المدى"),
    (r"dealer: seat (\d) deals this deal \(the deal passes to the right\)",
     "الموزّع: " + SEAT + " يوزّع هذه الجولة (التوزيع ينتقل إلى اليمين)"),
    (r"dealer: the first dealer is fixed once a deal is written",
     "الموزّع: الموزّع الأول ثابت بعد كتابة أول جولة"),
    (r"the match is over at deal (\d+) \((\d+)-(\d+)\): start a new match",
     "انتهت المباراة في الجولة {0} ({1}-{2}): ابدأ مباراة جديدة"),
    (r"calibration: click the table's centre, then the first dealer's seat, on the frame",
     "المعايرة: انقر وسط الطاولة ثم مقعد الموزّع الأول في الصورة"),
    (r"calibration: click the table's centre, then the first dealer's seat",
     "المعايرة: انقر وسط الطاولة ثم مقعد الموزّع الأول"),
    (r"source: give a camera number \(0, 1, \.\.\.\) or a video file",
     "المصدر: اكتب رقم الكاميرا (0، 1، ...) أو ملف فيديو"),
    # the start screen's Learn a deck (hakam.cli.deck.learn_from_frame)
    (r"deck name: give the deck a name \(1 to 40 Latin letters, digits, '_', '\.' or '-', "
     r"starting with a letter or digit\)",
     "اسم الورق: سمِّ الورق (من 1 إلى 40 من الحروف اللاتينية أو الأرقام أو _ أو . أو -، أوله "
     "حرف أو رقم)"),
    (r"deck name (.*): 1 to 40 Latin letters, digits, '_', '\.' or '-', starting with a "
     r"letter or digit",
     "اسم الورق «{0}»: من 1 إلى 40 من الحروف اللاتينية أو الأرقام أو _ أو . أو -، أوله حرف "
     "أو رقم"),
    (r"deck (\S+): learnt here already; give another name \(or `hakam deck forget \S+`\)",
     "الورق {0}: متعلَّم هنا من قبل؛ اختر اسمًا آخر"),
    (r"only (\d+) of the 32 cards found: lay out all 32 face up, not touching, and learn the "
     r"deck again",
     "لم يُعثر إلا على {0} من الأوراق الـ32: افرد الأوراق كلها مكشوفةً متباعدةً، ثم تعلَّم الورق "
     "من جديد"),
    (r"every card in the new picture was found before: lay the cards missing before the camera",
     "كل ورقة في الصورة الجديدة وُجدت من قبل: ضع الأوراق الناقصة أمام الكاميرا"),
    (r"no card found in the new picture: lay the cards face up before the camera, not touching",
     "لم يُعثر على ورقة في الصورة الجديدة: ضع الأوراق مكشوفةً أمام الكاميرا متباعدةً"),
    (r"export: cannot write (.+) \((.+)\)", "التصدير: تعذّرت الكتابة في {0} ({1})"),
    (r"(?:notice|warning) (\d+): not found", "التنبيه {0}: غير موجود"),
    (r"notice (\d+): no trick to confirm", "التنبيه {0}: لا أكلة تُؤكَّد"),
    # why no raise is offered (the New deal panel's doubling step)
    (r"match: Sun may be doubled only when the declarer's team has more than (\d+) and the "
     r"doublers less",
     "النتيجة: لا يُدبَل الصن إلا إذا كان لفريق المشتري أكثر من {0} وللمدبّلين أقل"),
    (r"(\w+): the highest raise", "{0}: أعلى دبل"),
    # --- the camera and the video (the start dialog, the status bar) ----------------------
    (r"(.+): the deal waits for the camera", "{0}: الجولة تنتظر الكاميرا"),
    (r"(.+): back, the deal goes on", "{0}: عادت، والجولة مستمرة"),
    (r"camera (\d+): cannot be opened \(no such device or it is busy\)",
     "الكاميرا {0}: لا تُفتح (غير موجودة أو مشغولة)"),
    (r"camera (\d+): stopped delivering frames after (\d+)",
     "الكاميرا {0}: توقفت عن إرسال الصور بعد {1} صورة"),
    (r"video (.+): no such file", "الفيديو {0}: الملف غير موجود"),
    (r"video (.+): cannot be opened \(not a video OpenCV reads\)",
     "الفيديو {0}: لا يُفتح (ليس فيديو يقرؤه OpenCV)"),
    (r"video (.+): no frame could be decoded", "الفيديو {0}: لم تُقرأ منه أي صورة"),
    (r"folder (.+): no images \((.+)\) in it", "المجلد {0}: لا صور فيه ({1})"),
    (r"folder (.+): (.+) is not a readable image", "المجلد {0}: {1} ليست صورة تُقرأ"),
    (r"--source (.+): no such file or folder \(give a camera index, a video, a folder or "
     r"'demo'\)",
     "المصدر {0}: لا ملف ولا مجلد بهذا الاسم (اكتب رقم كاميرا أو فيديو أو مجلدًا أو demo)"),
    (r"--source: empty \(give a camera index, a video, a folder or 'demo'\)",
     "المصدر: فارغ (اكتب رقم كاميرا أو فيديو أو مجلدًا أو demo)"),
    (r"demo clip (.+): not installed", "مقطع العرض {0}: غير مثبّت"),
    # --- the pipeline's notices (``uncertain`` events) in the live view ---------------------
    (r"card on the table not read \(([\d.]+) s without a sure read\)",
     "ورقة على الطاولة لم تُقرأ ({0} ث بلا قراءة مؤكدة)"),
    (r"card in front of seat (\d) not read \(([\d.]+) s without a sure read\)",
     "ورقة أمام " + SEAT + " لم تُقرأ ({1} ث بلا قراءة مؤكدة)"),
    (r"card in front of seat (\d) not read \(trick (\d)\); the deal waits for it \(\)? ?held\)",
     "ورقة أمام " + SEAT + " لم تُقرأ (الأكلة {1})؛ الجولة تنتظرها"),
    (r"card in front of seat (\d) not read \(trick (\d)\); the deal waits for it \((.+) held\)",
     "ورقة أمام " + SEAT + " لم تُقرأ (الأكلة {1})؛ الجولة تنتظرها (محجوزة: {2})"),
    (r"cards not read: (.+?); every way of placing them that keeps the rules gives the same "
     r"result: (\S+) is named for seat (\d) in trick (\d) \(a person may exchange them\)",
     CARDS_NOT_READ + "كل توزيع لها يحفظ القواعد يعطي النتيجة نفسها: سُمّيت {1} "
     + FOR_SEAT.format("{2}") + " في الأكلة {3} (لأحدكم أن يبدّلها)"),
    (r"cards not read: (.+?); no way of placing them keeps every rule: the deal waits for a "
     r"person \(seat (\d), trick (\d)\)",
     CARDS_NOT_READ + "لا توزيع لها يحفظ كل القواعد: " + WAITS + " (" + SEAT.format("{1}")
     + "، الأكلة {2})"),
    (r"cards not read: (.+?); (\d+) ways keep every rule: the deal waits for a person "
     r"\(seat (\d), trick (\d)\)",
     CARDS_NOT_READ + "عدد توزيعاتها التي تحفظ كل القواعد: {1}؛ " + WAITS + " ("
     + SEAT.format("{2}") + "، الأكلة {3})"),
    (r"cards not read: (.+?); (\d+) ways of placing them keep every rule: (\S+), which the "
     r"reads took it for most, is named for seat (\d) in trick (\d) \(a person may correct it\)",
     CARDS_NOT_READ + "عدد توزيعاتها التي تحفظ كل القواعد: {1}؛ سُمّيت {2}، وهي التي رأتها "
     "القراءات أكثر، " + FOR_SEAT.format("{3}") + " في الأكلة {4} (لأحدكم أن يصحّحها)"),
    (r"cards not read: (.+?); (\S+) is the only card that keeps every rule, but the reads "
     r"there doubt it: it is named for seat (\d) in trick (\d) \(a person may correct it\)",
     CARDS_NOT_READ + "{1} وحدها تحفظ كل القواعد، لكن القراءات هناك تشكّ فيها: سُمّيت "
     + FOR_SEAT.format("{2}") + " في الأكلة {3} (لأحدكم أن يصحّحها)"),
    (r"cards not read: (.+?); the reads took it for (\S+), which breaks a rule; 1 way keeps "
     r"every rule: the deal waits for a person \(seat (\d), trick (\d)\)",
     CARDS_NOT_READ + "رأتها القراءات {1}، وهي تخالف قاعدة؛ توزيع واحد يحفظ كل القواعد: "
     + WAITS + " (" + SEAT.format("{2}") + "، الأكلة {3})"),
    (r"cards not read: (.+?); no way of placing them keeps every rule: (\S+), which the reads "
     r"took it for and which breaks the fewest, is named for seat (\d) in trick (\d) \(a "
     r"person may correct it\)",
     CARDS_NOT_READ + "لا توزيع لها يحفظ كل القواعد: سُمّيت {1}، وهي التي رأتها القراءات "
     "وأقلها مخالفة، " + FOR_SEAT.format("{2}") + " في الأكلة {3} (لأحدكم أن يصحّحها)"),
    (r"(\S+) \(seat (\d), trick (\d), not read\) and (\S+) \(seat (\d), trick (\d), read with "
     r"a doubt of (\S+)\) may be each other: exchanged, the deal breaks the same rules \(a "
     r"person may exchange them\)",
     "{0} (" + SEAT + "، الأكلة {2}، لم تُقرأ) و{3} (" + SEAT.format("{4}") + "، الأكلة {5}، "
     "قُرئت مع شك أنها {6}) قد تكون كلٌّ منهما الأخرى: لو بُدّلتا لخالفت الجولة القواعد "
     "نفسها (لأحدكم أن يبدّلهما)"),
    (r"(\S+) named for seat (\d) in trick (\d) by its sure reads there \(likelihood ([0-9.]+); "
     r"the vote did not accept it\): a person may correct it",
     "سُمّيت {0} لـ" + SEAT.format("{1}") + " في الأكلة {2} بقراءاتها الواثقة هناك (الأرجحية "
     "{3}؛ لم يقبلها التصويت): لأحدكم أن يصححها"),
    (r"a card reads as (\S+), which seat (\d) played in trick (\d): one of the two reads is wrong",
     "ورقة تُقرأ {0}، وقد لعبها " + SEAT.format("{1}") + " في الأكلة {2}: إحدى القراءتين خطأ"),
    (r"trick (\d) \((.+)\): a card may be read at the wrong seat; the score is provisional "
     r"until a person confirms the trick or corrects it",
     "الأكلة {0} ({1}): قد تكون ورقة قُرئت عند مقعد خطأ؛ النتيجة مؤقتة حتى يؤكد أحدكم الأكلة "
     "أو يصححها"),
    (r"trick (\d) \((.+)\): a card named is not known surely; the score is provisional until a "
     r"person confirms the trick or corrects it",
     "الأكلة {0} ({1}): ورقة سُمّيت ولا يُعرف أنها صحيحة يقينًا؛ النتيجة مؤقتة حتى يؤكد أحدكم "
     "الأكلة أو يصححها"),
    (r"trick (\d) \((.+)\): a card may be read at the wrong seat; placed either way, the "
     r"result and the rulings are the same \(a person may confirm the trick or correct it\)",
     "الأكلة {0} ({1}): قد تكون ورقة قُرئت عند مقعد خطأ؛ أيًّا كان موضعها فالنتيجة والأحكام "
     "نفسها (لأحدكم أن يؤكد الأكلة أو يصححها)"),
    (r"(\S+) seen after the deal's 8 tricks; not counted",
     "{0} رُئيت بعد أكلات الجولة الثماني؛ لا تُحتسب"),
    # a person's correction or confirmation the pipeline refused
    (r"correction: deal (\d+) is over \(this is deal (\d+)\)",
     "التصحيح: الجولة {0} انتهت (هذه الجولة {1})"),
    (r"correction: the deal's 8 tricks are complete", "التصحيح: اكتملت أكلات الجولة الثماني"),
    (r"correction: seat (\d) is not on turn \(the deal waits for seat (\d)\)",
     "التصحيح: ليس الدور على " + SEAT + " (الجولة تنتظر " + SEAT.format("{1}") + ")"),
    (r"correction: (\S+) was already played", "التصحيح: {0} لُعبت من قبل"),
    (r"correction: (\S+) was not played", "التصحيح: {0} لم تُلعب"),
    (r"correction: (\S+) was read and waits for its seat's turn",
     "التصحيح: {0} قُرئت وتنتظر دور لاعبها"),
    (r"correction: trick (\d) is not played yet \(the deal is at trick (\d)\)",
     "التصحيح: الأكلة {0} لم تُلعب بعد (الجولة في الأكلة {1})"),
    (r"correction: deal (\d+) was refereed before a restart; correct it on the score sheet",
     "التصحيح: حُكمت الجولة {0} قبل إعادة التشغيل؛ صحّحوها في ورقة الحساب"),
    (r"confirmation: deal (\d+) was refereed before a restart; correct it on the score sheet",
     "التأكيد: حُكمت الجولة {0} قبل إعادة التشغيل؛ صحّحوها في ورقة الحساب"),
    (r"correction: deal (\d+) has not started", "التصحيح: الجولة {0} لم تبدأ"),
    (r"confirmation: deal (\d+) has not started", "التأكيد: الجولة {0} لم تبدأ"),
    (r"correction: no deal is in progress", "التصحيح: لا جولة جارية"),
    (r"confirmation: no deal is in progress", "التأكيد: لا جولة جارية"),
    (r"correction: seat (\d) played no (\S+) in trick (\d)",
     "التصحيح: " + SEAT + " لم يلعب {1} في الأكلة {2}"),
    (r"correction: seat (\d) has two cards in trick (\d) \((.+)\): say which",
     "التصحيح: لـ" + SEAT + " ورقتان في الأكلة {1} ({2}): حدّدوا أيّهما"),
    (r"correction: seat (\d) has no card in trick (\d), and (\S+) is not in it",
     "التصحيح: لا ورقة لـ" + SEAT + " في الأكلة {1}، و{2} ليست فيها"),
    (r"correction: (\S+) was read in front of seat (\d); it is played when that seat is on turn",
     "التصحيح: {0} قُرئت أمام " + SEAT.format("{1}") + "؛ تُلعب حين يأتي دوره"),
    (r"confirmation: deal (\d+) is over \(this is deal (\d+)\)",
     "التأكيد: الجولة {0} انتهت (هذه الجولة {1})"),
    (r"confirmation: no (\S+) ruling stands for seat (\d) in trick (\d); nothing changed",
     "التأكيد: لا حكم «{0}» قائم على " + SEAT.format("{1}") + " في الأكلة {2}؛ " + NOTHING),
    (r"confirmation: the (\S+) ruling of seat (\d) in trick (\d) is already proven; nothing "
     r"changed",
     "التأكيد: حكم «{0}» على " + SEAT.format("{1}") + " في الأكلة {2} ثابت من قبل؛ " + NOTHING),
    (r"confirmation: no card was played in trick (\d); nothing changed",
     "التأكيد: لم تُلعب ورقة في الأكلة {0}؛ " + NOTHING),
    (r"confirmation: seat (\d) played no card in trick (\d); nothing changed",
     "التأكيد: " + SEAT + " لم يلعب ورقة في الأكلة {1}؛ " + NOTHING),
    # --- the questions of a suspected ruling (hakam.vision.provenance.question) ------------
    (r"Did seat (\d) break the rule in trick (\d)\? The ruling depends on it",
     "هل خالف " + SEAT + " القاعدة في الأكلة {1}؟ الحكم يتوقف على ذلك"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(read, but not "
     r"lying clearly in front of a seat\)",
     "هل لعب " + SEAT + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك "
     "(قُرئت، لكنها لم تكن أمام مقعد بوضوح)"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(read in front of "
     r"a seat not on turn\)",
     "هل لعب " + SEAT + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك "
     "(قُرئت أمام مقعد ليس عليه الدور)"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(not read: (.*)\)",
     "هل لعب " + SEAT + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك ({3})"),
    (r"Did seat (\d) play (\S+) in trick (\d)\? The ruling depends on it \(confirmed\)",
     "هل لعب " + SEAT + " الورقة {1} في الأكلة {2}؟ الحكم يتوقف على ذلك (مؤكَّدة)"),
    # ... for the card ruled out of turn: whether it went out of turn
    (r"Did seat (\d) play (\S+) in trick (\d) out of turn\? The ruling depends on it \(read "
     r"in front of a seat not on turn\)",
     "هل لعب " + SEAT + " الورقة {1} في الأكلة {2} بغير دوره؟ الحكم يتوقف على ذلك "
     "(قُرئت أمام مقعد ليس عليه الدور)"),
    (r"Did seat (\d) play (\S+) in trick (\d) out of turn\? The ruling depends on it \(read, "
     r"but not lying clearly in front of a seat\)",
     "هل لعب " + SEAT + " الورقة {1} في الأكلة {2} بغير دوره؟ الحكم يتوقف على ذلك "
     "(قُرئت، لكنها لم تكن أمام مقعد بوضوح)"),
    (r"Did seat (\d) play (\S+) in trick (\d) out of turn\? The ruling depends on it \(not "
     r"read: (.*)\)",
     "هل لعب " + SEAT + " الورقة {1} في الأكلة {2} بغير دوره؟ الحكم يتوقف على ذلك ({3})"),
    # ... and the other plays a yes confirms with it ("8D seat 2, 9C seat 1")
    (r"(Did seat .+); a yes confirms too: (.+)", "{0}؛ والجواب بنعم يؤكّد معها: {1}"),
    # --- the referee's rulings (hakam.engine.referee), the banner's and the dispute's ------
    (r"Seat (\d) played (\S+) in trick (\d) without following (\w+), but he held (\S+), which "
     r"he played in trick (\d)\.",
     SEAT + " لعب {1} في الأكلة {2} ولم يتبع لون {3}، وكانت عنده {4} ولعبها في الأكلة {5}."),
    (r"Seat (\d) had to trump in trick (\d) but played (\S+), and he held (\S+), which he "
     r"played in trick (\d)\.",
     SEAT + " كان عليه أن يدقّ بالحكم في الأكلة {1} لكنه لعب {2}" + HELD),
    (r"Seat (\d) had to beat the winning trump in trick (\d) but played (\S+), and he held "
     r"(\S+), which he played in trick (\d)\.",
     SEAT + " كان عليه أن يكبّر على الحكم الآكل في الأكلة {1} لكنه لعب {2}" + HELD),
    (r"Seat (\d), third to play in trick (\d) with no Ace or Ekka led, had to trump but "
     r"played (\S+), and he held (\S+), which he played in trick (\d)\.",
     SEAT + " ثالث في الأكلة {1} ولم ينزل الأس ولا إكّه، فكان عليه أن يدقّ لكنه لعب {2}"
     + HELD),
    (r"Seat (\d) led the trump (\S+) in trick (\d) in a locked game, but he held (\S+), which "
     r"he played in trick (\d) \(not a trump\)\.",
     SEAT + " فتح بالحكم {1} في الأكلة {2} والدبل مقفول، وكانت عنده {3} (ليست حكمًا) ولعبها "
     "في الأكلة {4}."),
    (r"Seat (\d) broke (\S+) with (\S+) in trick (\d); he held (\S+), which he played in "
     r"trick (\d)\.",
     SEAT + " خالف «{1}» بالورقة {2} في الأكلة {3}؛ وكانت عنده {4} ولعبها في الأكلة {5}."),
    (r"Seat (\d) played (\S+) in trick (\d) out of turn; seat (\d) was to play\.",
     SEAT + " لعب {1} في الأكلة {2} بغير دوره؛ كان الدور على " + SEAT.format("{3}") + "."),
    (r"(\S+) was seen twice: played by seat (\d) in trick (\d) and by seat (\d) in trick (\d)\.",
     "{0} ظهرت مرتين: لعبها " + SEAT.format("{1}") + " في الأكلة {2} و" + SEAT.format("{3}")
     + " في الأكلة {4}."),
    (r"Seat (\d) announced Ekka on (\S+) in trick (\d), but a trump is never an Ekka\.",
     SEAT + " أعلن إكّه على {1} في الأكلة {2}، والحكم لا يكون إكّه."),
    (r"Seat (\d) announced Ekka on (\S+) in trick (\d), but (.+) had not been played\.",
     SEAT + " أعلن إكّه على {1} في الأكلة {2}، ولم تُلعب بعد {3}."),
    (r"Seat (\d) announced a (\w+) that is not one: (.+)\.",
     SEAT + " أعلن {1} وليس مشروعًا صحيحًا: {2}."),
    (r"Seat (\d) announced Baloot with (\S+), but seat (\d) played (\S+) in trick (\d)\.",
     SEAT + " أعلن بلوت بالورقة {1}، لكن " + SEAT.format("{2}") + " لعب {3} في الأكلة {4}."),
    (r"Seat (\d) announced a (\w+) with (\S+), but seat (\d) played (\S+) in trick (\d)\.",
     SEAT + " أعلن {1} بالورقة {2}، لكن " + SEAT.format("{3}") + " لعب {4} في الأكلة {5}."),
    (r"Seat (\d) announced a (\w+) with (\S+), but never played it\.",
     SEAT + " أعلن {1} بالورقة {2} ولم يلعبها قط."),
)  # fmt: skip

# (English pattern, Arabic): what follows a field's name ("project: four 9s score nothing"),
# the engine's and the pipeline's errors without the field they are said for.
DETAILS: tuple[tuple[str, str], ...] = (
    # projects (hakam.engine.projects)
    (r"four (\w+)s score nothing", "أربع أوراق {0} ليست مشروعًا"),
    (r"(\w+) does not exist in Sun", "لا {0} في الصن"),
    (r"(\w+) does not exist in Hokum", "لا {0} في الحكم"),
    (r"no (\w+) has top (\S+)", "لا {0} أعلى ورقة فيه {1}"),
    (r"those cards are a (\w+), not a (\w+)", "هذه الأوراق {0} لا {1}"),
    (r"a sequence needs its top card", "المشروع المتتالي يحتاج أعلى ورقة فيه"),
    (r"give either top or four_of, not both", "أعلى ورقة أو الأربع، لا الاثنان"),
    (r"a card appears twice", "ورقة مكررة"),
    (r"a project needs at least 3 cards", "المشروع ثلاث أوراق على الأقل"),
    (r"the cards are not a sequence of one suit", "الأوراق ليست متتالية من لون واحد"),
    (r"unknown kind '(.*)'", "نوع غير معروف «{0}»"),
    (r"unknown rank '(.*)'", "رتبة غير معروفة «{0}»"),
    # cards, bids and raises (hakam.engine.cards, .bidding, .doubling)
    (r"unknown card '(.*)'", "ورقة غير معروفة «{0}»"),
    (r"the bidding is over", "انتهت المزايدة"),
    (r"round 2 Hokum must name a suit other than the open card's",
     "حكم الدورة الثانية يكون بلون غير لون الورقة المكشوفة"),
    (r"Gahwa is the last raise", "القهوة آخر دبل"),
    (r"the next raise is (\w+), not '(\w+)'", "الدبل التالي {0} لا {1}"),
    (r"Sun may only be doubled", "الصن يُدبَل فقط"),
    (r"a Sun is never locked", "الصن لا يُقفل"),
    (r"(\w+) is always open", "{0} مفتوح دائمًا"),
    (r"(\w+) is said by an opponent of the declarer", "{0} يقوله خصم المشتري"),
    (r"Quadruple is said by the player who doubled", "الفور يقوله من دبّل"),
    (r"(\w+) is answered by the declarer", "{0} يردّ به المشتري"),
    # the referee (hakam.engine.referee), the calibration (hakam.vision.seats)
    (r"must be 0\.\.3, got (.+)", "من 0 إلى 3، لا {0}"),
    (r"a deal has 8 tricks", "الجولة ثماني أكلات"),
    (r"must be at least (\d+) px away from the centre",
     "يجب أن يبعد {0} بكسل على الأقل عن الوسط"),
)  # fmt: skip

# A message's field, when the whole message is not in the catalogue.
FIELDS = {
    "card points": "الأبناط", "open card": "الورقة المكشوفة", "bidding": "المزايدة",
    "doubling": "الدبل", "projects": "المشاريع", "project": "المشروع", "baloot": "البلوت",
    "deal": "الجولة", "dealer": "الموزّع", "contract": "المشترى", "correction": "التصحيح",
    "calibration": "المعايرة", "source": "المصدر", "export": "التصدير", "language": "اللغة",
    "draft": "المسودة", "confirmation": "التأكيد", "match": "النتيجة", "level": "الدرجة",
    "call": "النداء", "locked": "القفل", "seat": "المقعد", "tricks": "الأكلات",
}  # fmt: skip

# Fields with a number or a name: "deal 3", "project 2", "camera 0", "video clip.mp4 (15 fps)".
NAMED_FIELDS: tuple[tuple[str, str], ...] = (
    (r"deal (\d+)", "الجولة {0}"),
    (r"project (\d+)", "المشروع {0}"),
    (r"camera (\d+)(?: \((\d+x\d+)\))?", "الكاميرا {0}"),
    (r"video (.+?)(?: \(([\d.]+) fps\))?", "الفيديو {0}"),
    (r"folder (.+?)(?: \((\d+) images, ([\d.]+) fps\))?", "المجلد {0}"),
)

# The system's words for a file that cannot be written (``OSError.strerror``).
OS_ERRORS = {
    "Permission denied": "لا إذن بالكتابة",
    "No space left on device": "لا مساحة على القرص",
    "Read-only file system": "القرص للقراءة فقط",
    "No such file or directory": "المجلد غير موجود",
    "Is a directory": "هذا مجلد لا ملف",
    "File name too long": "اسم الملف طويل جدًا",
}
