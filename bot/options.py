"""Typed options: a name a player types, with its suggestions, as one annotation.

``gang: GangName`` on a command declares a string option of 1 to 100
characters whose autocomplete offers the campaign's gangs; the command body
gets the text as typed and looks it up in its scope
(``await s.own_gang(gang)``, bot/call.py), where the lookup and its refusal
live. So a command carries no ``@app_commands.autocomplete`` decorators and
no lookups of its own.

Suggestions never fail loudly (bot/autocomplete.py): a refusal or a storage
problem offers nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot import autocomplete as suggest
from bot import runs

if TYPE_CHECKING:
    from bot.app import MundaBot

Choices = list[app_commands.Choice[str]]
Suggest = Callable[[discord.Interaction["MundaBot"], str], Awaitable[Choices]]

NAME_MAX = 100


class NameOption(app_commands.Transformer["MundaBot"]):
    """A string option of 1 to ``longest`` characters whose suggestions come from ``source``."""

    def __init__(self, source: Suggest, longest: int = NAME_MAX) -> None:
        self._source = source
        self._longest = longest

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return self._longest

    async def transform(self, interaction: discord.Interaction[MundaBot], value: Any, /) -> str:
        return str(value)

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[MundaBot], value: int | float | str, /
    ) -> Choices:
        return await self._source(interaction, str(value))


def named(source: Suggest, longest: int = NAME_MAX) -> NameOption:
    return NameOption(source, longest)


# A new name (nothing to suggest): Discord's client bounds its length.
NewName = app_commands.Range[str, 1, NAME_MAX]

CampaignName = app_commands.Transform[str, named(suggest.campaign_names)]
GangName = app_commands.Transform[str, named(suggest.gang_names)]
FighterName = app_commands.Transform[str, named(suggest.fighter_names)]
VehicleName = app_commands.Transform[str, named(suggest.vehicle_names)]
TerritoryName = app_commands.Transform[str, named(suggest.territory_names)]
TerritoryTemplate = app_commands.Transform[str, named(suggest.territory_templates)]
TimeZoneName = app_commands.Transform[str, named(suggest.time_zones, 64)]
HouseName = app_commands.Transform[str, named(suggest.house_names)]
CampaignTypeName = app_commands.Transform[str, named(suggest.campaign_types)]
PhaseName = app_commands.Transform[str, named(suggest.phase_names)]
FighterType = app_commands.Transform[str, named(suggest.fighter_types)]
StashItem = app_commands.Transform[str, named(suggest.stash_item_names)]
TradingPostItem = app_commands.Transform[str, named(suggest.trading_post_items)]
CarriedItem = app_commands.Transform[str, named(suggest.carried_items)]
EquippableItem = app_commands.Transform[str, named(suggest.equippable_items)]
CaptiveName = app_commands.Transform[str, named(suggest.captive_names)]
VehicleType = app_commands.Transform[str, named(suggest.vehicle_types)]
DamageName = app_commands.Transform[str, named(suggest.damage_names)]
VehicleDamage = app_commands.Transform[str, named(suggest.current_damage)]
StashVehicle = app_commands.Transform[str, named(suggest.stash_vehicles)]
DamagedVehicle = app_commands.Transform[str, named(suggest.damaged_vehicles)]
HangerOnType = app_commands.Transform[str, named(suggest.hanger_on_types)]
BuyableItem = app_commands.Transform[str, named(suggest.buyable_items)]
BoonTerritory = app_commands.Transform[str, named(suggest.boon_territories)]
AdvancementOption = app_commands.Transform[str, named(suggest.advancement_options)]
PromotionType = app_commands.Transform[str, named(suggest.promotion_types)]
# Characteristics are short ("WS", "Int"): 10 characters are plenty.
AdvancementStat = app_commands.Transform[str, named(suggest.advancement_stats, 10)]
ScenarioName = app_commands.Transform[str, named(suggest.scenario_names)]
SkillSetName = app_commands.Transform[str, named(suggest.skill_set_names)]
SkillName = app_commands.Transform[str, named(suggest.skill_names)]
# A battle is named by its stored id (64 characters at most).
BattleId = app_commands.Transform[str, named(suggest.battle_ids, 64)]
UnstartedBattle = app_commands.Transform[str, named(suggest.unstarted_battles, 64)]
Winner = app_commands.Transform[str, named(suggest.winners)]

# Suggestions read from the gang's post-battle run (bot/runs.py).
RareItem = app_commands.Transform[str, named(runs.rare_items)]
OpenAction = app_commands.Transform[str, named(runs.open_actions)]
ActionTarget = app_commands.Transform[str, named(runs.action_targets)]
ActingFighter = app_commands.Transform[str, named(runs.acting_fighters)]
