"""The roster card: a gang as A4 pages of fighter cards, two columns a page.

Page one opens with the gang (name, House, owner, the four figures in large
tiles that stay readable in Discord's small preview); then one block per
fighter, per vehicle, and the Stash, flowing down the left column, then the
right, then onto the next page; the last page shares its blocks between its
two columns. A block never splits across columns; one too tall for a whole
column is cut with a "more" line.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from bot.pictures.canvas import (
    A4_HEIGHT,
    A4_WIDTH,
    ACCENT,
    ACCENT_INK,
    BAD,
    GONE,
    GOOD,
    INK,
    MARGIN,
    MUTED,
    PAPER,
    RULE,
    TABLE_HEAD,
    WARN,
    Canvas,
    Colour,
    Line,
    draw_lines,
    hatched,
    labelled,
    pill,
)
from bot.pictures.fonts import Typeface, Weight, typeface
from bot.weapon_rows import WEAPON_FIGURES, KnownLines, WeaponRow, weapon_rows
from rules.models import (
    PROFILE_STATS,
    EquipmentKind,
    Fighter,
    FighterStatus,
    Gang,
    Item,
    Profile,
    Vehicle,
    VehicleStatus,
)
from rules.profiles import LABELS as STAT_LABELS
from rules.profiles import stat_text
from rules.ruleset import VehicleProfile
from rules.wording import count

NO_BREAK = "\u00a0"
GUTTER = 28
COLUMN_WIDTH = (A4_WIDTH - 2 * MARGIN - GUTTER) // 2
PADDING = 12
INNER = COLUMN_WIDTH - 2 * PADDING
BLOCK_GAP = 16
HEADER_HEIGHT = 262
RUNNING_HEADER_HEIGHT = 64
FOOTER_HEIGHT = 36
# Blocks end here at the lowest, above the footer.
BLOCKS_END = A4_HEIGHT - MARGIN - FOOTER_HEIGHT
BAND_HEIGHT = 40
META_HEIGHT = 34
TABLE_HEIGHT = 58

# The card's budgets (docs/pictures.md, "Budgets"): what one card may cost to draw,
# whatever the roster holds. Past a budget the card says what it left out.
# Pages: twice a message's ten attachments; 200 ordinary fighters fit.
MAX_PAGES = 20
# Seconds of drawing, checked after each page: a card is cut short rather than late.
DRAW_SECONDS = 8.0
# Entries of one list (skills, rules...) in a block; the rest are counted, not drawn.
MAX_ENTRIES_SHOWN = 60
# Characters of one list's text laid out: a column holds about 80 lines of 60.
MAX_LIST_TEXT = 5000
MORE_SIZE = 18
_STATUS_COLOURS: dict[FighterStatus, Colour] = {
    FighterStatus.ACTIVE: GOOD,
    FighterStatus.IN_RECOVERY: WARN,
    FighterStatus.CONVALESCENT: WARN,
    FighterStatus.CAPTURED: BAD,
    FighterStatus.DEAD: GONE,
    FighterStatus.RETIRED: GONE,
}


@dataclass(frozen=True)
class RosterOptions:
    """What the card says beyond the gang itself."""

    owner_name: str | None = None
    # Gang id -> name, for "Captured by ...".
    gang_names: Mapping[str, str] = field(default_factory=dict)
    # Casefolded weapon name -> its profile lines, for weapons that carry none.
    weapon_profiles: KnownLines = field(default_factory=dict)
    # Casefolded vehicle type -> the rule data's profile of the type.
    vehicle_profiles: Mapping[str, VehicleProfile] = field(default_factory=dict)


# --------------------------------------------------------------------------- blocks


# The weapon table's columns (the official roster sheet's): the weapon, its eight figures,
# its traits taking what is left of the column.
NAME_WIDTH = 128
# Rng S, Rng L, Acc S, Acc L, S, AP, D, Am: ranges hold '24"', Strength "S+1".
FIGURE_WIDTHS = (36, 36, 28, 28, 36, 28, 28, 28)
FIGURE_LEFTS = tuple(NAME_WIDTH + sum(FIGURE_WIDTHS[:index]) for index in range(len(FIGURE_WIDTHS)))
TRAITS_WIDTH = INNER - NAME_WIDTH - sum(FIGURE_WIDTHS)
CELL_PAD = 4
HEAD_ROW = 17
# Lines of one cell: a weapon's traits past these end in an ellipsis (the shipped content's
# longest take four).
MAX_CELL_LINES = 4


@dataclass(frozen=True)
class WeaponHead:
    """The weapon table's heading: Rng and Acc over their S and L columns, as the sheet
    prints them."""

    @property
    def height(self) -> int:
        return 2 * HEAD_ROW + 2

    @property
    def text(self) -> str:
        return "Weapon " + " ".join(head for head, _ in WEAPON_FIGURES) + " Traits"

    def draw(self, canvas: Canvas, x: float, y: float) -> None:
        face = typeface(13, Weight.BOLD)
        draw = canvas.draw
        draw.rectangle((x, y, x + INNER, y + self.height - 2), fill=TABLE_HEAD)
        middle = y + (self.height - face.line_height) / 2 - 1
        canvas.text(face, (x + CELL_PAD, middle), "Weapon", INK)
        for (head, _), left, width in zip(WEAPON_FIGURES, FIGURE_LEFTS, FIGURE_WIDTHS,
                                          strict=True):
            centre = x + left + width / 2
            group, _, side = head.partition(" ")
            if side:
                canvas.text(face, (centre, y + HEAD_ROW), side, INK, align="centre")
                if side == "S":
                    # "Rng" and "Acc" stand over their S and L columns.
                    canvas.text(face, (x + left + width, y), group, INK, align="centre")
            else:
                canvas.text(face, (centre, middle), head, INK, align="centre")
        canvas.text(face, (x + INNER - TRAITS_WIDTH + CELL_PAD, middle), "Traits", INK)


@dataclass(frozen=True)
class WeaponLine:
    """One row of the weapon table, its cells already wrapped to their columns."""

    row: WeaponRow
    name: tuple[Line, ...]
    traits: tuple[Line, ...]

    @classmethod
    def of(cls, row: WeaponRow) -> WeaponLine:
        bold, plain = typeface(15, Weight.BOLD), typeface(15)
        room = NAME_WIDTH - 2 * CELL_PAD
        if row.first:
            cells = [Line(part, bold, INK) for part in _priced(bold, row.weapon, room)]
            named = row.profile.name if row.profile is not None else ""
            cells += [Line(part, plain, MUTED) for part in plain.wrap(named, room)]
        else:
            cells = [Line(part, plain, MUTED) for part in plain.wrap(row.label, room)]
        trait_face, trait_room = typeface(14), TRAITS_WIDTH - 2 * CELL_PAD
        # A trait breaks only after its comma: "Rapid Fire (1)" stays on one line.
        traits = (", ".join(t.replace(" ", NO_BREAK) for t in row.profile.traits)
                  if row.profile is not None else "")
        # Only what the cell can show is laid out: a cell's lines hold this many characters.
        shown = traits[:MAX_CELL_LINES * trait_face.most_chars(trait_room)]
        trait_lines = [Line(part, trait_face, INK) for part in trait_face.wrap(shown, trait_room)]
        return cls(row, tuple(_at_most(cells, MAX_CELL_LINES, room)),
                   tuple(_at_most(trait_lines, MAX_CELL_LINES, trait_room)))

    @property
    def height(self) -> int:
        names = sum(line.face.line_height for line in self.name)
        traits = sum(line.face.line_height for line in self.traits)
        return max(names, traits, typeface(15).line_height) + 2 * CELL_PAD

    @property
    def text(self) -> str:
        figures = " ".join(self.row.figures)
        traits = " ".join(line.text for line in self.traits)
        return f"{' '.join(line.text for line in self.name)} {figures} {traits}"

    def draw(self, canvas: Canvas, x: float, y: float) -> None:
        draw = canvas.draw
        # A full rule opens each weapon; its other profile lines hang under it.
        draw.line((x if self.row.first else x + NAME_WIDTH, y, x + INNER, y), fill=RULE)
        cursor = y + CELL_PAD
        for line in self.name:
            canvas.text(line.face, (x + CELL_PAD, cursor), line.text, line.colour)
            cursor += line.face.line_height
        face = typeface(14, Weight.BOLD)
        for figure, left, width in zip(self.row.figures, FIGURE_LEFTS, FIGURE_WIDTHS,
                                       strict=True):
            canvas.text(face, (x + left + width / 2, y + CELL_PAD), face.clip(figure, width - 2),
                        INK, align="centre")
        cursor = y + CELL_PAD
        for line in self.traits:
            canvas.text(line.face, (x + INNER - TRAITS_WIDTH + CELL_PAD, cursor), line.text,
                        line.colour)
            cursor += line.face.line_height


def _priced(face: Typeface, item: Item, room: float) -> list[str]:
    """The item's name wrapped to ``room``, its price after it: on the name's last line
    where it fits, else on a line of its own (never broken inside)."""
    price = f"({item.cost})"
    parts = face.wrap(item.name, room) or [""]
    last = f"{parts[-1]} {price}"
    if face.width(last) <= room:
        return [*parts[:-1], last]
    return [*parts, price]


def _at_most(lines: list[Line], most: int, room: float) -> list[Line]:
    """``lines``, the last kept ending in an ellipsis when some are left out."""
    if len(lines) <= most:
        return lines
    last = lines[most - 1]
    return [*lines[:most - 1], Line(last.face.clip(last.text + " …", room), last.face,
                                    last.colour)]


Part = Line | WeaponHead | WeaponLine


@dataclass
class Block:
    """A card in a column: a coloured band with a title, a line with tags, the profile
    table (fighters only), then its parts: weapon table rows and lines of text."""

    title: str
    right: str
    band: Colour
    meta: Line
    lines: list[Part]
    pills: list[tuple[str, Colour]] = field(default_factory=list)
    # The profile table's labels and values: a fighter's twelve, a vehicle's seven; None
    # (with ``has_profile``) is a fighter's "profile not set"; the Stash has no table.
    stats: list[tuple[str, str]] | None = None
    has_profile: bool = False

    @property
    def table_height(self) -> int:
        return TABLE_HEIGHT if self.has_profile else 0

    @property
    def height(self) -> int:
        body = sum(line.height for line in self.lines)
        return BAND_HEIGHT + META_HEIGHT + self.table_height + body + PADDING

    def fit(self, limit: int) -> Block:
        """This block, cut to ``limit`` pixels with a line saying how much is left out."""
        if self.height <= limit:
            return self
        more = typeface(MORE_SIZE)
        room = limit - (self.height - sum(line.height for line in self.lines))
        room -= more.line_height + 3
        # Lines kept: those whose running height fits (one pass, however many lines).
        kept = sum(1 for total in accumulate(line.height for line in self.lines)
                   if total <= room)
        dropped = len(self.lines) - kept
        note = Line(f"… {dropped} more line{'s' * (dropped != 1)} not shown", more, MUTED)
        return Block(self.title, self.right, self.band, self.meta,
                     [*self.lines[:kept], note], self.pills, self.stats, self.has_profile)

    def parts(self, x: float, y: float) -> list[tuple[Part, tuple[float, float, float, float]]]:
        """Each part with the box it is drawn in (left, top, right, bottom), the block's
        top left corner at ``x``, ``y``."""
        top = y + BAND_HEIGHT + META_HEIGHT + self.table_height
        left = x + PADDING
        placed = []
        for part in self.lines:
            placed.append((part, (left, top, left + INNER, top + part.height)))
            top += part.height
        return placed

    def draw(self, canvas: Canvas, x: float, y: float) -> None:
        draw = canvas.draw
        draw.rectangle((x, y, x + COLUMN_WIDTH, y + self.height), outline=RULE, width=2)
        draw.rectangle((x, y, x + COLUMN_WIDTH, y + BAND_HEIGHT), fill=self.band)
        name_face = typeface(24, Weight.BOLD)
        cost_face = typeface(22, Weight.BOLD)
        title_room = INNER - cost_face.width(self.right) - 12
        top = y + (BAND_HEIGHT - name_face.line_height) / 2
        canvas.text(name_face, (x + PADDING, top), name_face.clip(self.title, title_room),
                    ACCENT_INK)
        canvas.text(cost_face, (x + COLUMN_WIDTH - PADDING, top + 1), self.right, ACCENT_INK,
                    align="right")
        cursor = y + BAND_HEIGHT + 6
        right = x + COLUMN_WIDTH - PADDING
        for text, colour in self.pills:
            right = pill(canvas, right, cursor, text, colour) - 6
        meta = self.meta
        canvas.text(meta.face, (x + PADDING, cursor + 3), meta.face.clip(meta.text, right - x - 20),
                    meta.colour)
        cursor += META_HEIGHT
        if self.has_profile:
            _draw_profile(canvas, x + PADDING, cursor, self.stats)
        for part, (left, top, _, _) in self.parts(x, y):
            if isinstance(part, Line):
                draw_lines(canvas, left, top, [part])
            else:
                part.draw(canvas, left, top)


def _draw_profile(canvas: Canvas, x: float, y: float,
                  stats: list[tuple[str, str]] | None) -> None:
    """The characteristics as a two-row table, or a hatched "profile not set" box."""
    draw = canvas.draw
    if stats is None:
        hatched(draw, (x, y + 2, x + INNER, y + 48), BAD)
        face = typeface(20, Weight.BOLD)
        label = "PROFILE NOT SET"
        width = face.width(label) + 24
        centre = x + INNER / 2
        draw.rectangle((centre - width / 2, y + 12, centre + width / 2, y + 38), fill=PAPER)
        canvas.text(face, (centre, y + 13), label, BAD, align="centre")
        return
    cell = INNER / len(stats)
    head = typeface(15, Weight.BOLD)
    value_face = typeface(21, Weight.BOLD)
    draw.rectangle((x, y, x + INNER, y + 22), fill=TABLE_HEAD)
    for index, (label, value) in enumerate(stats):
        centre = x + cell * index + cell / 2
        canvas.text(head, (centre, y + 2), label, INK, align="centre")
        canvas.text(value_face, (centre, y + 24), value, INK, align="centre")
        if index:
            draw.line((x + cell * index, y, x + cell * index, y + 50), fill=RULE)
    draw.line((x, y + 50, x + INNER, y + 50), fill=RULE)


def _status(fighter: Fighter, options: RosterOptions) -> str:
    if fighter.status is FighterStatus.CAPTURED:
        captor = options.gang_names.get(fighter.captured_by or "")
        return f"Captured by {captor}" if captor else "Captured"
    return fighter.status.value


def _item_text(item: Item) -> str:
    """The item and its price, never broken across lines."""
    return f"{item.name} ({item.cost})".replace(" ", NO_BREAK)


def listed(label: str, entries: Sequence[str], what: str, colour: Colour = INK, *,
           size: int = 19, label_width: float = 104) -> list[Line]:
    """``entries`` joined and wrapped beside ``label``, within the list budgets: past
    :data:`MAX_ENTRIES_SHOWN` entries or :data:`MAX_LIST_TEXT` characters, a line says how
    many were left out ("… 990 more skills not shown")."""
    shown: list[str] = []
    length = 0
    for entry in entries[:MAX_ENTRIES_SHOWN]:
        length += len(entry) + 2
        if shown and length > MAX_LIST_TEXT:
            break
        shown.append(entry)
    text = ", ".join(shown)[:MAX_LIST_TEXT]
    lines = labelled(label, text, INNER, colour, size=size, label_width=label_width)
    left_out = len(entries) - len(shown)
    if left_out:
        lines.append(Line(f"… {left_out} more {what} not shown", typeface(MORE_SIZE), MUTED,
                          label_width))
    return lines


def _equipment_lines(items: Sequence[Item], options: RosterOptions) -> list[Part]:
    """The weapons as the sheet's profile table (one row per profile line), then the rest."""
    weapons = [i for i in items if i.kind is EquipmentKind.WEAPON]
    lines: list[Part] = []
    if weapons:
        rows = weapon_rows(weapons[:MAX_ENTRIES_SHOWN], options.weapon_profiles)
        # A little air under the table, before what follows it.
        lines += [WeaponHead(), *map(WeaponLine.of, rows), Line("", typeface(6), INK)]
    if len(weapons) > MAX_ENTRIES_SHOWN:
        left_out = len(weapons) - MAX_ENTRIES_SHOWN
        lines.append(Line(f"… {left_out} more weapons not shown", typeface(MORE_SIZE), MUTED))
    others = [_item_text(i) for i in items if i.kind is not EquipmentKind.WEAPON]
    if others:
        lines += listed("Wargear", others, "items")
    return lines


def fighter_cells(profile: Profile) -> list[tuple[str, str]]:
    return [(STAT_LABELS[stat], stat_text(stat, profile.get(stat))) for stat in PROFILE_STATS]


def fighter_block(fighter: Fighter, options: RosterOptions) -> Block:
    profile = fighter.profile
    kind = fighter.category.value
    if fighter.fighter_type:
        kind = f"{kind} · {fighter.fighter_type}"
    meta = typeface(18)
    status_colour = _STATUS_COLOURS.get(fighter.status, INK)
    pills = [(_status(fighter, options), status_colour)]
    if fighter.critical_injury:
        pills.append(("Critical injury", BAD))
    about = Line(f"{kind} · {fighter.xp} XP · {fighter.kills} kills", meta, MUTED)
    lines = _equipment_lines(fighter.equipment, options)
    if fighter.skills:
        lines += listed("Skills", fighter.skills, "skills")
    if fighter.special_rules:
        lines += listed("Rules", fighter.special_rules, "rules")
    if fighter.lasting_injuries:
        lines += listed("Injuries", fighter.lasting_injuries, "injuries", BAD)
    if fighter.advancements:
        lines += listed("Advances", [a.name for a in fighter.advancements], "advancements")
    band = ACCENT if fighter.on_roster else GONE
    stats = fighter_cells(profile) if profile is not None else None
    return Block(fighter.name, f"{fighter.total_cost} cr", band, about, lines, pills, stats,
                 has_profile=True)


def vehicle_block(vehicle: Vehicle, crew: str | None, options: RosterOptions) -> Block:
    meta = typeface(18)
    colour = GOOD if vehicle.status is VehicleStatus.ACTIVE else WARN
    about = "Vehicle" + (f" · {vehicle.vehicle_type}" if vehicle.vehicle_type else "")
    if crew:
        about += f" · crew {crew}"
    lines: list[Part] = []
    if vehicle.upgrades:
        lines += listed("Upgrades", [_item_text(i) for i in vehicle.upgrades], "upgrades")
    lines += _equipment_lines(vehicle.equipment, options)
    if vehicle.lasting_damage:
        lines += listed("Damage", vehicle.lasting_damage, "damage", BAD)
    # The type's profile from the rule data; a vehicle of a type it does not know has none.
    profile = options.vehicle_profiles.get(vehicle.vehicle_type.casefold())
    return Block(vehicle.name, f"{vehicle.total_cost} cr", INK, Line(about, meta, MUTED), lines,
                 [(vehicle.status.value, colour)],
                 profile.cells() if profile is not None else None, has_profile=profile is not None)


def stash_block(gang: Gang) -> Block:
    meta = typeface(18)
    about = f"{gang.credits} credits · {len(gang.stash)} item{'s' * (len(gang.stash) != 1)}"
    lines: list[Part] = [*listed("Items", [_item_text(i) for i in gang.stash] or ["nothing"],
                                 "items")]
    if gang.stash_vehicles:
        vehicles = [f"{v.name} ({v.total_cost})".replace(" ", NO_BREAK)
                    for v in gang.stash_vehicles]
        lines += listed("Vehicles", vehicles, "vehicles")
    return Block("Stash", f"{gang.stash_value} cr", MUTED, Line(about, meta, MUTED), lines)


# --------------------------------------------------------------------------- pages


def _draw_header(canvas: Canvas, gang: Gang, options: RosterOptions) -> None:
    width = A4_WIDTH - 2 * MARGIN
    title = typeface(58, Weight.BOLD)
    canvas.text(title, (MARGIN, MARGIN - 6), title.clip(gang.name, width), INK)
    sub = typeface(26)
    about = f"House {gang.house} · {gang.alignment.value}"
    if options.owner_name:
        about += f" · Owner {options.owner_name}"
    canvas.text(sub, (MARGIN, MARGIN + 66), sub.clip(about, width), MUTED)
    tiles = [
        ("GANG RATING", gang.rating), ("WEALTH", gang.wealth),
        ("CREDITS", gang.credits), ("REPUTATION", gang.reputation),
    ]
    gap = 18
    tile_width = (width - gap * (len(tiles) - 1)) / len(tiles)
    label = typeface(18, Weight.BOLD)
    value = typeface(46, Weight.BOLD)
    top = MARGIN + 112
    for index, (name, figure) in enumerate(tiles):
        left = MARGIN + index * (tile_width + gap)
        canvas.draw.rectangle((left, top, left + tile_width, top + 92), fill=ACCENT)
        canvas.text(label, (left + 14, top + 8), name, ACCENT_INK)
        canvas.text(value, (left + 14, top + 32), str(figure), ACCENT_INK)
    fighters = sum(1 for f in gang.fighters if f.on_roster)
    vehicles = len(gang.vehicles)
    counts = (f"{count(fighters, 'fighter')} · {count(vehicles, 'vehicle')} · "
              f"{count(gang.battles_fought, 'battle')} fought")
    canvas.text(typeface(18), (MARGIN, top + 104), counts, MUTED)


def _draw_running_header(canvas: Canvas, gang: Gang) -> None:
    face = typeface(30, Weight.BOLD)
    width = A4_WIDTH - 2 * MARGIN
    canvas.text(face, (MARGIN, MARGIN - 8),
                face.clip(f"{gang.name} — roster, continued", width), INK)
    canvas.draw.line((MARGIN, MARGIN + 34, A4_WIDTH - MARGIN, MARGIN + 34), fill=RULE, width=2)


def _draw_footer(canvas: Canvas, page: int, pages: int, left_out: str = "") -> None:
    face = typeface(16)
    y = A4_HEIGHT - MARGIN + 8
    if left_out:
        # The last page drawn of a card cut short says so where the reader ends.
        note = typeface(18, Weight.BOLD)
        canvas.text(note, (MARGIN, y - note.line_height - 4),
                    note.clip(left_out, A4_WIDTH - 2 * MARGIN), BAD)
    canvas.text(face, (MARGIN, y), "Munda Arbitrator roster card", MUTED)
    canvas.text(face, (A4_WIDTH - MARGIN, y), f"page {page} of {pages}", MUTED, align="right")


@dataclass
class Placed:
    """A block where it is drawn on its page."""

    block: Block
    x: float
    y: float

    @property
    def box(self) -> tuple[float, float, float, float]:
        """Left, top, right, bottom: the pixels the block's outline covers."""
        return self.x, self.y, self.x + COLUMN_WIDTH, self.y + self.block.height

def paginate(blocks: Iterable[Block], max_pages: int = MAX_PAGES) -> list[list[Placed]]:
    """Flow blocks down the left column, then the right, then onto a new page; the last
    page's blocks are then shared between its two columns as evenly as their order allows.
    Blocks that would open page ``max_pages + 1`` are not taken from ``blocks`` (nor built)."""
    bottom = BLOCKS_END
    later_top = MARGIN + RUNNING_HEADER_HEIGHT
    top = MARGIN + HEADER_HEIGHT
    # The shortest column is page one's: a block cut to it fits in any column.
    tallest = bottom - top
    pages: list[list[Placed]] = []
    columns: list[list[Block]] = [[]]
    y = top
    for block in blocks:
        fitted = block.fit(tallest)
        if y + fitted.height > bottom and y > top:
            if len(columns) == 2:
                if len(pages) + 1 == max_pages:
                    # Cut short: the page is full as it is.
                    return [*pages, _placed(columns, top)]
                pages.append(_placed(columns, top))
                columns, top = [], later_top
            columns.append([])
            y = top
        columns[-1].append(fitted)
        y += fitted.height + BLOCK_GAP
    return [*pages, _placed(_balanced([b for c in columns for b in c], top), top)]


def _balanced(blocks: list[Block], top: float) -> list[list[Block]]:
    """``blocks`` in order in two columns, the taller as short as can be (the left one
    where two ways are as short): a gang of five fills the page's width, not its left half."""
    room = BLOCKS_END - top + BLOCK_GAP
    heights = [block.height + BLOCK_GAP for block in blocks]
    total = sum(heights)
    left = total
    best, split = total + 1, len(blocks)
    for index in range(len(blocks), -1, -1):
        if left <= room and total - left <= room and max(left, total - left) < best:
            best, split = max(left, total - left), index
        if index:
            left -= heights[index - 1]
    return [blocks[:split], blocks[split:]]


def _placed(columns: list[list[Block]], top: float) -> list[Placed]:
    placed = []
    for index, column in enumerate(columns):
        x = MARGIN + index * (COLUMN_WIDTH + GUTTER)
        y = top
        for block in column:
            placed.append(Placed(block, x, y))
            y += block.height + BLOCK_GAP
    return placed


def roster_blocks(gang: Gang, options: RosterOptions) -> Iterator[Block]:
    """The card's blocks in order, each built when the pages reach it."""
    names = {f.id: f.name for f in gang.fighters}
    for fighter in gang.fighters:
        yield fighter_block(fighter, options)
    for vehicle in gang.vehicles:
        yield vehicle_block(vehicle, names.get(vehicle.crew_id or ""), options)
    yield stash_block(gang)


def _left_out(gang: Gang, placed: int, pages_cut: bool) -> str:
    """What a card cut short leaves out, and where to read it instead."""
    blocks = len(gang.fighters) + len(gang.vehicles) + 1
    if placed < blocks:
        what = count(blocks - placed, "more block")
        return (f"… {what} (fighters, vehicles, the Stash) not drawn: "
                "/gang show card:False lists the whole gang")
    if pages_cut:
        return "… the rest of the card was not drawn in time: /gang show card:False lists it"
    return ""


def roster_card(
    gang: Gang,
    *,
    owner_name: str | None = None,
    gang_names: Mapping[str, str] | None = None,
    weapon_profiles: KnownLines | None = None,
    vehicle_profiles: Mapping[str, VehicleProfile] | None = None,
    max_pages: int = MAX_PAGES,
    seconds: float = DRAW_SECONDS,
) -> list[bytes]:
    """The gang's roster card as PNG pages (A4 at 150 dpi, 1240 x 1754 pixels each), within
    the budgets: at most ``max_pages`` pages, no page begun after ``seconds``."""
    options = RosterOptions(
        owner_name=owner_name,
        gang_names=dict(gang_names or {}),
        weapon_profiles={k.casefold(): v for k, v in (weapon_profiles or {}).items()},
        vehicle_profiles={k.casefold(): v for k, v in (vehicle_profiles or {}).items()},
    )
    started = time.monotonic()
    pages = paginate(roster_blocks(gang, options), max_pages)
    placed_blocks = sum(map(len, pages))
    out = []
    for number, placed in enumerate(pages, start=1):
        canvas = Canvas()
        if number == 1:
            _draw_header(canvas, gang, options)
        else:
            _draw_running_header(canvas, gang)
        for item in placed:
            item.block.draw(canvas, item.x, item.y)
        # Past the time budget the page under way is the last: a card late for everyone
        # helps nobody, and the roster's text is in the embeds.
        late = number < len(pages) and time.monotonic() - started > seconds
        shown = placed_blocks if not late else sum(map(len, pages[:number]))
        last = late or number == len(pages)
        left_out = _left_out(gang, shown, late) if last else ""
        _draw_footer(canvas, number, number if late else len(pages), left_out)
        out.append(canvas.png())
        if late:
            break
    return out
