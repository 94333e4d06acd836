"""Property test: whatever rule data file an Arbitrator attaches, the import path answers with
a sentence (InvalidRequest, shown politely) or content that stages, exports and imports
back, never another exception ("Something went wrong").

The files are shaped like rule data (houses with fighter types, weapons with profiles, skill
sets, Territories, whole tables), in JSON or TOML, with hostile values anywhere: nesting to
any depth, numbers of any size, long texts, lone surrogates, keys given twice, wrong types.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import tomli_w
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.importing.jobs import read_rule_data_file
from bot.ruledata import StagedRuleData, document_bytes
from bot.rulesets import ruleset_for
from bot.storage import Campaign
from rules.errors import InvalidRequest
from rules.models import CampaignSettings
from rules.ruledata import RuleData, apply_rule_data, rule_data_of
from rules.ruledata_reader import read_rule_data

CAMPAIGN = Campaign(id="c1", guild_id=1, settings=CampaignSettings(name="Ink Wars"),
                    created_at=datetime.now(UTC))
HOSTILE = settings(
    max_examples=200, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Stand-ins spliced into the text after it is written: no writer makes these.
DEEP = "\x00deep"
HUGE = "\x00huge"

any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=20)
hostile = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.just(DEEP) | st.just(HUGE)
    | st.sampled_from([10**100, -(10**40), 2**63, 10**30 - 1, "", " ", "\ud800",
                       "\n**x**", "x" * 101, "x" * 201, "x" * 1001, "x" * 5000])
    | any_text
    | st.lists(st.just("Fearsome"), min_size=0, max_size=40)
    | st.dictionaries(any_text, st.integers(), max_size=2)
)


def entry(fields: dict[str, st.SearchStrategy[Any]], *, clean: bool,
          required: tuple[str, ...] = ()) -> st.SearchStrategy[dict[str, Any]]:
    """An object with these fields, some optional ones left out; unless ``clean``, each
    field maybe hostile and maybe a key the format does not know."""
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        made: dict[str, Any] = {}
        for key, value in fields.items():
            if key not in required and not draw(st.sampled_from([True, True, False]),
                                                label=f"has {key}"):
                continue
            spoiled = not clean and draw(st.sampled_from([False, False, False, True]),
                                         label=f"{key} hostile")
            made[key] = draw(hostile if spoiled else value, label=key)
        if not clean and draw(st.booleans(), label="extra key"):
            made[draw(any_text, label="extra")] = draw(hostile, label="extra value")
        return made
    return build()


def distinct(values: st.SearchStrategy[Any], key: str, max_size: int,
             min_size: int = 0) -> st.SearchStrategy[list[Any]]:
    """Entries whose ``key`` differ (a file naming one twice is refused, rightly)."""
    return st.lists(values, min_size=min_size, max_size=max_size,
                    unique_by=lambda e: str(e.get(key, id(e))).casefold())


def documents(clean: bool) -> st.SearchStrategy[dict[str, Any]]:
    """Rule data files, every value valid when ``clean``."""
    names = st.sampled_from(["Krag", "Ink Sister", "Sump Dweller", "Quill Matriarch"])
    if not clean:
        names = names | any_text
    texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
    profile = st.sampled_from(['M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+',
                               'M4" WS3+ BS5+ S4 T4 W2 I5+ A1 Ld6+ Cl6+ Wil8+ Int8+'])

    def items(pool: list[str], weapons: bool) -> st.SearchStrategy[list[dict[str, Any]]]:
        profiles = st.lists(entry({"name": st.sampled_from(["Frag", "Krak"]),
                                   "strength": st.just("S+1"),
                                   "traits": st.lists(texts.filter(str.strip), max_size=3)},
                                  clean=clean), max_size=2, unique_by=lambda p: str(p.get("name")))
        fields: dict[str, st.SearchStrategy[Any]] = {
            "name": st.sampled_from(pool), "cost": st.integers(0, 10**6),
            "availability": st.sampled_from(["Common", "Rare (8)", "Illegal (9)"])}
        if weapons:
            fields["profiles"] = profiles
        return distinct(entry(fields, clean=clean, required=("name", "cost")), "name", 3)

    def fighter_types(categories: list[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
        return distinct(entry({
            "fighter_type": names, "category": st.sampled_from(categories),
            "cost": st.integers(0, 10**6), "profile": profile,
            "skills": st.lists(texts, max_size=4), "special_rules": st.lists(texts, max_size=3),
            "equipment_list": items(["Quill pistol", "Ink blade", "Cloak"], weapons=False),
            "min_reputation": st.integers(0, 1000),
        }, clean=clean, required=("fighter_type", "category", "cost")), "fighter_type", 3)

    skills = st.lists(st.sampled_from(["Nerves", "Grit", "Dodge", "Leap", "Spring", "Fury",
                                       "Stealth"]), min_size=6, max_size=6, unique=True)
    return entry({
        "format": st.just("munda-arbitrator/rule-data"), "version": st.just(1),
        "name": texts.map(lambda t: t[:100]), "description": texts,
        "houses": distinct(entry({"house": names,
                                  "fighters": fighter_types(["Leader", "Ganger", "Juve"])},
                                 clean=clean, required=("house",)), "house", 2),
        "weapons": items(["Quill pistol", "Ink blade", "Autogun"], weapons=True),
        "wargear": items(["Cloak", "Charm"], weapons=False),
        "skill_sets": distinct(entry({"name": names, "skills": skills}, clean=clean,
                                     required=("name", "skills")), "name", 2),
        "hangers_on": fighter_types(["Hanger-on", "Brute"]),
        "territories": distinct(entry({"id": st.sampled_from(["t1", "t2"]), "name": names,
                                       "income": st.sampled_from(["D6x10", "15"]),
                                       "boons": st.lists(texts, max_size=2)},
                                      clean=clean, required=("id", "name")), "id", 2),
    }, clean=clean)


document = st.one_of(documents(clean=True), documents(clean=False))


def written(doc: dict[str, Any], as_toml: bool, depth: int, digits: int,
            repeated: bool) -> bytes:
    """The document as a file's text, with the stand-ins spliced in and maybe a key twice."""
    if as_toml:
        try:
            text = tomli_w.dumps(_without_none(doc))
        except (TypeError, ValueError, UnicodeEncodeError):
            text = 'name = "x"\n'
        text = spliced(text, depth, digits)
        if repeated:
            text = 'name = "x"\nname = "y"\n' + text
        return text.encode("utf-8", "surrogatepass")
    text = json.dumps(doc)
    text = spliced(text, depth, digits)
    if repeated and doc:
        key = json.dumps(next(iter(doc)))
        text = "{" + key + ": 1, " + text[1:]
    return text.encode()


def spliced(text: str, depth: int, digits: int) -> str:
    """The stand-ins replaced: nesting ``depth`` deep, a number of ``digits`` digits."""
    nested = "[" * depth + "]" * depth
    return text.replace(json.dumps(DEEP), nested).replace(json.dumps(HUGE), "9" * digits)


def _without_none(node: Any) -> Any:
    # TOML has no null: a None is left out, as a file writer would.
    if isinstance(node, dict):
        return {k: _without_none(v) for k, v in node.items() if v is not None}
    if isinstance(node, list):
        return [_without_none(v) for v in node if v is not None]
    return node


@HOSTILE
# The files that raised before they got a sentence, always among the examples.
@example(doc={"houses": DEEP}, as_toml=False, depth=100_000, digits=1, repeated=False)
@example(doc={"houses": DEEP}, as_toml=True, depth=100_000, digits=1, repeated=False)
@example(doc={"weapons": [{"name": "x", "cost": HUGE}]}, as_toml=False, depth=1, digits=5000,
         repeated=False)
@example(doc={"weapons": [{"name": "x", "cost": HUGE}]}, as_toml=True, depth=1, digits=5000,
         repeated=False)
@example(doc={"houses": [{"house": "Quillon", "fighters": [
    {"fighter_type": "Ink", "category": "Ganger", "cost": 5, "skills": ["\ud800"]}]}]},
         as_toml=False, depth=1, digits=1, repeated=False)
@example(doc={"weapons": [{"name": "x", "cost": 10**100}]}, as_toml=False, depth=1, digits=1,
         repeated=False)
@example(doc={"name": "x"}, as_toml=False, depth=1, digits=1, repeated=True)
# Half a character in a name a refusal quotes: the refusal could not be sent.
@example(doc={"houses": [{"house": "\ud800x", "fighters": 5}]}, as_toml=False, depth=1,
         digits=1, repeated=False)
@given(doc=document, as_toml=st.booleans(),
       depth=st.sampled_from([1, 30, 70, 900, 5000, 100_000]),
       digits=st.sampled_from([1, 29, 31, 400, 4300, 5000]),
       repeated=st.sampled_from([False, False, False, True]))
def test_a_rule_data_file_is_refused_in_words_or_imports_and_exports_back(
    doc: dict[str, Any], as_toml: bool, depth: int, digits: int, repeated: bool
) -> None:
    data = written(doc, as_toml, depth, digits, repeated)
    filename = "mine.toml" if as_toml else "mine.json"
    try:
        content = read_rule_data_file(data, filename, CAMPAIGN)
    except InvalidRequest as refused:
        # A sentence Discord can carry: UTF-8 text, within a message's length.
        assert refused.message.strip() and len(refused.message.encode("utf-8")) < 2000
        return
    # What the Confirm button stores, and what the campaign then plays with.
    stored = StagedRuleData(filename=filename, rule_data=content).model_dump_json(by_alias=True)
    assert StagedRuleData.model_validate_json(stored).rule_data == content
    played = apply_rule_data(ruleset_for(CAMPAIGN), content)
    # Its export (JSON and TOML) imports back as the same rule set.
    for file_format in ("json", "toml"):
        exported = document_bytes(rule_data_of(played), file_format)
        again = apply_rule_data(ruleset_for(CAMPAIGN),
                                read_rule_data(exported, f"back.{file_format}"))
        for table in ("houses", "trading_post", "skill_sets", "hangers_on", "territories",
                      "lasting_damage"):
            assert getattr(again, table) == getattr(played, table), table


def test_the_property_reaches_clean_imports() -> None:
    """The strategy's valid side does import: the property tests more than refusals."""
    doc = {"weapons": [{"name": "Quill pistol", "cost": 10,
                        "profiles": [{"strength": "S+1", "traits": ["Knockback"]}]}],
           "houses": [{"house": "Quillon", "fighters": [
               {"fighter_type": "Ink Sister", "category": "Ganger", "cost": 50,
                "equipment_list": [{"name": "Quill pistol", "cost": 5}]}]}]}
    for as_toml in (False, True):
        data = written(doc, as_toml, 1, 1, repeated=False)
        content = read_rule_data_file(data, "a.toml" if as_toml else "a.json", CAMPAIGN)
        assert isinstance(content, RuleData) and content.houses[0].house == "Quillon"
