"""Property tests: whatever bytes a player uploads, every importer answers with a clear refusal
(InvalidRequest, which the cogs show politely) or a result that can be stored, never another
exception ("Something went wrong").

Inputs: arbitrary bytes; arbitrary JSON (with lone surrogates, NaN, 5000-digit numbers); JSON
shaped like a Yaktribe export, a gang file or a campaign export with any value anywhere; CSV
with any header, cells, separators and quotes; and any text as a URL.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.importing.campaigndoc import read_campaign_document
from bot.importing.fetch import check_url
from bot.importing.gangdoc import gang_document
from bot.importing.gangfile import read_gang_file
from bot.importing.plan import StagedGangImport, plan_import
from bot.importing.tradingpost import KNOWN, parse_trading_post, require_clean
from bot.importing.yaktribe import FIGHTER_FIELDS, GANG_FIELDS, parse_yaktribe
from bot.storage import Campaign, CampaignDocument
from rules.data import default_ruleset
from rules.errors import InvalidRequest
from rules.limits import (
    MAX_FIGHTER_ITEMS,
    MAX_FIGHTERS,
    MAX_GANG_ITEMS,
    MAX_INJURIES,
    MAX_SKILLS,
    MAX_STASH_ITEMS,
    MAX_TRADING_POST_ITEMS,
)
from rules.models import CampaignSettings
from tests.importing.conftest import id_maker, slag_kings

RULESET = default_ruleset()
HOSTILE = settings(
    max_examples=150, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Stands for a number of 5000 digits: json.dumps cannot write one, so it is spliced in.
HUGE_NUMBER = "\x00huge-number"

# Any character, lone surrogates included (JSON escapes them as \ud800).
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=30)
leaves = (
    st.none() | st.booleans() | st.integers() | st.floats()
    | st.sampled_from([10**4000, 10**250, 2**63, HUGE_NUMBER, "", " ", "4+", '5"', "-3"])
    | st.sampled_from(["x" * 101, "x" * 201, "9" * 250])
    | any_text
)
json_values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(any_text, children, max_size=4),
    max_leaves=20,
)


def encode(value: Any) -> bytes:
    """``value`` as JSON bytes, the way a hostile file could spell it."""
    text = json.dumps(value)
    return text.replace(json.dumps(HUGE_NUMBER), "9" * 5000).encode()


def read_gang(data: bytes) -> None:
    """Read a gang file; a success must plan and stage (what Confirm stores) within bounds."""
    parsed = read_gang_file(
        data, ruleset=RULESET, owner="42", make_id=id_maker(), campaign_id="c1"
    )
    staged = plan_import(
        parsed, campaign_id="c1", gangs=[], existing=None, known_fighters={}, rename=None,
        make_id=id_maker("new"), now=datetime.now(UTC),
    )
    stored = StagedGangImport.model_validate_json(staged.model_dump_json())
    gang = stored.gang
    assert len(gang.fighters) <= MAX_FIGHTERS and len(gang.stash) <= MAX_STASH_ITEMS
    assert sum(len(f.equipment) for f in gang.fighters) + len(gang.stash) <= MAX_GANG_ITEMS
    for fighter in gang.fighters:
        assert len(fighter.equipment) <= MAX_FIGHTER_ITEMS
        assert len(fighter.skills) <= MAX_SKILLS and len(fighter.lasting_injuries) <= MAX_INJURIES


def read_trading_post(data: bytes) -> None:
    entries = require_clean(parse_trading_post(data, "upload"))
    assert 0 < len(entries) <= MAX_TRADING_POST_ITEMS


def refused_or_read(reader: Callable[[bytes], object], data: bytes) -> None:
    try:
        reader(data)
    except InvalidRequest as refusal:
        assert refusal.message.strip()


READERS = {"gang": read_gang, "trading post": read_trading_post,
           "campaign": read_campaign_document}


# --------------------------------------------------------------------------- any bytes, any JSON


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
@HOSTILE
@given(data=st.binary(max_size=300) | json_values.map(encode))
def test_any_bytes_or_json_are_refused_or_read(
    reader: Callable[[bytes], object], data: bytes
) -> None:
    refused_or_read(reader, data)


# --------------------------------------------------------------------------- shaped JSON

plausible = st.one_of(
    json_values,
    st.integers(-5, 30),
    st.sampled_from(["Krug", "Goliath", "Alive", "Dead", "Recovery", "Outlaw", "4+", "Boltgun"]),
    st.lists(any_text | st.fixed_dictionaries({"name": json_values, "qty": json_values}),
             max_size=4),
)
fighters = st.dictionaries(st.sampled_from(sorted(FIGHTER_FIELDS)) | any_text, plausible)
yaktribe_files = st.fixed_dictionaries(
    {"gang_name": plausible, "gang_type": plausible,
     "gangers": st.lists(fighters | json_values, max_size=4) | json_values},
    optional={
        key: plausible for key in sorted(GANG_FIELDS - {"gang_name", "gang_type", "gangers"})
    },
)


@HOSTILE
@given(data=yaktribe_files)
def test_yaktribe_shaped_files_are_refused_or_read(data: dict[str, Any]) -> None:
    refused_or_read(read_gang, encode(data))


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a decoded JSON document, itself included."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = json.loads(json.dumps(document))
    holder = copy
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return copy


def gang_file() -> dict[str, Any]:
    gang = parse_yaktribe(slag_kings(), ruleset=RULESET, owner="42", make_id=id_maker()).gang
    gang.fighters = gang.fighters[:3]
    campaign = Campaign(
        id="c0", guild_id=1, settings=CampaignSettings(name="Scrap Hollow"),
        created_at=datetime.now(UTC),
    )
    document: dict[str, Any] = json.loads(
        gang_document(1, campaign, gang, []).model_dump_json(by_alias=True)
    )
    return document


def campaign_file() -> dict[str, Any]:
    gang = parse_yaktribe(slag_kings(), ruleset=RULESET, owner="42", make_id=id_maker()).gang
    gang.fighters = gang.fighters[:3]
    document = CampaignDocument.model_validate({
        "exported_at": datetime.now(UTC), "guild_id": 1, "gangs": [gang],
        "campaign": {"id": "c0", "settings": {"name": "Scrap Hollow"},
                     "created_at": datetime.now(UTC)},
    })
    decoded: dict[str, Any] = json.loads(document.model_dump_json(by_alias=True))
    return decoded


DOCUMENTS = {"gang file": (gang_file(), read_gang), "campaign": (campaign_file(), None)}


@pytest.mark.parametrize("name", DOCUMENTS)
@HOSTILE
@given(choice=st.data(), value=json_values | plausible)
def test_documents_with_any_value_anywhere_are_refused_or_read(
    name: str, choice: st.DataObject, value: Any
) -> None:
    document, reader = DOCUMENTS[name]
    read = reader or read_campaign_document
    read(encode(document))  # the document itself is good: the change alone is tested
    path = choice.draw(st.sampled_from(paths(document)), label="path")
    refused_or_read(read, encode(replaced(document, path, value)))


# --------------------------------------------------------------------------- CSV

cells = st.one_of(
    any_text.map(lambda text: text.encode("utf-8", "replace").decode()),
    st.sampled_from(["Autogun", "15", "15 credits", "Common", "Rare (8)", "weapon", "yes", ""]),
    st.just("a" * 140_000),
)
headers = st.lists(st.sampled_from(sorted(KNOWN | {"item", "price", "rarity"})) | cells,
                   min_size=1, max_size=6)


@HOSTILE
@given(header=headers, rows=st.lists(st.lists(cells, max_size=7), max_size=6),
       delimiter=st.sampled_from([",", ";", "\t", "|"]),
       quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONE]),
       newline=st.sampled_from(["\n", "\r\n", "\r"]))
def test_csv_of_any_shape_is_refused_or_read(
    header: list[str], rows: list[list[str]], delimiter: str, quoting: int, newline: str
) -> None:
    out = io.StringIO()
    writer = csv.writer(
        out, delimiter=delimiter, quoting=quoting, escapechar="\\", lineterminator=newline
    )
    try:
        writer.writerows([header, *rows])
    except csv.Error:
        return  # Not writable this way: no file to upload.
    refused_or_read(read_trading_post, out.getvalue().encode())


# --------------------------------------------------------------------------- URLs


@HOSTILE
@given(text=st.one_of(
    any_text,
    st.builds(lambda scheme, host, rest: f"{scheme}://{host}{rest}",
              st.sampled_from(["https", "http", "ftp", "HTTPS"]),
              st.sampled_from(["yaktribe.games", "xn--yaktribe-.games", "xn--.games",
                               "yaktribe.games:99999", "[::1", "ｙaktribe.games", "a..b"])
              | any_text,
              any_text),
))
def test_any_url_is_refused_or_allowed(text: str) -> None:
    try:
        url = check_url(text, "yaktribe.games")
    except InvalidRequest as refusal:
        assert refusal.message.strip()
    else:
        assert url.host == "yaktribe.games" and url.port == 443
