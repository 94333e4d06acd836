"""/challenge: challenges of the campaign's open cycle, in its challenge order.

Who may do what (docs/arbitrator.md, "The campaign week"):
- ``new`` and ``pass``: the gang's owner, in the gang's turn of the cycle's
  challenge order, or an Arbitrator for them.
- The Accept and Decline buttons of a challenge: the defending gang's owner, or
  an Arbitrator answering for them (as an Arbitrator confirms a post-battle step
  on a player's behalf); anyone else's click is refused.
- ``list``: anyone.

The rules (turn, stake, limits, a decline's claim) are rules/challenges.py's;
each change is one transaction with its ledger action (bot/cycles.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.battle.publish import deliver_owed
from bot.call import Call, Scope
from bot.cog import BotCog, adds
from bot.cycles import (
    CHALLENGE_CLAUSE,
    accepted,
    battles_between,
    owe_answer_post,
    record,
    stored_calendar,
)
from bot.errors import Refused
from bot.lookup import pick
from bot.options import CampaignName, GangName, TerritoryName
from bot.render import safe
from bot.slash import slash
from bot.ui import lines_embeds
from bot.ui.cycles import ANSWER, calendar_lines, challenge_line
from bot.ui.routes import Choice, Click, Id, Int, route
from rules.challenges import answer, declined_claim, make_challenge, pass_turn
from rules.cycles import Challenge, ChallengeStatus
from rules.errors import NotFound
from rules.world import RuleResult

if TYPE_CHECKING:
    from bot.app import MundaBot


class ChallengeCog(BotCog, commands.GroupCog, group_name="challenge",
                   group_description="Challenges of the campaign's cycle"):
    @slash("new", "Challenge another gang, in your turn of the challenge order",
           gang="your gang, the challenger", opponent="the gang you challenge",
           territory="the Territory at stake (none where the phase fights for none)")
    async def new(
        self, call: Call, gang: GangName, opponent: GangName,
        territory: TerritoryName | None = None, campaign: CampaignName | None = None,
    ) -> None:
        now = self.bot.clock.now()
        async with call.write(campaign) as s:
            calendar, revision = await stored_calendar(s.tx, s.campaign)
            challenger = await s.own_gang(gang)
            defender = await s.gang(opponent)
            territories = await s.territories()
            staked = None if territory is None else pick(
                territories, territory,
                f"There is no Territory called '{territory}' in {s.campaign.name}.")
            names = await _names(s)
            changed, made = make_challenge(calendar, challenger, defender, staked, territories,
                                           names, now)
            where = {t.id: t.name for t in territories}
            line = challenge_line(made, names, where)
            action = await record(s.tx, s.campaign, changed, revision, actor=s.by,
                                  clause=CHALLENGE_CLAUSE,
                                  title=f"Challenge #{made.number} made", notes=[line])
            await owe_answer_post(s.tx, s.campaign, changed, made, defender, line,
                                  key=f"challenge:{s.campaign.id}:{action}")
        await deliver_owed(self.bot, call.guild_id)
        await call.tell(f"Challenge #{made.number} made; it is posted in "
                        f"<#{changed.channel_id}> for {safe(defender.name)} to answer.")

    @slash("pass", "Let your gang's turn in the challenge order go without challenging",
           gang="the gang whose turn it is")
    async def pass_(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None
    ) -> None:
        async with call.write(campaign) as s:
            calendar, revision = await stored_calendar(s.tx, s.campaign)
            passing = await s.own_gang(gang)
            names = await _names(s)
            changed = pass_turn(calendar, passing, names)
            cycle = changed.open_cycle()
            await record(s.tx, s.campaign, changed, revision, actor=s.by,
                         clause=CHALLENGE_CLAUSE,
                         title=f"{passing.name} passes its turn in cycle {cycle.number}")
        turn = cycle.turn_among(names)
        following = (f" Next to challenge: **{safe(names[turn])}**." if turn in names
                     else " Every gang has had its turn.")
        await call.say(f"**{safe(passing.name)}** lets its turn go.{following}")

    @slash("list", "The open cycle's challenge order and challenges")
    async def list_(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as s:
            calendar, _ = await stored_calendar(s.tx, s.campaign)
            names = await _names(s)
            territories = {t.id: t.name for t in await s.territories()}
        await call.answer_embeds(lines_embeds(f"{safe(s.campaign.name)}: challenges",
                                              calendar_lines(calendar, names, territories),
                                              colour=discord.Colour.dark_gold()))


async def _names(s: Scope) -> dict[str, str]:
    gangs = await s.tx.gangs_without_rosters(s.campaign.id, None)
    return {gang_id: gang.name for gang_id, gang in gangs.items()}


@route(ANSWER, Id("campaign"), Int("number", 6), Choice("choice", "accept", "decline"))
async def answer_challenge(click: Click, campaign: str, number: int, choice: str) -> None:
    """The defender's owner (or an Arbitrator) accepts or declines, in one transaction."""
    interaction = click.interaction
    client: MundaBot = interaction.client
    call = Call.of(interaction)
    async with call.write_in(campaign) as s:
        calendar, revision = await stored_calendar(s.tx, s.campaign)
        challenge = calendar.challenge(number)
        try:
            found = await s.tx.gangs_without_rosters(
                campaign, [challenge.challenger, challenge.defender])
        except NotFound:
            raise Refused("A gang of this challenge has left the campaign: it can no longer "
                          "be answered.") from None
        defender = found[challenge.defender]
        if not s.controls(defender):
            raise Refused(f"Only {defender.name}'s player, or an Arbitrator, can answer "
                          "this challenge.")
        accepting = choice == "accept"
        # Every battle of the campaign is read only to count an acceptance's battles before.
        between = battles_between(await s.tx.list_battles(campaign, limit=None),
                                  challenge) if accepting else 0
        changed, answered = answer(calendar, number, accepting, client.clock.now(), between)
        names = {gang_id: gang.name for gang_id, gang in found.items()}
        territories = {t.id: t.name for t in await s.territories()}
        line = challenge_line(answered, names, territories)
        result = None
        if answered.status is ChallengeStatus.DECLINED:
            world = await s.tx.load_world(campaign, [challenge.challenger, challenge.defender])
            result = declined_claim(world, answered)
        await record(s.tx, s.campaign, changed, revision, actor=s.by, clause=CHALLENGE_CLAUSE,
                     title=f"Challenge #{number} {answered.status.value}", notes=[line],
                     result=result)
        if answered.status is ChallengeStatus.ACCEPTED:
            await accepted(s.tx, s.campaign, answered)
    await interaction.response.edit_message(content=_answered_text(answered, line, result),
                                            view=None)


def _answered_text(challenge: Challenge, line: str, result: RuleResult | None) -> str:
    if challenge.status is ChallengeStatus.ACCEPTED:
        return (f"{line}: the battle is on. Propose when it is played with /schedule "
                "propose; /prebattle when the gangs meet stakes the Territory.")
    notes = result.notes if result is not None else []
    return f"{line}. " + " ".join(safe(note, 300) for note in notes)


setup = adds(ChallengeCog)
