"""What every picture shares: the palette, A4 pages, labelled text, PNG encoding."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.pictures.fonts import Typeface, Weight, typeface

# A4 at 150 dpi: prints at full size, and Discord shows it scaled to its preview.
A4_WIDTH = 1240
A4_HEIGHT = 1754
MARGIN = 48

PAPER = (246, 241, 230)
INK = (30, 26, 22)
MUTED = (105, 96, 86)
RULE = (190, 178, 160)
ACCENT = (122, 31, 31)
ACCENT_INK = (250, 244, 232)
TABLE_HEAD = (226, 214, 192)
GOOD = (46, 107, 52)
WARN = (168, 101, 10)
BAD = (150, 30, 30)
GONE = (90, 90, 90)

Colour = tuple[int, int, int]


def hex_colour(colour: Colour) -> str:
    """``#rrggbb``: a palette colour as matplotlib takes it (the chart shares the palette)."""
    return "#{:02x}{:02x}{:02x}".format(*colour)


class Canvas:
    """An image with its drawing context: shapes through ``draw``, text through a Typeface."""

    def __init__(self, width: int = A4_WIDTH, height: int = A4_HEIGHT) -> None:
        self.image = Image.new("RGB", (width, height), PAPER)
        self.draw = ImageDraw.Draw(self.image)

    def text(
        self, face: Typeface, xy: tuple[float, float], text: str, fill: Colour,
        *, align: str = "left",
    ) -> float:
        return face.draw(self.image, xy, text, fill, align=align)

    def png(self) -> bytes:
        return png(self.image)


# Every colour pair that meets on a card (ink over ground); anti-aliasing
# makes the blends between them, and nothing else appears.
_PAIRS: tuple[tuple[Colour, Colour], ...] = (
    *((PAPER, ink) for ink in (INK, MUTED, RULE, ACCENT, GOOD, WARN, BAD, GONE)),
    *((ground, ACCENT_INK) for ground in (ACCENT, GOOD, WARN, BAD, GONE, INK, MUTED)),
    (TABLE_HEAD, INK), (TABLE_HEAD, RULE), (TABLE_HEAD, PAPER),
)
_BLEND_STEPS = 10


def _palette_image() -> Image.Image:
    colours: dict[Colour, None] = {}
    for ground, ink in _PAIRS:
        for step in range(_BLEND_STEPS + 1):
            share = step / _BLEND_STEPS
            r, g, b = (round(low + (high - low) * share) for low, high in zip(ground, ink,
                                                                              strict=True))
            colours[(r, g, b)] = None
    if len(colours) > 256:
        raise RuntimeError(f"the card palette has {len(colours)} colours; PNG allows 256")
    image = Image.new("P", (1, 1))
    image.putpalette([channel for colour in colours for channel in colour])
    return image


_PALETTE = _palette_image()


def png(image: Image.Image) -> bytes:
    """PNG bytes of a card, mapped onto the cards' own palette first.

    A card holds only the palette's colours and the anti-aliasing blends
    between them, so one byte a pixel loses nothing visible, and encodes in a
    fifth of the time of RGB (the render-time budget is PNG encoding).
    """
    out = io.BytesIO()
    image.quantize(palette=_PALETTE, dither=Image.Dither.NONE).save(
        out, format="PNG", compress_level=3
    )
    return out.getvalue()


def pill(
    canvas: Canvas, right: float, top: float, text: str, colour: Colour, size: int = 17
) -> float:
    """A rounded tag ending at ``right``; returns its left edge."""
    face = typeface(size, Weight.BOLD)
    width = face.width(text) + 16
    box = (right - width, top, right, top + face.line_height + 6)
    canvas.draw.rounded_rectangle(box, radius=8, fill=colour)
    canvas.text(face, (right - width + 8, top + 3), text, ACCENT_INK)
    return right - width


def hatched(
    draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], colour: Colour
) -> None:
    """Diagonal hatching inside ``box``: marks something missing, also in grey print."""
    left, top, right, bottom = box
    draw.rectangle(box, outline=colour, width=2)
    step = 14
    offset = 0.0
    height = bottom - top
    while offset < (right - left) + height:
        start = (left + offset, top)
        end = (left + offset - height, bottom)
        x0, y0 = start
        x1, y1 = end
        # Clip the line to the box by moving its ends along the diagonal.
        if x0 > right:
            y0 += x0 - right
            x0 = right
        if x1 < left:
            y1 -= left - x1
            x1 = left
        draw.line((x0, y0, x1, y1), fill=colour, width=1)
        offset += step


@dataclass(frozen=True)
class Line:
    """One line of text in a block, already fitted to its width."""

    text: str
    face: Typeface
    colour: Colour
    indent: float = 0.0
    label: str = ""

    @property
    def height(self) -> int:
        return self.face.line_height + 3


def labelled(
    label: str, text: str, width: float, colour: Colour = INK, *, size: int = 19,
    label_width: float = 104,
) -> list[Line]:
    """``text`` wrapped beside a bold ``label`` column ("Skills  Nerves of Steel, ...")."""
    face = typeface(size)
    lines = face.wrap(text, width - label_width) or [""]
    return [
        Line(part, face, colour, label_width, label if index == 0 else "")
        for index, part in enumerate(lines)
    ]


def draw_lines(canvas: Canvas, x: float, y: float, lines: list[Line]) -> float:
    """Draw ``lines`` from ``y`` down; return the y below the last."""
    label_face = typeface(16, Weight.BOLD)
    for line in lines:
        if line.label:
            label_top = y + line.face.ascent - label_face.ascent
            canvas.text(label_face, (x, label_top), line.label, ACCENT)
        canvas.text(line.face, (x + line.indent, y), line.text, line.colour)
        y += line.height
    return y
