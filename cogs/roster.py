"""/roster: the players' part of Update Roster (PB-6A to PB-6E) and deferral (PB-6B.8).

Each command runs one rules function in its sub-step of the gang's
post-battle run (:func:`bot.battle.interactive.act`): A Clean House
(``retire``, ``scrap``), B the Trading Post (``hire``, ``vehicle``,
``hangeron``, ``sell``, ``buy``, ``seek``, ``buyrare``), C Boons (``boon``),
D Distribute Equipment (``give``, ``take``), E Advancements (``advance``).

``defer`` ends the Trading Post, Distribute Equipment or Advancements now,
to come back to it later (PB-6B.8): it needs every player's and (in a
campaign) the Arbitrator's agreement. An Arbitrator's ``defer`` speaks for
everyone; a player's posts a question with Agree / Decline buttons. After
the sequence, ``reopen`` lets the gang act in a deferred sub-step again and
``done`` ends it; the gang's next ``/prebattle`` closes whatever is left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.battle.engine import act_in_stage, active_run_in
from bot.battle.interactive import (
    Agreement,
    AgreementOutcome,
    Bookkeeping,
    Compute,
    Stages,
    act,
    agree_as,
    new_agreement,
    note_result,
)
from bot.battle.state import PostBattleRun
from bot.call import Call, Interaction
from bot.cog import BotCog, adds, agreement
from bot.errors import Refused
from bot.lookup import pick_choice, pick_item
from bot.options import (
    AdvancementOption,
    AdvancementStat,
    BoonTerritory,
    BuyableItem,
    CampaignName,
    CarriedItem,
    DamagedVehicle,
    FighterName,
    FighterType,
    GangName,
    HangerOnType,
    NewName,
    RareItem,
    SkillName,
    SkillSetName,
    StashItem,
    StashVehicle,
    VehicleType,
)
from bot.render import safe
from bot.runs import own_gang_in_run, run_in
from bot.slash import FIGHTERS_GANG, slash_with, value_choices
from bot.storage import new_id
from bot.ui import bounded, checked, clean_name, typed_item
from rules.advancements import SkillSetNeeded, buy_advancement
from rules.boons import MAX_BOON_CREDITS, MAX_BOON_REPUTATION, BoonClaim, BoonsResult, claim_boons
from rules.cleanhouse import CrewChoice, retire, scrap_vehicle
from rules.dice import Roller
from rules.distribute import give_item, take_item
from rules.errors import InvalidRequest, NotFound
from rules.models import PROFILE_STATS, Gang
from rules.names import same_name
from rules.ruleset import RuleSet
from rules.sequence import DEFERRABLE, PostBattleSequence, Step, SubStep
from rules.tradingpost import (
    MAX_CREDITS,
    MAX_SPECIAL_MODIFIER,
    AvailabilityResult,
    buy_equipment,
    buy_rare_item,
    catalogue_entry,
    hire_fighter,
    purchase_vehicle,
    recruit_hanger_on,
    seek_rare_and_illegal,
    sell_item,
)
from rules.wording import possessive
from rules.world import RuleResult, World

if TYPE_CHECKING:
    pass

# These commands act in a gang's post-battle run: left out, it is the actor's.
slash = slash_with(gang="the gang (default: your gang in a post-battle sequence)")
CLEAN_HOUSE: Stages = ((Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE),)
TRADING_POST: Stages = ((Step.UPDATE_ROSTER, SubStep.TRADING_POST),)
BOONS: Stages = ((Step.UPDATE_ROSTER, SubStep.TERRITORY_BOONS),)
DISTRIBUTE: Stages = ((Step.UPDATE_ROSTER, SubStep.DISTRIBUTE_EQUIPMENT),)
ADVANCEMENTS: Stages = ((Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS),)
DEFER = "defer"

SUBSTEP_CHOICES = value_choices(DEFERRABLE)
CREW_CHOICES = [
    app_commands.Choice(name="takes another vehicle from the Stash", value="new"),
    app_commands.Choice(name="waits for a vehicle bought at the Trading Post", value="wait"),
    app_commands.Choice(name="retires", value="retire"),
]


def substep_named(value: str) -> SubStep:
    return pick_choice(DEFERRABLE, value,
                       lambda known: f"Only these sub-steps can be finished later: {known}.")


def stat_key(text: str) -> str:
    key = text.strip().lower()
    if key not in PROFILE_STATS:
        raise InvalidRequest(f"'{safe(text, 20)}' is not a characteristic: use "
                             f"{', '.join(s.upper() for s in PROFILE_STATS)}.")
    return key


class RosterCog(BotCog, commands.GroupCog, group_name="roster",
                group_description="Update Roster after a battle (step 6)"):
    # ------------------------------------------------------------------ A. Clean House

    @slash("retire", "A. Retire a fighter: gear to the Stash",
           fighter="the fighter who retires", gang=FIGHTERS_GANG)
    async def retire_(self, call: Call, fighter: FighterName,
                      gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await call.defer()
        async with call.read(campaign) as s:
            owner, who = await s.own_fighter(fighter, gang)
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=CLEAN_HOUSE,
                  compute=lambda world, _run, _roller: retire(world, owner.id, who.id))

    @slash("scrap", "A. Scrap a vehicle with Lasting Damage",
           vehicle="the vehicle to scrap", crew_choice="what its crew does",
           replacement="for 'takes another vehicle': the vehicle from the Stash")
    @app_commands.choices(crew_choice=CREW_CHOICES)
    async def scrap(self, call: Call, vehicle: DamagedVehicle,
                    crew_choice: str | None = None, replacement: StashVehicle | None = None,
                    gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await call.defer()
        async with call.read(campaign) as s:
            owner = await own_gang_in_run(s, gang)
        everything = [*owner.vehicles, *owner.stash_vehicles]
        scrapped = next((v for v in everything if same_name(v.name, vehicle)), None)
        if scrapped is None:
            raise NotFound(f"{safe(owner.name)} has no vehicle called '{safe(vehicle)}'.")
        choice = _crew_choice(owner, crew_choice, replacement)
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=CLEAN_HOUSE,
                  compute=lambda world, _run, _roller: scrap_vehicle(
                      world, owner.id, scrapped.id, choice))

    # ------------------------------------------------------------------ B. Trading Post

    @slash("hire", "B. Hire a fighter from the House List", name="the new fighter's name")
    async def hire(self, call: Call, fighter_type: FighterType, name: NewName,
                   gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await _recruit(call, hire_fighter, fighter_type, name, gang, campaign)

    @slash("vehicle", "B. Buy a vehicle from the House List",
           name="the vehicle's name",
           crew="a Crew fighter without a vehicle "
                           "(default: the vehicle waits in the Stash)")
    async def vehicle(self, call: Call, vehicle_type: VehicleType, name: NewName,
                      crew: FighterName | None = None, gang: GangName | None = None,
                      campaign: CampaignName | None = None) -> None:
        await call.defer()
        label = clean_name(name, "vehicle's name")
        async with call.read(campaign) as s:
            owner = await own_gang_in_run(s, gang)
        crew_id = s.fighter_of(owner, crew).id if crew else None
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=TRADING_POST,
                  compute=lambda world, _run, _roller: purchase_vehicle(
                      world, owner.id, s.ruleset, vehicle_type, label, new_id(), crew_id))

    @slash("hangeron", "B. Recruit a Hanger-on or Brute (Reputation allowing)",
           fighter_type="the Hanger-on or Brute", name="its name")
    async def hangeron(self, call: Call, fighter_type: HangerOnType, name: NewName,
                       gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await _recruit(call, recruit_hanger_on, fighter_type, name, gang,
                       campaign)

    @slash("sell", "B. Sell a Stash item: value minus D6x10", item="the Stash item")
    async def sell(self, call: Call, item: StashItem, gang: GangName | None = None,
                   campaign: CampaignName | None = None) -> None:
        await call.defer()
        async with call.read(campaign) as s:
            owner = await own_gang_in_run(s, gang)
        sold = pick_item(owner.stash, item, f"{possessive(owner.name)} Stash")
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=TRADING_POST,
                  compute=lambda world, run, roller: sell_item(
                      world, owner.id, sold.id, roller, run.sequence.id))

    @slash("buy", "B. Buy from a fighter's Equipment List, or Common items",
           fighter="buy from this fighter's own Equipment List, onto the fighter "
                "(default: a Common Trading Post item into the Stash)")
    async def buy(self, call: Call, item: BuyableItem,
                  fighter: FighterName | None = None, gang: GangName | None = None,
                  campaign: CampaignName | None = None) -> None:
        await call.defer()
        async with call.read(campaign) as s:
            if fighter:
                owner, who = await s.own_fighter(fighter, gang)
                fighter_id: str | None = who.id
            else:
                owner, fighter_id = await own_gang_in_run(s, gang), None
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=TRADING_POST,
                  compute=lambda world, _run, _roller: buy_equipment(
                      world, owner.id, s.ruleset, item, new_id(), fighter_id))

    @slash("seek", "B. Seek Rare & Illegal equipment (after a Trade action)",
           special_modifier="a modifier from special rules, -10 to +10 (default 0)")
    async def seek(
        self,
        call: Call,
        special_modifier: app_commands.Range[int, -MAX_SPECIAL_MODIFIER, MAX_SPECIAL_MODIFIER] = 0,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        await call.defer()
        bounded(special_modifier, -MAX_SPECIAL_MODIFIER, MAX_SPECIAL_MODIFIER,
                "A special rule modifier")
        async with call.read(campaign) as s:
            owner = await own_gang_in_run(s, gang)

        def compute(world: World, run: PostBattleRun, roller: Roller) -> RuleResult:
            run.sequence.require_unsought(owner.id, owner.name)
            traders = run.sequence.traders(world, owner.id)
            return seek_rare_and_illegal(world, owner.id, traders, roller, s.ruleset,
                                         special_modifier)

        def bookkeeping(run: PostBattleRun, result: RuleResult) -> None:
            assert isinstance(result, AvailabilityResult)
            run.sequence.record_availability(result.offer)

        await act(call.interaction, campaign=s.campaign, gang=owner, stages=TRADING_POST,
                  compute=compute, bookkeeping=bookkeeping)

    @slash("buyrare", "B. Buy a Rare or Illegal item your roll unlocked",
           item="an item the availability roll unlocked")
    async def buyrare(self, call: Call, item: RareItem,
                      gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await call.defer()
        async with call.read(campaign) as s:
            owner = await own_gang_in_run(s, gang)
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=TRADING_POST,
                  compute=lambda world, run, _roller: buy_rare_item(
                      world, owner.id, item, run.sequence.sought_offer(owner.id, owner.name),
                      new_id()))

    # ------------------------------------------------------------------ C. Boons

    @slash("boon", "C. Claim a Territory's Boon",
           territory="a Territory with a Boon that the gang controls",
           credits="credits the Boon gives", reputation="Reputation the Boon gives",
           item="an item the Boon gives (into the Stash; not sellable this sequence)",
           description="what the Boon gave, in your words",
           recruit_name="the name of a fighter the Boon may give (default: its type and the "
                     "Territory)")
    async def boon(
        self,
        call: Call,
        territory: BoonTerritory,
        credits: app_commands.Range[int, 0, MAX_BOON_CREDITS] = 0,
        reputation: app_commands.Range[int, 0, MAX_BOON_REPUTATION] = 0,
        item: BuyableItem | None = None,
        item_cost: app_commands.Range[int, 0, MAX_CREDITS] | None = None,
        description: app_commands.Range[str, 1, 200] | None = None,
        recruit_name: NewName | None = None,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        await call.defer()
        recruit = clean_name(recruit_name, "The recruit's name") if recruit_name else None
        bounded(credits, 0, MAX_BOON_CREDITS, "Boon credits")
        bounded(reputation, 0, MAX_BOON_REPUTATION, "Boon Reputation")
        bounded(item_cost, 0, MAX_CREDITS, "An item's cost")
        async with call.read(campaign) as s:
            owner = await own_gang_in_run(s, gang)
            held = await s.tx.list_territories(s.campaign.id, controller=owner.id)
        chosen = next((t for t in held if same_name(t.name, territory)), None)
        if chosen is None:
            raise NotFound(f"{safe(owner.name)} controls no Territory called "
                           f"'{safe(territory)}'.")
        entry = catalogue_entry(s.ruleset, owner, None, item)[0] if item else None
        items = [typed_item(new_id(), item, entry, item_cost)] if item else []
        claim = checked(lambda: BoonClaim(
            territory_id=chosen.id, credits=credits, reputation=reputation, items=items,
            description=(description or "").strip(),
            # A Boon the bot rolls may give a fighter: the id it will have, and its name.
            recruit_id=new_id(), recruit_name=recruit,
        ), "Boon")

        def compute(world: World, run: PostBattleRun, roller: Roller) -> RuleResult:
            return claim_boons(world, owner.id, run.sequence.id, [claim], s.ruleset,
                               run.sequence.claimed_boons(owner.id), roller=roller)

        def bookkeeping(run: PostBattleRun, result: RuleResult) -> None:
            assert isinstance(result, BoonsResult)
            run.sequence.record_boons(result)

        await act(call.interaction, campaign=s.campaign, gang=owner, stages=BOONS, compute=compute,
                  bookkeeping=bookkeeping)

    # ------------------------------------------------------------------ D. Distribute

    @slash("give", "D. Give a Stash item to a fighter",
           item="the Stash item", fighter="the fighter who takes it", gang=FIGHTERS_GANG)
    async def give(self, call: Call, item: StashItem, fighter: FighterName,
                   gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await call.defer()
        async with call.read(campaign) as s:
            owner, who = await s.own_fighter(fighter, gang)
        given = pick_item(owner.stash, item, f"{possessive(owner.name)} Stash")
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=DISTRIBUTE,
                  compute=lambda world, _run, _roller: give_item(
                      world, owner.id, given.id, who.id, s.ruleset))

    @slash("take", "D. Put a fighter's item back in the Stash",
           item="the item the fighter carries", gang=FIGHTERS_GANG)
    async def take(self, call: Call, item: CarriedItem, fighter: FighterName,
                   gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await call.defer()
        async with call.read(campaign) as s:
            owner, who = await s.own_fighter(fighter, gang)
        carried = pick_item(who.equipment, item, fighter)
        await act(call.interaction, campaign=s.campaign, gang=owner, stages=DISTRIBUTE,
                  compute=lambda world, _run, _roller: take_item(
                      world, owner.id, carried.id, who.id, s.ruleset))

    # ------------------------------------------------------------------ E. Advancements

    @slash("advance", "E. Spend a fighter's XP on an advancement",
           option="the advancement (Gangers: the Ganger advancement roll)",
           stat="the characteristic, when the advancement offers a choice",
           skill="for a chosen skill: its name (the skill set's skills are suggested)",
           skill_set="the skill set: a random skill's, a chosen skill's, or (Gangers' roll) a "
                  "promotion's",
           gang=FIGHTERS_GANG)
    async def advance(self, call: Call, fighter: FighterName,
                      option: AdvancementOption, stat: AdvancementStat | None = None,
                      skill: SkillName | None = None, skill_set: SkillSetName | None = None,
                      gang: GangName | None = None, campaign: CampaignName | None = None) -> None:
        await call.defer()
        chosen_stat = stat_key(stat) if stat else None
        async with call.read(campaign) as s:
            owner, who = await s.own_fighter(fighter, gang)

        def compute(world: World, run: PostBattleRun, roller: Roller) -> RuleResult:
            try:
                return buy_advancement(world, owner.id, who.id, option, s.ruleset, roller,
                                       chosen_stat, skill=skill, skill_set=skill_set,
                                       skirmish=run.sequence.skirmish)
            except SkillSetNeeded as needed:
                raise InvalidRequest(
                    f"{possessive(who.name)} Ganger advancement roll needs the skill_set "
                    "option first: a promotion rolls a random skill on it. Skill sets of this "
                    f"campaign: {', '.join(needed.skill_sets)}. Nothing was rolled."
                ) from needed

        await act(call.interaction, campaign=s.campaign, gang=owner, stages=ADVANCEMENTS,
                  compute=compute)

    # ------------------------------------------------------------------ PB-6B.8 deferral

    @slash("defer", "Finish a sub-step later (all players and the Arbitrator "
                                      "agree)",
           substep="the sub-step to finish later")
    @app_commands.choices(substep=SUBSTEP_CHOICES)
    async def defer(self, call: Call, substep: str, gang: GangName | None = None,
                    campaign: CampaignName | None = None) -> None:
        chosen = substep_named(substep)
        async with call.read(campaign) as s:
            owner = await own_gang_in_run(s, gang)
            run = await run_in(s, owner)
            # Refuse now what the rules would refuse anyway (over, skirmish, closed).
            run.sequence.model_copy(deep=True).defer(owner.id, chosen, run.gang_ids, True)
            world = await s.tx.load_world(s.campaign.id, run.gang_ids)
        gangs = [world.gang(gang_id) for gang_id in run.gang_ids]
        if s.is_arbitrator:
            steps = _deferral(owner, chosen, run.gang_ids, True, on_behalf=True)
        else:
            question = (
                f"⏸️ **{safe(owner.name)}** asks to finish **{chosen.value}** later, up to its "
                "next pre-battle sequence. Every player"
                + ("" if run.sequence.skirmish else " and an Arbitrator") + " must agree."
            )
            agreement = new_agreement(
                DEFER, s.campaign.id, question, gangs, proposed_by=call.actor.user_id,
                needs_arbitrator=not run.sequence.skirmish,
                details={"gang_id": owner.id, "substep": chosen.value},
            )
            agree_as(agreement, s.campaign, gangs, call.interaction)
            if not agreement.complete:
                await self.ask(call, agreement)
                return
            steps = _deferral(owner, chosen, agreement.agreed, agreement.arbitrator_agreed,
                              on_behalf=False)
        compute, bookkeeping = steps
        await act(call.interaction, campaign=s.campaign, gang=owner,
                  stages=[run.sequence.stage], compute=compute, bookkeeping=bookkeeping)

    @agreement(DEFER)
    async def _deferral_agreed(
        self, interaction: Interaction, agreement: Agreement
    ) -> AgreementOutcome:
        call = Call.of(interaction)
        async with call.read_in(agreement.campaign_id) as s:
            owner = await s.tx.get_gang(s.campaign.id, str(agreement.details["gang_id"]))
            run = await run_in(s, owner)
        chosen = substep_named(str(agreement.details["substep"]))
        compute, bookkeeping = _deferral(owner, chosen, agreement.agreed,
                                         agreement.arbitrator_agreed, on_behalf=False)
        done = await act_in_stage(interaction, campaign=s.campaign, gang=owner,
                                  stages=[run.sequence.stage], compute=compute,
                                  bookkeeping=bookkeeping)
        return AgreementOutcome(summary=" ".join(done.lines))

    @slash("reopen", "Come back to a sub-step you deferred")
    @app_commands.choices(substep=SUBSTEP_CHOICES)
    async def reopen(self, call: Call, substep: str, gang: GangName | None = None,
                     campaign: CampaignName | None = None) -> None:
        owner, chosen = await _change_deferred(call, substep, gang, campaign,
                                               PostBattleSequence.reopen)
        await call.say(
            f"**{safe(owner.name)}** is back in **{chosen.value}**: use the /roster "
            "commands of that sub-step, then `/roster done`."
        )

    @slash("done", "End a deferred sub-step")
    @app_commands.choices(substep=SUBSTEP_CHOICES)
    async def done(self, call: Call, substep: str, gang: GangName | None = None,
                   campaign: CampaignName | None = None) -> None:
        owner, chosen = await _change_deferred(call, substep, gang, campaign,
                                               PostBattleSequence.end_deferred)
        await call.say(f"**{safe(owner.name)}** has finished **{chosen.value}**.")


Recruit = Callable[[World, str, RuleSet, str, str, str], RuleResult]


async def _recruit(call: Call, recruit: Recruit, fighter_type: str, name: str,
                   gang: str | None, campaign: str | None) -> None:
    """Hire a fighter or recruit a Hanger-on: the same steps, another rules function."""
    await call.defer()
    recruit_name = clean_name(name, "fighter's name")
    async with call.read(campaign) as s:
        owner = await own_gang_in_run(s, gang)
    await act(call.interaction, campaign=s.campaign, gang=owner, stages=TRADING_POST,
              compute=lambda world, _run, _roller: recruit(
                  world, owner.id, s.ruleset, fighter_type, recruit_name, new_id()))


def _crew_choice(gang: Gang, choice: str | None, replacement: str | None) -> CrewChoice | None:
    if choice is None:
        if replacement:
            raise InvalidRequest("A replacement is for crew_choice 'takes another vehicle'.")
        return None
    if choice == "retire":
        return CrewChoice.retire()
    if choice == "wait":
        return CrewChoice.await_purchase()
    if choice != "new":
        raise InvalidRequest("crew_choice is one of: new, wait, retire.")
    if not replacement:
        raise InvalidRequest("Name the Stash vehicle the crew takes (replacement).")
    spare = next((v for v in gang.stash_vehicles if same_name(v.name, replacement)), None)
    if spare is None:
        raise NotFound(f"{possessive(safe(gang.name))} Stash has no vehicle called "
                       f"'{safe(replacement)}'.")
    return CrewChoice.new_vehicle(spare.id)


def _deferral(
    gang: Gang, substep: SubStep, agreed_by: Sequence[str], arbitrator: bool, *, on_behalf: bool
) -> tuple[Compute, Bookkeeping]:
    """compute and bookkeeping that record a deferral (the rules check it twice: safe)."""
    why = ("an Arbitrator agreed on everyone's behalf" if on_behalf
           else "every player" + (" and an Arbitrator" if arbitrator else "") + " agreed")

    def compute(world: World, run: PostBattleRun, _roller: Roller) -> RuleResult:
        run.sequence.model_copy(deep=True).defer(gang.id, substep, agreed_by, arbitrator)
        return note_result(world, "PB-6B.8", f"{gang.name} finishes {substep.value} later", [
            f"{gang.name} will finish {substep.value} later, up to its next pre-battle "
            f"sequence ({why}): /roster reopen, then /roster done."
        ])

    def bookkeeping(run: PostBattleRun, _result: RuleResult) -> None:
        run.sequence.defer(gang.id, substep, agreed_by, arbitrator)

    return compute, bookkeeping


async def _change_deferred(
    call: Call, substep: str, gang: str | None, campaign: str | None,
    change: Callable[[PostBattleSequence, str, SubStep], None],
) -> tuple[Gang, SubStep]:
    """Reopen or end a deferred sub-step of the gang's run, saved in one transaction."""
    chosen = substep_named(substep)
    async with call.write(campaign) as s:
        owner = await own_gang_in_run(s, gang)
        run = await active_run_in(s.tx, s.campaign.id, owner.id)
        if run is None:
            raise Refused(f"{safe(owner.name)} has no post-battle sequence with a deferred "
                          "sub-step.")
        change(run.sequence, owner.id, chosen)
        await s.tx.save_sequence(s.campaign.id, run.key, run, battle_id=run.battle_id)
    return owner, chosen


setup = adds(RosterCog)
