"""What a Yaktribe file leaves open (an item nobody gives a kind, a fighter type nobody
gives a category) is asked in the preview: a question per item name or type, whose
answer sets every place it stands for."""

from __future__ import annotations

from typing import Any

import pytest

from bot.importing.questions import answer, unanswered
from bot.importing.yaktribe import parse_yaktribe
from rules.errors import InvalidRequest
from rules.models import EquipmentKind, FighterCategory
from rules.ruleset import RuleSet
from tests.importing.conftest import id_maker, slag_kings


def _krug_with(ruleset: RuleSet, equipment: list[Any], **fighter: Any) -> Any:
    data = slag_kings()
    data["gangers"] = [{**data["gangers"][0], "equipment": equipment, **fighter}]
    data["stash"] = [{"name": "Scrap totem", "cost": 10}]
    return parse_yaktribe(data, ruleset=ruleset, owner="42", make_id=id_maker())


def test_an_unknown_item_without_a_kind_is_asked_in_the_preview(ruleset: RuleSet) -> None:
    parsed = _krug_with(ruleset, [
        {"name": "Scrap totem", "cost": 10, "qty": 2},
        {"name": "Glow-lamp", "cost": 5, "type": "armour"},
        {"name": "Boltgun"},
    ])
    # A stated kind, or an item the rule data knows, is not asked.
    assert [(q.about, q.name, q.places) for q in parsed.questions] == [
        ("kind", "Scrap totem", [(-1, 0), (0, 0), (0, 1)]),
    ]
    gang = parsed.gang
    answer(gang, parsed.questions, 0, "weapon")
    assert gang.stash[0].kind is EquipmentKind.WEAPON
    kinds = [i.kind for i in gang.fighters[0].equipment]
    assert kinds[:2] == [EquipmentKind.WEAPON] * 2 and kinds[2] is EquipmentKind.ARMOUR
    assert unanswered(parsed.questions) == []


def test_a_category_answer_gives_gang_hierarchy_and_bad_answers_are_refused(
    ruleset: RuleSet,
) -> None:
    parsed = _krug_with(ruleset, [], type="Cult Magus of the Deep")
    question = next(q for q in parsed.questions if q.about == "category")
    assert question.name == "Cult Magus of the Deep" and question.places == [(0, -1)]
    index = parsed.questions.index(question)
    with pytest.raises(InvalidRequest):
        answer(parsed.gang, parsed.questions, index, "Overlord")
    with pytest.raises(InvalidRequest):
        answer(parsed.gang, parsed.questions, 99, "Leader")
    assert question.answer is None
    answer(parsed.gang, parsed.questions, index, "Leader")
    magus = parsed.gang.fighters[0]
    assert magus.category is FighterCategory.LEADER and magus.gang_hierarchy
