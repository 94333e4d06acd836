"""Roster and standings embeds: real discord.Embed objects, inside Discord's limits."""

from __future__ import annotations

import discord
import pytest

from bot.ui import checked, clean_name, embed_batches
from bot.ui.roster import (
    WEAPON_MARK,
    profile_line,
    roster_embeds,
    standings_embed,
    standings_embeds,
)
from rules.errors import InvalidRequest
from rules.models import EquipmentKind, FighterCategory, FighterStatus, Gang, Profile
from tests.factories import fighter, gang, item, profile, territory, vehicle

LONG = "x" * 100


def assert_within_limits(embeds: list[discord.Embed]) -> None:
    for embed in embeds:
        assert len(embed.title or "") <= 256
        assert len(embed.description or "") <= 4096
        assert len(embed.fields) <= 25
        for field in embed.fields:
            assert 0 < len(field.name or "") <= 256
            assert 0 < len(field.value or "") <= 1024
        assert len(embed.footer.text or "") <= 2048
        assert len(embed) <= 6000
    for batch in embed_batches(embeds):
        assert len(batch) <= 10
        assert sum(len(e) for e in batch) <= 6000


def field_names(embeds: list[discord.Embed]) -> list[str]:
    return [f.name or "" for e in embeds for f in e.fields]


def field(embeds: list[discord.Embed], name_start: str) -> str:
    for embed in embeds:
        for f in embed.fields:
            if (f.name or "").startswith(name_start):
                return f.value or ""
    raise AssertionError(f"no field starting {name_start!r} in {field_names(embeds)}")


def big_gang(fighters: int = 30) -> Gang:
    """A gang as large as a long campaign makes one: every text at its longest."""
    kit = [item(f"{LONG[:90]} weapon {n}", 25) for n in range(3)]
    kit += [item(f"{LONG[:90]} armour", 10, EquipmentKind.ARMOUR)]
    roster = [
        fighter(
            f"{n:02d}{LONG[:98]}", FighterCategory.GANGER, cost=50, fighter_type=LONG,
            xp=n, equipment=[i.model_copy(update={"id": f"{i.id}-{n}"}) for i in kit],
            lasting_injuries=[LONG] * 8, skills=[LONG] * 8,
        )
        for n in range(fighters)
    ]
    return gang(
        LONG, fighters=roster, house=LONG, credits=999_999, reputation=1000,
        stash=[item(f"{LONG[:90]} {n}", 5) for n in range(60)],
        vehicles=[vehicle(LONG, vehicle_type=LONG, equipment=kit[:2])],
        stash_vehicles=[vehicle("Spare ride")],
    )


def test_thirty_long_fighters_stay_within_discord_limits() -> None:
    big = big_gang(30)
    embeds = roster_embeds(big, LONG, {}, territories=[LONG] * 40,
                           captives=[(LONG, LONG)] * 30)
    assert len(embeds) > 1
    assert_within_limits(embeds)
    names = field_names(embeds)
    for member in big.fighters:
        assert sum(1 for n in names if n.startswith(member.name[:20])) == 1
    assert embeds[0].title == LONG
    assert all((e.title or "").endswith("(continued)") for e in embeds[1:])
    assert embeds[-1].footer.text == f"page {len(embeds)} of {len(embeds)}"
    # Long lists end with a count instead of overflowing the field.
    assert field(embeds, "Stash").endswith("more")
    assert field(embeds, "Territories").endswith("more")


def test_a_hundred_fighters_still_fit() -> None:
    assert_within_limits(roster_embeds(big_gang(100), "Dust Falls", {}))


def test_every_part_of_the_roster_is_shown() -> None:
    captor = gang("Iron Fangs")
    boss = fighter("Boss", FighterCategory.LEADER, cost=120, fighter_type="Goliath Forge Tyrant",
                   xp=7, equipment=[item("Combat shotgun", 60), item("Furnace plates", 25,
                                                                     EquipmentKind.ARMOUR)],
                   lasting_injuries=["Humiliated"], skills=["Nerves of Steel"],
                   profile=Profile(m=4, ws=3, bs=5, s=4, t=4, w=2, i=4, a=2,
                                   ld=6, cl=5, wil=7, int_=7))
    taken = fighter("Taken", cost=50)
    taken.capture(captor.id)
    dead = fighter("Goner", cost=50, status=FighterStatus.DEAD)
    subject = gang("Ash Wolves", fighters=[boss, taken, dead], credits=230,
                   reputation=4, battles_fought=3, stash=[item("Lasgun", 15)],
                   vehicles=[vehicle("Rumbler", vehicle_type="Cargo-8 Ridgehauler")])
    embeds = roster_embeds(subject, "Dust Falls", {captor.id: "Iron Fangs"},
                           territories=["Old Ruins"], captives=[("Vex", "Sump Rats")])
    assert_within_limits(embeds)
    assert len(embeds) == 1
    embed = embeds[0]
    assert embed.title == "Ash Wolves"
    assert "House Goliath" in (embed.description or "")
    assert f"<@{subject.owner}>" in (embed.description or "")
    assert "Dust Falls" in (embed.description or "")
    assert field(embeds, "Gang Rating") == str(subject.rating)
    assert field(embeds, "Wealth") == str(subject.wealth)
    assert field(embeds, "Credits") == "230"
    assert field(embeds, "Reputation") == "4"
    assert field(embeds, "Battles fought") == "3"
    assert field(embeds, "Fighters") == "2"  # the dead one is listed but not counted
    assert field(embeds, "Territories") == "Old Ruins"
    assert field(embeds, "Captives held") == "Vex of Sump Rats"
    boss_text = field(embeds, "Boss (Leader, Goliath Forge Tyrant)")
    assert f"{boss.total_cost} credits · 7 XP · Active" in boss_text
    assert '`M4" WS3+ BS5+ S4 T4 W2 I4+ A2 Ld6+ Cl5+ Wil7+ Int7+`' in boss_text
    assert f"Equipment: {WEAPON_MARK} Combat shotgun, Furnace plates" in boss_text
    assert "Injuries: Humiliated" in boss_text
    assert "Skills: Nerves of Steel" in boss_text
    assert "Captured by Iron Fangs" in field(embeds, "Taken")
    assert "Dead" in field(embeds, "Goner")
    assert field(embeds, "🚗 Rumbler (Vehicle, Cargo-8 Ridgehauler)") == "120 credits · Active"
    assert f"{WEAPON_MARK} Lasgun" in field(embeds, "Stash (15 credits")
    assert embed.footer.text is None  # one page: no page numbers


def test_unknown_captor_and_empty_gang() -> None:
    lost = fighter("Lost")
    lost.capture("gone-gang")
    embeds = roster_embeds(gang("Lonely", fighters=[lost]), "C", {})
    assert "· Captured" in field(embeds, "Lost")
    empty = roster_embeds(gang("Empty", fighters=[]), "C", {})
    assert field(empty, "Roster") == "No fighters yet."
    assert field(empty, "Stash") == "Empty."
    parked = roster_embeds(gang("Parked", fighters=[], stash_vehicles=[vehicle("Spare ride")]),
                           "C", {})
    assert field(parked, "Stash") == "No items; its vehicles are listed above."


def test_user_text_is_escaped() -> None:
    hostile = "**@everyone** <@123> _x_"
    gangster = fighter(hostile, fighter_type="`code`", equipment=[item("||spoiler||")])
    embeds = roster_embeds(gang(hostile, fighters=[gangster], house="~~strike~~"), hostile, {})
    text = "\n".join([embeds[0].title or "", embeds[0].description or "",
                      *field_names(embeds), *(f.value or "" for f in embeds[0].fields)])
    assert "**@everyone**" not in text
    assert "@everyone" not in text  # a zero-width space breaks the mention
    assert "\\*\\*" in text
    assert "\\|\\|spoiler\\|\\|" in text
    assert "\\~\\~strike\\~\\~" in text


def test_a_fighter_without_a_profile_shows_profile_not_set_never_a_default_line() -> None:
    unknown = fighter("Nobody Knows", profile=None)
    familiar = fighter("Familiar", profile=profile(bs=None, w=2))
    assert profile_line(unknown) == "profile not set"
    assert profile_line(familiar) == 'M5" WS4+ BS- S3 T3 W2 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+'
    embeds = roster_embeds(gang("Quiet Ones", fighters=[unknown, familiar]), "Dust Falls", {})
    values = [f.value or "" for f in embeds[0].fields]
    shown = next(v for v in values if "profile not set" in v)
    assert "M5" not in shown and "WS" not in shown


def test_standings_sorted_by_rating_with_territories() -> None:
    rich = gang("Rich", fighters=[fighter("A", cost=300)], credits=10, battles_fought=1)
    poor = gang("Poor", fighters=[fighter("B", cost=50)], credits=500)
    middle = gang("Middle", fighters=[fighter("C", cost=100)])
    held = [territory("Old Ruins", controller=poor.id), territory("Tunnels", controller=poor.id),
            territory("Workshop", controller=rich.id), territory("Wastes")]
    embed = standings_embed("Dust Falls", [poor, middle, rich], held)
    names = [f.name for f in embed.fields]
    assert names == ["1. Rich", "2. Middle", "3. Poor"]
    assert embed.title == "Dust Falls: standings"
    rich_text = embed.fields[0].value or ""
    assert f"<@{rich.owner}>" in rich_text
    assert "Rating **300**" in rich_text
    assert f"Wealth {rich.wealth}" in rich_text
    assert "Reputation 1" in rich_text
    assert "10 credits" in rich_text
    assert "1 territory · 1 battle fought" in rich_text
    assert "2 territories · 0 battles fought" in (embed.fields[2].value or "")


def test_standings_page_and_stay_within_limits() -> None:
    many = [gang(f"Gang {n:02d}", fighters=[fighter(cost=10 * n)]) for n in range(45)]
    embeds = standings_embeds("Dust Falls", many)
    assert [len(e.fields) for e in embeds] == [20, 20, 5]
    assert (embeds[0].fields[0].name or "") == "1. Gang 44"
    assert (embeds[2].fields[-1].name or "") == "45. Gang 00"
    assert_within_limits(embeds)
    # At the longest names the character limit, not the 20 per page, decides.
    longest = [gang(f"{n:02d}{LONG}"[:100], fighters=[fighter(cost=10 * n)], house=LONG)
               for n in range(45)]
    long_pages = standings_embeds(LONG, longest)
    assert sum(len(e.fields) for e in long_pages) == 45
    assert_within_limits(long_pages)
    empty = standings_embeds("Quiet", [])
    assert len(empty) == 1 and "/gang create" in (empty[0].description or "")


def test_embed_batches_respect_the_per_message_limits() -> None:
    small = [discord.Embed(title=str(n)) for n in range(23)]
    assert [len(b) for b in embed_batches(small)] == [10, 10, 3]
    large = [discord.Embed(description="d" * 4000) for _ in range(3)]
    assert [len(b) for b in embed_batches(large)] == [1, 1, 1]
    assert embed_batches([]) == []


def test_invalid_models_and_names_become_readable_refusals() -> None:
    with pytest.raises(InvalidRequest, match="That gang is not valid: reputation"):
        checked(lambda: gang("Ok", reputation=0), "gang")
    assert clean_name("  Ash   Wolves ") == "Ash Wolves"
    with pytest.raises(InvalidRequest, match="cannot be empty"):
        clean_name(" \t ")
    with pytest.raises(InvalidRequest, match="at most 100"):
        clean_name("x" * 101)
