"""Malformed and oversized campaign files get a clear refusal, never "Something went wrong"."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from bot.importing.campaigndoc import prepare_campaign, read_campaign_document
from rules.errors import InvalidRequest
from rules.limits import CAMPAIGN_LIST_LIMITS
from tests import factories as f


def document(**parts: Any) -> dict[str, Any]:
    return {
        "format": "munda-arbitrator/campaign", "version": 1,
        "exported_at": "2030-01-01T00:00:00Z", "guild_id": 1,
        "campaign": {"id": "c1", "settings": {"name": "Scrap Hollow"},
                     "created_at": "2030-01-01T00:00:00Z"},
        **parts,
    }


def encoded(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def gang(number: int, fighters: int = 1) -> dict[str, Any]:
    return f.gang(
        f"Gang {number}", id=f"g{number}",
        fighters=[f.fighter(f"Fighter {number}-{n}", id=f"f{number}-{n}")
                  for n in range(fighters)],
    ).model_dump(mode="json")


def refusal(data: bytes) -> str:
    with pytest.raises(InvalidRequest) as caught:
        prepare_campaign(data)
    return caught.value.message


def test_a_sound_file_reads() -> None:
    prepared = prepare_campaign(encoded(document(gangs=[gang(1, 3), gang(2)])))
    assert [g.name for g in prepared.document.gangs] == ["Gang 1", "Gang 2"]


def test_too_many_gangs_names_the_limit() -> None:
    many = document(gangs=[{"id": str(n)} for n in range(CAMPAIGN_LIST_LIMITS["gangs"] + 1)])
    message = refusal(encoded(many))
    assert "gangs has 201 entries; this bot imports at most 200 gangs" in message


def test_too_many_fighters_in_one_gang_names_the_limit() -> None:
    crowded = gang(1, fighters=201)
    message = refusal(encoded(document(gangs=[crowded])))
    assert "gangs[0].fighters has 201 entries" in message
    assert "at most 200 fighters per gang" in message


def test_too_many_ledger_rows_names_the_limit() -> None:
    rows = [{}] * (CAMPAIGN_LIST_LIMITS["ledger"] + 1)
    assert "at most 200000 ledger" in refusal(encoded(document(ledger=rows)))


def test_any_other_list_is_bounded_too() -> None:
    skilled = gang(1)
    skilled["fighters"][0]["skills"] = ["Nerves of Steel"] * 1001
    assert "gangs[0].fighters[0].skills has 1001 entries" in refusal(
        encoded(document(gangs=[skilled]))
    )


def test_a_5000_digit_integer_is_refused() -> None:
    data = encoded(document()).replace(b'"guild_id": 1', b'"guild_id": ' + b"9" * 5000)
    assert "a number of more than 30 digits" in refusal(data)


def test_an_integer_beyond_64_bits_is_refused_with_where_it_is() -> None:
    rich = gang(1)
    rich["credits"] = 10**20
    message = refusal(encoded(document(gangs=[rich])))
    assert "gangs[0].credits is too large (21 digits)" in message


def test_a_lone_surrogate_is_refused() -> None:
    data = encoded(document(gangs=[gang(1)])).replace(b"Gang 1", b"Gang \\ud800")
    assert "half a character" in refusal(data)


def test_infinity_is_refused_even_where_any_json_value_goes() -> None:
    change = {"id": 1, "kind": "change", "at": "2030-01-01T00:00:00Z", "actor": "1",
              "clause": "X", "subject": "gang", "subject_id": "g1", "path": "credits",
              "after": 1}
    data = encoded(document(ledger=[change])).replace(b'"after": 1', b'"after": Infinity')
    assert "ledger[0].after is not finite" in refusal(data)


@pytest.mark.parametrize(("shape", "expected"), [
    ({"gangs": {"g1": {}}}, "gangs: Input should be a valid list"),
    ({"gangs": [1, 2]}, "gangs.0: Input should be a valid dictionary"),
    ({"campaign": []}, "campaign: Input should be a valid dictionary"),
    ({"sequences": [{"key": "postbattle:x", "model": "bot.battle.state.PostBattleRun",
                     "revision": 1, "state": {"phase": "nonsense"}}]},
     "the post-battle sequence postbattle:x cannot be read"),
])
def test_wrong_shapes_are_refused_as_damaged(shape: dict[str, Any], expected: str) -> None:
    message = refusal(encoded(document(**shape)))
    assert message.startswith("That campaign export is damaged and nothing was imported")
    assert expected in message


def test_deep_nesting_is_refused() -> None:
    nested: Any = "x"
    for _ in range(100):
        nested = [nested]
    assert "nested more than 64 levels" in refusal(encoded(document(extra=nested)))


def test_not_json_and_not_utf8() -> None:
    assert "not valid JSON" in refusal(b"{oops")
    assert "not UTF-8" in refusal(b"\xff\xfe{}")


def test_the_model_reads_what_the_checks_let_through() -> None:
    read = read_campaign_document(encoded(document(gangs=[gang(1)])))
    assert read.campaign.id == "c1" and read.gangs[0].id == "g1"


def test_a_large_file_is_prepared_in_reasonable_time() -> None:
    """Documented in docs/importing.md; the cog prepares files in a thread regardless."""
    rows = [{"id": n, "kind": "roll", "at": "2030-01-01T00:00:00Z", "actor": "1",
             "clause": "PB-1", "expression": "D6", "faces": [3], "total": 3,
             "purpose": "income"} for n in range(20_000)]
    data = encoded(document(gangs=[gang(n, 20) for n in range(50)], ledger=rows))
    started = time.perf_counter()
    prepared = prepare_campaign(data)
    assert len(prepared.document.ledger) == 20_000
    assert time.perf_counter() - started < 30
