"""Fonts for the pictures, and text that falls back glyph by glyph.

Nothing is fetched at run time. DejaVu Sans (wide Latin, Greek, Cyrillic,
Arabic, many symbols) and Last Resort HE (a glyph for every code point,
naming its Unicode block) come with matplotlib's package data; WenQuanYi
Micro Hei, bundled in ``fonts/``, draws Chinese, Japanese kana and Korean
Hangul. Pillow draws with one font per call, so a text is cut into runs,
each drawn with the first face that has a glyph for it (its cmap, read once
with fontTools).
"""

from __future__ import annotations

import importlib.util
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from functools import cache, lru_cache
from pathlib import Path

from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

BUNDLED = Path(__file__).resolve().parent / "fonts"
CJK_FONT = BUNDLED / "wqy-microhei.ttc"
ELLIPSIS = "…"
_CACHE_SIZE = 2048
# Narrower than any glyph that advances the pen (marks and joiners, which do not, stay with
# the glyph before them): a line of ``w`` pixels holds fewer than ``w / 2`` characters.
MIN_GLYPH_WIDTH = 2.0


def matplotlib_fonts() -> Path:
    """matplotlib's TTF folder, found without importing matplotlib (slow to import)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise RuntimeError("matplotlib is not installed; it ships the pictures' fonts")
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"


class Weight(Enum):
    REGULAR = "regular"
    BOLD = "bold"


@dataclass(frozen=True)
class Face:
    """One font file (and face in a collection) and the code points it draws."""

    path: Path
    index: int = 0

    @property
    def coverage(self) -> frozenset[int] | None:
        """None: draws everything (the last resort)."""
        return _coverage(self.path, self.index)


def faces(weight: Weight) -> tuple[Face, ...]:
    """The fallback chain, best first."""
    ttf = matplotlib_fonts()
    main = "DejaVuSans-Bold.ttf" if weight is Weight.BOLD else "DejaVuSans.ttf"
    return (Face(ttf / main), Face(CJK_FONT), Face(ttf / "LastResortHE-Regular.ttf"))


@cache
def _coverage(path: Path, index: int) -> frozenset[int] | None:
    if path.name.startswith("LastResort"):
        return None
    font = TTFont(path, fontNumber=index, lazy=True)
    try:
        return frozenset(font.getBestCmap())
    finally:
        font.close()


def _joins_previous(char: str) -> bool:
    """Marks, joiners and variation selectors stay with the glyph before them."""
    return unicodedata.category(char) in ("Mn", "Me", "Cf") or 0xFE00 <= ord(char) <= 0xFE0F


class Typeface:
    """A size and weight with its fallback chain: measures and draws any text."""

    def __init__(self, size: int, weight: Weight = Weight.REGULAR) -> None:
        self.size = size
        self.weight = weight
        self._chain = faces(weight)
        self._fonts: dict[int, ImageFont.FreeTypeFont] = {}
        # Rendered runs and widths: a roster repeats the same short texts ("4+",
        # "Weapons", "Lasgun (15)") hundreds of times, and FreeType is the slow part.
        self._masks: dict[tuple[int, str], tuple[Image.Image, int, int]] = {}
        self._widths: dict[str, float] = {}
        main = self.font(0)
        ascent, descent = main.getmetrics()
        self.ascent = ascent
        self.line_height = ascent + descent

    def font(self, position: int) -> ImageFont.FreeTypeFont:
        """The ``position``-th face of the chain, opened on first use."""
        if position not in self._fonts:
            face = self._chain[position]
            self._fonts[position] = ImageFont.truetype(str(face.path), self.size, index=face.index)
        return self._fonts[position]

    def _face_for(self, char: str) -> int:
        for position, face in enumerate(self._chain):
            coverage = face.coverage
            if coverage is None or ord(char) in coverage:
                return position
        return len(self._chain) - 1

    def runs(self, text: str) -> list[tuple[int, str]]:
        return _runs(self, text)

    def _split(self, text: str) -> Iterator[tuple[int, str]]:
        main = self._chain[0].coverage
        if main is not None and all(ord(c) in main for c in text):
            yield 0, text
            return
        current, start = -1, 0
        for index, char in enumerate(text):
            if index and _joins_previous(char):
                continue
            position = self._face_for(char)
            if position != current:
                if index > start:
                    yield current, text[start:index]
                current, start = position, index
        if len(text) > start:
            yield current, text[start:]

    def width(self, text: str) -> float:
        known = self._widths.get(text)
        if known is None:
            known = sum(self.font(pos).getlength(run) for pos, run in self.runs(text))
            if len(self._widths) >= _CACHE_SIZE:
                self._widths.clear()
            self._widths[text] = known
        return known

    def _mask(self, position: int, run: str) -> tuple[Image.Image, int, int]:
        """``run`` rendered as an alpha mask, with its offset from the pen on the baseline."""
        key = (position, run)
        found = self._masks.get(key)
        if found is None:
            font = self.font(position)
            left, top, right, bottom = (int(v) for v in font.getbbox(run, anchor="ls"))
            mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
            ImageDraw.Draw(mask).text((-left, -top), run, font=font, fill=255, anchor="ls")
            found = (mask, left, top)
            if len(self._masks) >= _CACHE_SIZE:
                self._masks.clear()
            self._masks[key] = found
        return found

    def draw(
        self,
        image: Image.Image,
        xy: tuple[float, float],
        text: str,
        fill: tuple[int, int, int],
        *,
        align: str = "left",
    ) -> float:
        """Draw ``text`` with its top-left (or top-right, centre) at ``xy``; return its width.

        Runs share one baseline, so a CJK name sits on the line like Latin.
        """
        x, y = xy
        width = self.width(text)
        if align == "right":
            x -= width
        elif align == "centre":
            x -= width / 2
        baseline = round(y + self.ascent)
        for position, run in self.runs(text):
            mask, left, top = self._mask(position, run)
            image.paste(fill, (round(x) + left, baseline + top), mask)
            x += self.width(run)
        return width

    def most_chars(self, limit: float) -> int:
        """More characters than ``limit`` pixels can hold: what measuring may stop at, so
        fitting a text costs its first few hundred characters, never its whole length."""
        return int(limit / MIN_GLYPH_WIDTH) + 2

    def clip(self, text: str, limit: float) -> str:
        """``text``, cut and ended with an ellipsis if it is wider than ``limit`` pixels."""
        text = text[:self.most_chars(limit)]
        if self.width(text) <= limit:
            return text
        low, high = 0, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            if self.width(text[:middle].rstrip() + ELLIPSIS) <= limit:
                low = middle
            else:
                high = middle - 1
        return text[:low].rstrip() + ELLIPSIS

    def wrap(self, text: str, limit: float) -> list[str]:
        """Lines of at most ``limit`` pixels, broken at spaces (inside a word too long).

        Only plain spaces break: a no-break space keeps "Frag grenades (30)" whole.
        """
        most = self.most_chars(limit)
        lines: list[str] = []
        line = ""
        for word in text.split(" "):
            if not word:
                continue
            candidate = f"{line} {word}" if line else word
            if len(candidate) <= most and self.width(candidate) <= limit:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word
            # Only a line's first ``most`` characters are ever measured: a long word costs
            # its length, not its length squared.
            while len(line) > 1 and (len(line) > most or self.width(line) > limit):
                cut = self._longest_prefix(line, limit)
                lines.append(line[:cut])
                line = line[cut:]
        if line:
            lines.append(line)
        return lines

    def _longest_prefix(self, word: str, limit: float) -> int:
        low, high = 1, min(len(word), self.most_chars(limit))
        while low < high:
            middle = (low + high + 1) // 2
            if self.width(word[:middle]) <= limit:
                low = middle
            else:
                high = middle - 1
        return low


@lru_cache(maxsize=4096)
def _runs(typeface: Typeface, text: str) -> list[tuple[int, str]]:
    return list(typeface._split(text))


@cache
def typeface(size: int, weight: Weight = Weight.REGULAR) -> Typeface:
    """One shared :class:`Typeface` per size and weight (fonts are costly to open)."""
    return Typeface(size, weight)
