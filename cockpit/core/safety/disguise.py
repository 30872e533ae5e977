"""Undo the usual disguises of a word, so text is matched as a person reads it.

Hostile pages write risky button names so that a word list misses them while a
person (and a model looking at the screenshot) still reads the word: Unicode
compatibility forms (fullwidth letters), invisible format characters
(zero-width spaces), Latin look-alike letters from Cyrillic and Greek
("D\u0435lete"), and spaced-out letters ("D E L E T E"). :func:`readings`
gives the text with those undone; :mod:`cockpit.core.safety.risk` matches its word
lists against every reading.
"""
from __future__ import annotations

import re
import unicodedata

# Cyrillic and Greek letters that look like Latin ones, as pages use them to hide a word.
_CONFUSABLES = str.maketrans({
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y", "\u0445": "x",
    "\u0456": "i", "\u0455": "s", "\u0458": "j", "\u0501": "d", "\u04bb": "h", "\u04cf": "l", "\u0442": "t",
    "\u043a": "k", "\u043c": "m", "\u043d": "h", "\u0432": "b", "\u0410": "A", "\u0415": "E", "\u041e": "O",
    "\u0420": "P", "\u0421": "C", "\u0423": "Y", "\u0425": "X", "\u0406": "I", "\u0405": "S", "\u0408": "J",
    "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u0412": "B", "\u0422": "T", "\u03bf": "o", "\u03b1": "a",
    "\u03b5": "e", "\u03b9": "i", "\u03ba": "k", "\u03bd": "v", "\u03c1": "p", "\u03c4": "t", "\u03c5": "u",
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K",
    "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
})
_SPACED = re.compile(r"(?<!\w)(?:\w[ .\u00a0_-]){2,}\w(?!\w)")


def readings(text: str) -> list[str]:
    """`text` as a person reads it: disguises undone; also with spaced-out letters joined."""
    t = unicodedata.normalize("NFKC", text)
    t = "".join(ch for ch in t if unicodedata.category(ch) != "Cf").translate(_CONFUSABLES)
    out = [t]
    joined = _SPACED.sub(lambda m: re.sub(r"[ .\u00a0_-]", "", m.group(0)), t)
    if joined != t:
        out.append(joined)
    return out
