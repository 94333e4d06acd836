"""Dice: an injected roller and a record of every roll.

Rules code never touches global randomness. It receives a :class:`Roller` and
asks it for dice through :func:`roll`, which returns a :class:`DiceRoll` that
says what was rolled, each face, the total and why. A seeded roller makes a
whole sequence replayable in tests; :class:`SecureRoller` is the one for play.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Iterable
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from rules.errors import InvalidRequest

# The reward dice of a scenario are capped at four (PB-3.2); no other
# expression the rules use needs more than this, so anything beyond is a typo
# or an attempt to make the bot roll forever.
MAX_DICE = 20
MAX_REWARD_DICE = 4


class Roller(Protocol):
    """Source of single die faces."""

    def face(self, sides: int) -> int:
        """Return one face of a fair die with ``sides`` sides, 1..sides."""
        ...


class SeededRoller:
    """Deterministic roller: the same seed gives the same faces."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed)

    def face(self, sides: int) -> int:
        return self._random.randint(1, sides)


class SecureRoller:
    """Roller for play: faces come from the operating system's CSPRNG."""

    def face(self, sides: int) -> int:
        return secrets.randbelow(sides) + 1


class ScriptedRoller:
    """Roller that returns the faces it was given, in order.

    Tests use it to put a rule exactly on a boundary (a natural 6 at -5, a
    roll of 2 on a succumb check). Running out of faces is an error rather
    than a silent fallback so a test can never pass on an unplanned roll.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self.used = 0

    def face(self, sides: int) -> int:
        if self.used >= len(self._faces):
            raise AssertionError(f"ScriptedRoller ran out of faces after {self.used} dice")
        value = self._faces[self.used]
        if not 1 <= value <= sides:
            raise AssertionError(f"scripted face {value} is not on a D{sides}")
        self.used += 1
        return value

    @property
    def remaining(self) -> int:
        return len(self._faces) - self.used


class DiceRoll(BaseModel):
    """One roll as it happened: the record shown to players and stored."""

    model_config = ConfigDict(frozen=True)

    expression: str
    faces: tuple[int, ...]
    total: int
    purpose: str

    @property
    def natural(self) -> int:
        """The unmodified sum of the faces (for D66: the two-digit result)."""
        if self.expression.upper() == "D66":
            return self.faces[0] * 10 + self.faces[1]
        return sum(self.faces)

    @property
    def is_double(self) -> bool:
        return len(self.faces) >= 2 and len(set(self.faces)) < len(self.faces)

    def has_face(self, value: int) -> bool:
        return value in self.faces


_EXPRESSION = re.compile(r"^\s*(\d*)\s*[dD]\s*(3|4|6|66)\s*(?:[xX*]\s*(\d+))?\s*$")
_FLAT = re.compile(r"^\s*(\d+)\s*$")
# One term of a player's expression, with the sign that joins it to the one before.
_TERM = re.compile(r"\s*([+-]?)\s*(\d*\s*[dD]\s*(?:66|3|4|6)\s*(?:[xX*]\s*\d+)?|\d+)\s*")
MAX_TERMS = 6
MAX_MODIFIER = 1000


class ParsedExpression(BaseModel):
    model_config = ConfigDict(frozen=True)

    count: int
    sides: int
    multiplier: int
    d66: bool

    @property
    def canonical(self) -> str:
        if self.d66:
            return "D66"
        count = "" if self.count == 1 else str(self.count)
        mult = "" if self.multiplier == 1 else f"x{self.multiplier}"
        return f"{count}D{self.sides}{mult}"


def parse(expression: str) -> ParsedExpression:
    """Parse the dice expressions the rules use: D3, D6, 2D6, D66, 3D6, D3x10, D6x5...

    Raises :class:`InvalidRequest` with a readable message for anything else.
    """
    if len(expression) > 32:
        raise InvalidRequest("That dice expression is too long.")
    match = _EXPRESSION.match(expression)
    if match is None:
        raise InvalidRequest(
            f"'{expression[:32]}' is not a dice expression I know "
            "(try D6, 2D6, D66, D3x10 or 2D6x10)."
        )
    count = int(match.group(1)) if match.group(1) else 1
    sides_text = match.group(2)
    multiplier = int(match.group(3)) if match.group(3) else 1
    if count < 1 or count > MAX_DICE:
        raise InvalidRequest(f"Roll between 1 and {MAX_DICE} dice at a time.")
    if multiplier < 1 or multiplier > 1000:
        raise InvalidRequest("A dice multiplier must be between 1 and 1000.")
    if sides_text == "66":
        if count != 1 or multiplier != 1:
            raise InvalidRequest("D66 is rolled on its own, without a count or multiplier.")
        return ParsedExpression(count=2, sides=6, multiplier=1, d66=True)
    return ParsedExpression(count=count, sides=int(sides_text), multiplier=multiplier, d66=False)


class ExpressionTerm(BaseModel):
    """One term of an expression: dice (``dice``) or a flat number, added or taken away."""

    model_config = ConfigDict(frozen=True)

    sign: int  # +1 or -1
    dice: ParsedExpression | None
    flat: int = 0

    @property
    def canonical(self) -> str:
        return self.dice.canonical if self.dice is not None else str(self.flat)


def parse_terms(expression: str) -> list[ExpressionTerm]:
    """Parse an expression as players write it: "2D6+1", "D6-1", "D3x10", "2D6+D3+1".

    Each dice term is what :func:`parse` reads; flat numbers add or take away.
    The guards of :func:`parse` hold for the whole: at most 20 dice in all, a
    multiplier of at most 1000, flat numbers of at most 1000, six terms.
    """
    if len(expression) > 32:
        raise InvalidRequest("That dice expression is too long.")
    terms: list[ExpressionTerm] = []
    position = 0
    while position < len(expression) or not terms:
        match = _TERM.match(expression, position)
        sign_needed = bool(terms)
        if match is None or match.end() == position or (sign_needed and not match.group(1)):
            raise InvalidRequest(
                f"'{expression[:32]}' is not a dice expression I know "
                "(try D6, 2D6+1, D6-1, D66, D3x10 or 2D6x10)."
            )
        sign = -1 if match.group(1) == "-" else 1
        text = match.group(2)
        if _FLAT.match(text):
            if int(text) > MAX_MODIFIER:
                raise InvalidRequest(f"Add or take away at most {MAX_MODIFIER} at a time.")
            terms.append(ExpressionTerm(sign=sign, dice=None, flat=int(text)))
        else:
            terms.append(ExpressionTerm(sign=sign, dice=parse(text)))
        position = match.end()
    if len(terms) > MAX_TERMS:
        raise InvalidRequest(f"Use at most {MAX_TERMS} terms in one expression.")
    if not any(term.dice is not None for term in terms):
        raise InvalidRequest("Say which dice to roll, e.g. D6 or 2D6+1.")
    if sum(term.dice.count for term in terms if term.dice is not None) > MAX_DICE:
        raise InvalidRequest(f"Roll between 1 and {MAX_DICE} dice at a time.")
    return terms


def _face(roller: Roller, sides: int) -> int:
    # D3 is a D6 halved, as on the table; keeping it on a D6 means a scripted
    # roller in tests gives the faces a player would see.
    if sides == 3:
        return (roller.face(6) + 1) // 2
    return roller.face(sides)


def roll(roller: Roller, expression: str, purpose: str) -> DiceRoll:
    """Roll ``expression`` for ``purpose`` and return the record.

    Anything :func:`parse_terms` reads can be rolled: the faces of every dice
    term in order, the total with the flat numbers added or taken away.
    """
    faces: list[int] = []
    total = 0
    canonical = ""
    for term in parse_terms(expression):
        joint = ("-" if term.sign < 0 else "+") if canonical else ("-" if term.sign < 0 else "")
        canonical += joint + term.canonical
        if term.dice is None:
            total += term.sign * term.flat
            continue
        parsed = term.dice
        rolled = [_face(roller, parsed.sides) for _ in range(parsed.count)]
        faces += rolled
        value = rolled[0] * 10 + rolled[1] if parsed.d66 else sum(rolled) * parsed.multiplier
        total += term.sign * value
    return DiceRoll(expression=canonical, faces=tuple(faces), total=total, purpose=purpose)


def roll_flat_or_dice(roller: Roller, expression: str, purpose: str) -> DiceRoll | int:
    """Roll a data-file expression that may also be a flat number ("0", "15")."""
    flat = _FLAT.match(expression)
    if flat is not None:
        return int(flat.group(1))
    return roll(roller, expression, purpose)


def reward_dice(roller: Roller, count: int, purpose: str, multiplier: int = 10) -> DiceRoll:
    """Roll scenario reward credits: ``count`` D6 x ``multiplier``, never more than 4 dice.

    The cap of PB-3.2 limits how many dice are rolled, not the result of a
    larger roll, so asking for more dice rolls exactly four.
    """
    if count < 0:
        raise InvalidRequest("A number of reward dice cannot be negative.")
    dice = min(count, MAX_REWARD_DICE)
    if dice == 0:
        return DiceRoll(expression="0D6", faces=(), total=0, purpose=purpose)
    return roll(roller, f"{dice}D6x{multiplier}", purpose)
