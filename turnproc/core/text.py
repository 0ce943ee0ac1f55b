"""Text from players, made safe to store, print and compare (pure).

- `clean`: control characters dropped (line breaks and tabs kept), bidi
  overrides, embeddings and isolates and zero-width characters removed, so
  an announcement or a name can neither move the moderator's cursor nor
  display text in another order than it is stored.
- `clean_name`: a name (or any one-line text) from a player, cleaned as
  `clean` does, on one line, cut to the length its column holds: the one
  function every name passes through where it enters (mail, players file,
  command line, turnsheet), so no name stored or printed carries an escape
  sequence or a bidi override.
- `for_terminal`: any character that is not printable shown as an escape
  (`\\x1b`), for lines printed to the moderator's terminal.
- `neutralised`: player text that a report prints, never readable as a
  turnsheet header line.
- `skeleton`: a name reduced to what it looks like (Unicode TR #39's
  skeleton, with a table of the confusables that matter for names written
  in Latin letters: Cyrillic and Greek look-alikes, digits, `rn` for `m`),
  so that "Jay G0uld" or a Cyrillic "Jаy Gould" is recognised as "Jay Gould".
"""

import re
import unicodedata

# Bidi embeddings, overrides and isolates, marks, zero-width characters, BOM.
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\u00ad\u034f\u061c"
)
_KEPT_CONTROLS = frozenset("\n\t")

# Look-alikes of Latin letters and digits (a subset of Unicode's
# confusables.txt, mapped to the Latin letter they imitate).
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ɡ": "g",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "γ": "y",
        # digits and signs that pass for letters
        "0": "o",
        "1": "l",
        "|": "l",
        "ı": "i",
        "ℓ": "l",
        "5": "s",
        "8": "b",
        "$": "s",
        "@": "a",
    }
)
_MULTI = (("rn", "m"), ("vv", "w"), ("cl", "d"))
_SHEET_WORD = re.compile(r"turn(\s?)sheet", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


def clean(text: str) -> str:
    """`text` without control characters (but line breaks and tabs), bidi
    controls and zero-width characters; carriage returns become line breaks."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(
        ch
        for ch in text
        if ch in _KEPT_CONTROLS
        or (ch not in _INVISIBLE and unicodedata.category(ch) not in ("Cc", "Cs", "Co"))
    )


def clean_name(text: str, limit: int = 120) -> str:
    """`text` cleaned (`clean`), every run of spaces, tabs and line breaks one
    space, trimmed and cut to `limit` characters."""
    return " ".join(clean(text).split())[:limit].strip()


def for_terminal(text: str) -> str:
    """`text` with every character that is not printable written as an escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def skeleton(name: str) -> str:
    """What `name` looks like: equal skeletons mean confusable names (TR #39)."""
    # A capital I looks like a small l; after case folding it would not.
    text = unicodedata.normalize("NFKD", clean(name).replace("I", "l").casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.translate(_CONFUSABLES)
    for many, one in _MULTI:
        text = text.replace(many, one)
    text = "".join(ch for ch in text if ch.isalnum() or ch.isspace())
    return _SPACES.sub(" ", text).strip()


def neutralised(text: str) -> str:
    """Player text (an announcement) that no line of a report printing it can
    be read as a turnsheet header, however the report wraps it: the word
    "turnsheet" is written "turn-sheet" (a header must say TURNSHEET)."""
    return _SHEET_WORD.sub(lambda m: m.group(0)[:4] + "-" + m.group(0)[-5:], text)
