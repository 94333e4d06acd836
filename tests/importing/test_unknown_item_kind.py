"""A Yaktribe item the rule data does not know and whose kind the file leaves out: the
import report says, per item, that it was read as wargear."""

from __future__ import annotations

from typing import Any

from bot.importing.yaktribe import parse_yaktribe
from rules.models import EquipmentKind
from rules.ruleset import RuleSet
from tests.importing.conftest import id_maker, slag_kings


def _krug_with(ruleset: RuleSet, equipment: list[Any]) -> Any:
    data = slag_kings()
    data["gangers"] = [{**data["gangers"][0], "equipment": equipment}]
    return parse_yaktribe(data, ruleset=ruleset, owner="42", make_id=id_maker())


def test_an_unknown_item_without_a_kind_is_named_in_the_preview(ruleset: RuleSet) -> None:
    parsed = _krug_with(ruleset, [
        {"name": "Spud-jacker", "cost": 10},
        {"name": "Glow-lamp", "cost": 5, "type": "armour"},
        {"name": "Boltgun"},
    ])
    kinds = {i.name: i.kind for i in parsed.gang.fighters[0].equipment}
    assert kinds["Spud-jacker"] is EquipmentKind.WARGEAR
    lines = parsed.report.lines()
    flagged = [line for line in lines if "gives no kind" in line]
    assert len(flagged) == 1
    assert "Spud-jacker" in flagged[0] and "read as wargear" in flagged[0]
    # A stated kind, or an item the rule data knows, is not guessed and not flagged.
    assert not any("Glow-lamp" in line or "Boltgun" in line for line in flagged)
