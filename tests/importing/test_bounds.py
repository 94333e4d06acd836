"""Every list an import reads is bounded, every malformed file is refused in words, and whole
files are read in a worker thread, never on the event loop."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.importing import gangflow
from bot.importing.campaigndoc import read_campaign_document
from bot.importing.fetch import check_url
from bot.importing.gangdoc import gang_document
from bot.importing.gangfile import read_gang_file
from bot.importing.report import ImportReport
from bot.importing.tradingpost import parse_trading_post, read_trading_post
from bot.importing.values import read_id
from bot.storage import Campaign
from rules.data import default_ruleset
from rules.errors import InvalidRequest
from rules.limits import (
    MAX_ADVANCEMENTS,
    MAX_COUNT,
    MAX_FIGHTER_ITEMS,
    MAX_GANG_ITEMS,
    MAX_INJURIES,
    MAX_JSON_VALUES,
    MAX_REPORT_FIELDS,
    MAX_REPORT_PROBLEMS,
    MAX_SKILLS,
    MAX_STASH_ITEMS,
    MAX_TERRITORIES,
    MAX_TEXT,
    MAX_TRADING_POST_ITEMS,
)
from rules.models import Advancement, CampaignSettings, Gang
from tests.importing.conftest import fixture_bytes, id_maker, slag_kings

RULESET = default_ruleset()
CAMPAIGN = Campaign(
    id="c1", guild_id=1, settings=CampaignSettings(name="Scrap Hollow"),
    created_at=datetime.now(UTC),
)


def read(data: bytes) -> Gang:
    return read_gang_file(
        data, ruleset=RULESET, owner="42", make_id=id_maker(), campaign_id=CAMPAIGN.id
    ).gang


def yaktribe(**changes: Any) -> bytes:
    data = slag_kings()
    fighter_changes = changes.pop("krug", {})
    data["gangers"][0].update(fighter_changes)
    data.update(changes)
    return json.dumps(data).encode()


def refusal(data: bytes) -> str:
    with pytest.raises(InvalidRequest) as refused:
        read(data)
    return refused.value.message


# --------------------------------------------------------------------------- Yaktribe lists


@pytest.mark.parametrize(("krug", "gang", "expected"), [
    ({"skills": ["x"] * (MAX_SKILLS + 1)}, {},
     f"{MAX_SKILLS + 1} skills for 'Krug Ironhide'; this bot reads at most {MAX_SKILLS}"),
    ({"injuries": ["Humiliated"] * (MAX_INJURIES + 1)}, {},
     f"injuries for 'Krug Ironhide'; this bot reads at most {MAX_INJURIES}"),
    ({"equipment": ["Stub gun"] * (MAX_FIGHTER_ITEMS + 1)}, {},
     f"items for 'Krug Ironhide'; this bot reads at most {MAX_FIGHTER_ITEMS}"),
    ({"equipment": [{"name": "Stub gun", "qty": 20}] * 3}, {},
     f"more than {MAX_FIGHTER_ITEMS} items for 'Krug Ironhide' (counting quantities)"),
    ({}, {"stash": [{"name": "Frag grenades", "qty": 20}] * 11},
     f"more than {MAX_STASH_ITEMS} items for the Stash (counting quantities)"),
    ({}, {"territories": ["Old Ruins"] * (MAX_TERRITORIES + 1)},
     f"{MAX_TERRITORIES + 1} territories; this bot reads at most {MAX_TERRITORIES}"),
])
def test_a_yaktribe_list_over_its_bound_is_refused_naming_it(
    krug: dict[str, Any], gang: dict[str, Any], expected: str
) -> None:
    message = refusal(yaktribe(krug=krug, **gang))
    assert expected in message and "Nothing was imported" in message


def test_a_million_skills_are_refused_before_they_are_decoded() -> None:
    message = refusal(yaktribe(krug={"skills": ["Nerves of Steel"] * 1_000_000}))
    assert f"more than {MAX_JSON_VALUES} values" in message
    assert f"this bot reads at most {MAX_JSON_VALUES} in a gang export" in message


def test_a_list_under_the_value_bound_is_still_bounded_by_its_own() -> None:
    message = refusal(yaktribe(krug={"skills": ["Nerves of Steel"] * 150_000}))
    assert "150000 skills for 'Krug Ironhide'" in message and f"at most {MAX_SKILLS}" in message


def test_numbers_are_bounded_in_digits() -> None:
    def gang_worth(number: str) -> bytes:
        return f'{{"gang_name": "A", "gang_type": "Goliath", "gangers": [], "wealth": {number}}}'\
            .encode()

    assert read(gang_worth("-" + "9" * 30)).name == "A"
    assert "a number of more than 30 digits" in refusal(gang_worth("9" * 31))
    assert "a number of more than 30 digits" in refusal(gang_worth("1." + "5" * 60))


def test_the_gang_as_a_whole_is_bounded_too() -> None:
    data = slag_kings()
    for ganger in data["gangers"]:
        ganger["equipment"] = [{"name": "Stub gun", "qty": 20}] * 2
    data["gangers"] = data["gangers"][:20] * 3  # 60 fighters of 40 items each
    message = refusal(json.dumps(data).encode())
    assert f"this bot reads at most {MAX_GANG_ITEMS}" in message


def test_a_gang_at_its_bounds_imports_and_one_more_skill_is_refused() -> None:
    gang = read(yaktribe(
        krug={"skills": ["Nerves of Steel"] * MAX_SKILLS,
              "equipment": [{"name": "Stub gun", "qty": 10}] * 5},
        territories=["Old Ruins"] * MAX_TERRITORIES,
    ))
    krug = next(f for f in gang.fighters if f.name == "Krug Ironhide")
    assert len(krug.skills) == MAX_SKILLS and len(krug.equipment) == MAX_FIGHTER_ITEMS
    assert f"at most {MAX_SKILLS}" in refusal(
        yaktribe(krug={"skills": ["Nerves of Steel"] * (MAX_SKILLS + 1)})
    )


# --------------------------------------------------------------------------- gang files


def gang_file(edit: Any) -> bytes:
    gang = read(fixture_bytes("yaktribe_slag_kings.json"))
    edit(gang)
    return gang_document(1, CAMPAIGN, gang, []).model_dump_json(by_alias=True).encode()


def _grow(gang: Gang, field: str, value: Any, count: int) -> None:
    setattr(gang.fighters[0], field, [value] * count)


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda g: _grow(g, "skills", "Fearsome", MAX_SKILLS + 1),
     f"skills for 'Krug Ironhide'; this bot reads at most {MAX_SKILLS}"),
    (lambda g: _grow(g, "advancements", Advancement(name="WS", xp_cost=6, credits=10),
                     MAX_ADVANCEMENTS + 1),
     f"advancements for 'Krug Ironhide'; this bot reads at most {MAX_ADVANCEMENTS}"),
    (lambda g: _grow(g, "equipment", g.fighters[0].equipment[0], MAX_FIGHTER_ITEMS + 1),
     f"items for 'Krug Ironhide'; this bot reads at most {MAX_FIGHTER_ITEMS}"),
    (lambda g: setattr(g.fighters[0], "xp", MAX_COUNT + 1),
     f"the XP of 'Krug Ironhide' as more than {MAX_COUNT}"),
    (lambda g: _grow(g, "skills", "x" * (MAX_TEXT + 1), 1),
     f"a text of {MAX_TEXT + 1} characters at gang.fighters.0.skills.0"),
])
def test_a_gang_file_over_a_bound_is_refused_naming_it(edit: Any, expected: str) -> None:
    message = refusal(gang_file(edit))
    assert expected in message and "Nothing was imported" in message


def test_a_gang_file_naming_a_campaign_id_too_long_for_the_import_link_is_refused() -> None:
    document = json.loads(gang_file(lambda gang: None))
    document["campaign_id"] = "c" * 150
    message = refusal(json.dumps(document).encode())
    assert "campaign_id" in message and "damaged" in message


# --------------------------------------------------------------------------- malformed files


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"gang_name": "A", "gang_type": "Goliath", "gangers": [], "credits": '
     + b"9" * 5000 + b"}", "a number of more than 30 digits, too long to be a gang export"),
    (b'{"gang_name": "A\\ud800", "gang_type": "Goliath", "gangers": []}',
     "half a character"),
])
def test_malformed_json_is_refused_in_words(data: bytes, expected: str) -> None:
    assert expected in refusal(data)


def test_an_id_too_long_to_keep_is_dropped_whether_text_or_number() -> None:
    # The import link keeps at most 200 characters of it.
    assert read_id(10**250) is None and read_id("9" * 250) is None
    assert read_id(48213) == "48213"


def test_a_lone_surrogate_is_refused_and_a_pair_is_one_character() -> None:
    gang = read(b'{"gang_name": "Grin \\ud83d\\ude00", "gang_type": "Goliath", "gangers": []}')
    assert gang.name == "Grin \U0001f600"
    lone = b'{"gang_name": "Grin \\ude00\\ud83d", "gang_type": "Goliath", "gangers": []}'
    assert "half a character" in refusal(lone)


def test_malformed_campaign_files_are_refused_in_words() -> None:
    with pytest.raises(InvalidRequest, match="a number of more than 30 digits"):
        read_campaign_document(b'{"format": "munda-arbitrator/campaign", "version": '
                               + b"1" * 5000 + b"}")



def test_a_key_given_twice_is_refused_by_every_json_importer() -> None:
    """JSON's last-one-wins would import a value the file also contradicts (TOML refuses
    a repeated key itself)."""
    gang = b'{"gang_name": "A", "gang_type": "Goliath", "gangers": [], "gang_name": "B"}'
    assert 'gives the key "gang_name" twice in one object' in refusal(gang)
    with pytest.raises(InvalidRequest, match='gives the key "version" twice'):
        read_campaign_document(b'{"format": "munda-arbitrator/campaign", "version": 1, '
                               b'"version": 2}')
    with pytest.raises(InvalidRequest, match='gives the key "cost" twice'):
        parse_trading_post(b'[{"name": "Sling", "cost": 5, "cost": 500}]', "post.json")


@pytest.mark.parametrize("url", [
    "https://xn--yaktribe-.games/x", "https://xn--.games/",
    "https://yaktribe.games/x\r\nHost: evil",
])
def test_urls_with_junk_hosts_are_refused_in_words(url: str) -> None:
    with pytest.raises(InvalidRequest):
        check_url(url, "yaktribe.games")


def test_a_csv_cell_over_the_csv_limit_is_refused_in_words() -> None:
    data = b'name,category,cost,availability\n"' + b"a" * 200_000 + b'",Basic,15,Common\n'
    with pytest.raises(InvalidRequest, match="a cell is longer than 131072 characters"):
        parse_trading_post(data)


def test_a_trading_post_stops_reading_at_its_bound() -> None:
    rows = "".join(f"Item {n},Basic,15,Common\n" for n in range(MAX_TRADING_POST_ITEMS + 5))
    data = ("name,category,cost,availability\n" + rows).encode()
    with pytest.raises(InvalidRequest, match=f"more than {MAX_TRADING_POST_ITEMS} items"):
        parse_trading_post(data)


def test_a_trading_post_with_too_many_columns_is_refused() -> None:
    header = "name,category,cost,availability," + ",".join(f"c{n}" for n in range(60))
    with pytest.raises(InvalidRequest, match="64 columns; this bot reads at most 50"):
        parse_trading_post(f"{header}\nAutogun,Basic,15,Common\n".encode())
    items = [{"name": f"Item {n}", "cost": 1, "availability": "Common", f"k{n}": 1}
             for n in range(60)]
    with pytest.raises(InvalidRequest, match="51 keys the bot does not know"):
        parse_trading_post(json.dumps(items).encode())


# --------------------------------------------------------------------------- the report


def test_a_report_keeps_a_bounded_number_of_lines_and_counts_the_rest() -> None:
    report = ImportReport()
    for n in range(MAX_REPORT_PROBLEMS + 7):
        report.problem(f"problem {n}")
    for n in range(MAX_REPORT_FIELDS + 3):
        report.skip_field("fighter", f"field{n}")
    assert len(report.problems) == MAX_REPORT_PROBLEMS
    assert len(report.skipped_fields) == MAX_REPORT_FIELDS
    lines = report.lines()
    assert f"Problem: 7 more, not listed (a report keeps {MAX_REPORT_PROBLEMS})." in lines
    assert lines[-1].endswith(f", and 3 more (a report lists {MAX_REPORT_FIELDS})")


# --------------------------------------------------------------------------- off the loop


def test_whole_files_are_read_in_a_worker_thread_never_on_the_event_loop() -> None:
    """gangflow.read is what /gang import calls: it works, because it uses a worker thread,
    while the same reading called on the loop's own thread is refused."""
    data = fixture_bytes("yaktribe_slag_kings.json")
    gang = asyncio.run(gangflow.read(data, CAMPAIGN, owner="42")).gang
    assert gang.name == "The Slag Kings" and len(gang.fighters) == 20

    async def on_the_loop() -> None:
        read(data)

    with pytest.raises(RuntimeError, match="worker thread"):
        asyncio.run(on_the_loop())

    async def on_the_loop_trading_post() -> None:
        read_trading_post(fixture_bytes("trading_post.csv"), "trading_post.csv")

    with pytest.raises(RuntimeError, match="worker thread"):
        asyncio.run(on_the_loop_trading_post())
