"""What makes two names of people and agents the same name, in one place.

People and agents share one name space (players.name). Two comparisons:

- `name_key`: the same name, spelled differently. NFKC folds compatibility
  forms (fullwidth letters, ligatures) and casefold folds case the same way
  in every locale. Sign-in finds an account by it, the sign-in limit counts
  by it, and no two accounts share one. It is computed here, never by
  PostgreSQL's `lower()`, whose result depends on the database's locale
  (it maps "İ" to "i" under some, not under others).
- `name_skeleton`: a name that looks like another one (Cyrillic "а" for
  Latin "a", "l" for "1", a name with combining marks over another's
  letters). The skeleton of Unicode TR39 (section 4): each character is
  replaced by the prototype of its set of confusables, from the Unicode
  confusables data that confusable-homoglyphs ships. That package keeps
  the data as pairs, both ways round; the prototype of a set is chosen
  here as its ASCII member, else its lowest code point. Unlike TR39, marks
  (Unicode category Mn/Me) are dropped and case is folded: "José" looks
  like "Jose" to a reader, and names are compared ignoring case. A name
  whose skeleton is another's is refused at registration.

Both are stored in players (migration 011) for existing rows too
(`fill_name_columns`)."""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]  # ships no types


def name_key(name: str) -> str:
    """The form two spellings of the same name share."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def _prototype_order(char: str) -> tuple[bool, int]:
    return (not char.isascii(), ord(char))


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the prototype of its set (union-find over
    the package's pairs; only single characters)."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.get(char, char) != char:
            parent[char] = parent.get(parent[char], parent[char])
            char = parent[char]
        return char

    for char, homoglyphs in confusables_data.items():
        if len(char) != 1:
            continue
        for homoglyph in homoglyphs:
            other = homoglyph["c"]
            if len(other) != 1:
                continue
            a, b = root(char), root(other)
            if a != b:
                low, high = sorted((a, b), key=_prototype_order)
                parent[high] = low
    return {char: root(char) for char in parent}


def _map(text: str) -> str:
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(prototypes.get(char, char) for char in decomposed if unicodedata.category(char) not in ("Mn", "Me"))


def name_skeleton(name: str) -> str:
    """The form two names that look alike share."""
    # Case is folded between two passes: capital "I" looks like "l" (the
    # first pass, case kept), and "L" folds to "l", which looks like "1"
    # (the second).
    text = unicodedata.normalize("NFKC", name.strip())
    text = " ".join(text.split())
    return _map(_map(text).casefold())
