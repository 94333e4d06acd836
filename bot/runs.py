"""The post-battle run a command acts in, read inside the command's scope.

The post-battle commands (/rewards, /action, /roster) act in a gang's run:
:func:`own_gang_in_run` finds the gang (named, or the actor's one gang in a
run), :func:`run_in` its run, and :class:`Situation` what its fighters may
do now in the Post-battle Actions step. They read in the command's read
scope (bot/call.py); acting happens afterwards in
:func:`bot.battle.interactive.act`, which reads the run again in its own
write transaction.

The suggestions that depend on the run (what an availability roll unlocked,
the actions open to a fighter, their targets, the fighters who may still
act) are here too, read the same way and never failing loudly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.autocomplete import Choices, choose, choose_many, suggest_in, typed
from bot.battle.engine import active_run_in, load_battle_world
from bot.battle.flow import no_run_in_progress
from bot.battle.state import PostBattleRun
from bot.call import Scope, actor_from
from bot.errors import Refused
from bot.lookup import choice_named, pick_choice
from bot.render import safe
from bot.storage import Campaign, Transaction
from rules.actions import ActionKind, available_actions, eligible_actors
from rules.errors import InvalidRequest, RulesError
from rules.models import Battle, Fighter, Gang, Vehicle
from rules.world import World

if TYPE_CHECKING:
    from bot.call import Interaction

# The post-battle actions that deal with a captive the gang holds (PB-5.2 to PB-5.4).
CAPTIVE_KINDS = frozenset({ActionKind.SELL_TO_GUILDERS, ActionKind.CLAIM_BOUNTY,
                           ActionKind.DISPOSE_OF_CAPTIVE})


async def run_in(s: Scope, gang: Gang) -> PostBattleRun:
    """The gang's active post-battle run, or a polite refusal."""
    run = await active_run_in(s.tx, s.campaign.id, gang.id)
    if run is None:
        raise no_run_in_progress(gang)
    return run


async def gangs_in_runs(s: Scope) -> list[Gang]:
    """The actor's own gangs that are in a post-battle run."""
    mine = await s.gangs(owner=s.by)
    return [g for g in mine if await active_run_in(s.tx, s.campaign.id, g.id) is not None]


async def gang_in_run(s: Scope, name: str | None) -> Gang:
    """The named gang, or the actor's one gang in a post-battle sequence."""
    if name:
        return await s.gang(name)
    active = await gangs_in_runs(s)
    if len(active) == 1:
        return active[0]
    if not active:
        raise Refused("You have no gang in a post-battle sequence: name the gang.")
    raise InvalidRequest("You have several gangs in post-battle sequences: name the gang.")


async def own_gang_in_run(s: Scope, name: str | None) -> Gang:
    """:func:`gang_in_run`, for a change: the actor must control the gang."""
    gang = await gang_in_run(s, name)
    s.require_control(gang)
    return gang


class Situation:
    """A gang in its run: the battle, the world and which post-battle actions are open."""

    def __init__(self, run: PostBattleRun, battle: Battle, world: World, gang: Gang) -> None:
        self.run = run
        self.battle = battle
        self.world = world
        self.gang = world.gang(gang.id)

    def open_to(self, fighter: Fighter) -> list[ActionKind]:
        return available_actions(self.world, self.gang.id, fighter.id, self.battle,
                                 self.run.sequence.already_acted(self.gang.id))

    def captives(self) -> list[tuple[Gang, Fighter]]:
        return self.world.captives_held_by(self.gang.id)

    def patients(self) -> list[Fighter]:
        return [f for f in self.gang.fighters if f.critical_injury and f.on_roster]

    def damaged_vehicles(self) -> list[Vehicle]:
        return [v for v in (*self.gang.vehicles, *self.gang.stash_vehicles) if v.lasting_damage]

    def targets(self, kind: ActionKind | None) -> list[str]:
        captives = [f.name for _g, f in self.captives()]
        patients = [f.name for f in self.patients()]
        vehicles = [v.name for v in self.damaged_vehicles()]
        if kind in CAPTIVE_KINDS:
            return captives
        if kind is ActionKind.MEDICAL_ESCORT:
            return patients
        if kind is ActionKind.NEGOTIATE_REPAIRS:
            return vehicles
        return [*captives, *patients, *vehicles]


async def situation(s: Scope, gang: Gang) -> Situation:
    run = await run_in(s, gang)
    battle = await s.tx.get_battle(s.campaign.id, run.battle_id)
    return Situation(run, battle, await load_battle_world(s.tx, s.campaign.id, run), gang)


def action_kind(text: str) -> ActionKind:
    return pick_choice(ActionKind, text, lambda known: (
        f"'{safe(text, 40)}' is not a post-battle action: choose {known}."))


# --------------------------------------------------------------------------- suggestions


def _scope(tx: Transaction, campaign: Campaign, interaction: Interaction) -> Scope:
    """The scope a suggestion reads in: the read transaction, seen by the one typing."""
    return Scope(actor_from(interaction), tx, campaign)


async def rare_items(interaction: Interaction, current: str) -> Choices:
    """What the gang's Seek Rare & Illegal roll unlocked."""

    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        gang = await gang_in_run(_scope(tx, campaign, interaction), typed(interaction, "gang"))
        run = await active_run_in(tx, campaign.id, gang.id)
        offer = run.sequence.offer(gang.id) if run else None
        return offer.unlocked_names if offer else []

    return await suggest_in(interaction, current, names)


async def _named_situation(
    interaction: Interaction, tx: Transaction, campaign: Campaign
) -> tuple[Situation | None, Fighter | None]:
    """The gang (and fighter) the command being typed names, in its run."""
    s = _scope(tx, campaign, interaction)
    fighter_name, gang_name = typed(interaction, "fighter"), typed(interaction, "gang")
    fighter: Fighter | None = None
    if fighter_name:
        gang, fighter = await s.fighter(fighter_name, gang_name)
    elif gang_name:
        gang = await s.gang(gang_name)
    else:
        return None, None
    return await situation(s, gang), fighter


async def open_actions(interaction: Interaction, current: str) -> Choices:
    """Only the actions open to the chosen fighter now."""

    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        found, fighter = await _named_situation(interaction, tx, campaign)
        return [kind.value for kind in found.open_to(fighter)] if found and fighter else []

    return await suggest_in(interaction, current, names)


async def action_targets(interaction: Interaction, current: str) -> Choices:
    """Captives, patients or damaged vehicles, as the chosen action needs."""

    wanted = typed(interaction, "action")
    try:
        kind = choice_named(ActionKind, wanted) if wanted else None
    except RulesError:
        kind = None

    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        found, _fighter = await _named_situation(interaction, tx, campaign)
        return found.targets(kind) if found else []

    # One captive action takes any number of captives: a comma list.
    chooser = choose_many if kind in CAPTIVE_KINDS else choose
    return await suggest_in(interaction, current, names, chooser)


async def acting_fighters(interaction: Interaction, current: str) -> Choices:
    """Fighters of the named gang (or of the actor's gangs) that may still act."""

    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        s = _scope(tx, campaign, interaction)
        gang_name = typed(interaction, "gang")
        gangs = [await s.gang(gang_name)] if gang_name else await s.gangs(owner=s.by)
        found: list[str] = []
        for gang in gangs:
            try:
                here = await situation(s, gang)
            except (RulesError, Refused):
                continue
            found += [f.name for f in eligible_actors(here.world, gang.id, here.battle)
                      if here.open_to(f)]
        return found

    return await suggest_in(interaction, current, names)

