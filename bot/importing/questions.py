"""What a gang file leaves open, asked in the import preview before Confirm (pure).

A Yaktribe fighter type that neither the campaign's rule data nor the file
puts in a category, and an item that neither the rule data nor the file
gives a kind, are not guessed: the parser stages a question for each (one
per distinct type or item name), the preview shows a select for it, and the
Confirm stays disabled until every one is answered. Each question names the
places it settles by position (fighter index, item index), which a re-import's
merge keeps (:func:`bot.importing.diff.merge` keeps the file's order of
fighters and of each one's equipment), so the answers apply to the staged gang
as it will be stored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rules.errors import InvalidRequest
from rules.models import EquipmentKind, FighterCategory, Gang, Item

About = Literal["category", "kind"]

# A place is (fighter index, item index): item -1 is the fighter itself, fighter -1
# the Stash.
STASH = -1
FIGHTER = -1


class ImportQuestion(BaseModel):
    about: About
    # The fighter type or the item name, as the file writes it.
    name: str
    places: list[tuple[int, int]] = Field(default_factory=list)
    answer: str | None = None

    @property
    def choices(self) -> list[str]:
        return choices(self.about)

    @property
    def label(self) -> str:
        count = len(self.places)
        if self.about == "category":
            return f"{self.name} ({count} {'fighter' if count == 1 else 'fighters'}): category?"
        return f"{self.name} ({count} {'item' if count == 1 else 'items'}): weapon, wargear...?"


def choices(about: About) -> list[str]:
    if about == "category":
        return [c.value for c in FighterCategory]
    return [k.value for k in EquipmentKind]


def unanswered(questions: list[ImportQuestion]) -> list[int]:
    return [i for i, q in enumerate(questions) if q.answer is None]


def answer(gang: Gang, questions: list[ImportQuestion], index: int, value: str) -> None:
    """Record ``value`` as the answer to question ``index`` and set it on ``gang``."""
    if not 0 <= index < len(questions):
        raise InvalidRequest("That question is not part of this import any more; run "
                             "/gang import again.")
    question = questions[index]
    if value not in question.choices:
        raise InvalidRequest(f"'{value[:40]}' is not one of the answers to that question.")
    for fighter_index, item_index in question.places:
        if question.about == "category":
            fighter = gang.fighters[fighter_index]
            fighter.category = FighterCategory(value)
            fighter.gang_hierarchy = fighter.category.has_gang_hierarchy
        else:
            _item(gang, fighter_index, item_index).kind = EquipmentKind(value)
    question.answer = value


def _item(gang: Gang, fighter_index: int, item_index: int) -> Item:
    if fighter_index == STASH:
        return gang.stash[item_index]
    return gang.fighters[fighter_index].equipment[item_index]


def ask_categories(gang: Gang, asked: dict[str, str]) -> list[ImportQuestion]:
    """One question per fighter type among ``asked`` (fighter id -> type as written)."""
    by_type: dict[str, ImportQuestion] = {}
    for index, fighter in enumerate(gang.fighters):
        fighter_type = asked.get(fighter.id)
        if fighter_type is not None:
            question = by_type.setdefault(
                fighter_type, ImportQuestion(about="category", name=fighter_type)
            )
            question.places.append((index, FIGHTER))
    return list(by_type.values())


def ask_kinds(gang: Gang, asked: dict[str, str]) -> list[ImportQuestion]:
    """One question per item name among ``asked`` (item id -> name as written)."""
    by_name: dict[str, ImportQuestion] = {}
    owners = [(STASH, gang.stash)] + [(i, f.equipment) for i, f in enumerate(gang.fighters)]
    for owner, items in owners:
        for index, item in enumerate(items):
            name = asked.get(item.id)
            if name is not None:
                question = by_name.setdefault(name, ImportQuestion(about="kind", name=name))
                question.places.append((owner, index))
    return list(by_name.values())
