"""``munda-arbitrator demo``: see the whole thing work without a Discord token.

The demo starts the project's fake Discord on 127.0.0.1 and the real bot as
its own process against it, with a fresh database in a temporary folder,
then plays a scripted campaign as three people would (alice and bob own
gangs, carol is the Arbitrator): a campaign, two gangs, fighters, a
territory, a refused edit, a pre-battle sequence and a whole post-battle
sequence with both players confirming every step. It prints the channels as
a readable transcript. ``--rules-only`` prints the rules engine's sequence
without Discord instead (demo/rules_only.py). ``--pictures DIR`` also writes
the pictures of the game to DIR: the roster card and the campaign chart as
the bot attached them in the channel, and the battle's report card and small
chart drawn from the demo's database at the end (bot/ui/pictures.py).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypeVar

from bot.pictures import PictureWorker
from bot.report_record import composed_report
from bot.storage import Storage
from bot.ui.pictures import battle_report_pictures
from demo.arena import TOKEN, Arena, open_arena
from demo.rules_only import run_rules_demo
from fakediscord import FakeDiscord, InteractionResult
from fakediscord.entities import Channel, Message
from fakediscord.timeline import Timeline

T = TypeVar("T")

GUILD, CHANNEL, REPORTS = "Underhive", "general", "campaign"
CAMPAIGN = "Dust Falls"
SLAG, VENOM = "The Slag Lords", "The Venom Court"
ROSTERS = {
    SLAG: ("alice", "Goliath", "Law Abiding", [
        ("Krull Ironhand", "Goliath Forge Tyrant"), ("Dreg Slagjaw", "Goliath Forge Boss"),
        ("Vosk", "Goliath Bruiser"), ("Gorrak", "Goliath Bruiser"), ("Pip", "Goliath Bully"),
    ]),
    VENOM: ("bob", "Escher", "Outlaw", [
        ("Sable Nightshade", "Gang Queen"), ("Lyra Venom", "Gang Matriarch"),
        ("Mira", "Sister"), ("Zell", "Sister"), ("Tansy", "Little Sister"),
    ]),
}


class DemoFailed(RuntimeError):
    """The scripted game could not go on; the message says where."""


def run_demo(*, seed: int, rules_only: bool, out: TextIO = sys.stdout,
             pictures: Path | None = None) -> int:
    if rules_only:
        return run_rules_demo(seed=seed, out=out)
    with tempfile.TemporaryDirectory(prefix="munda-demo-") as folder:
        try:
            transcript, written = asyncio.run(play(Path(folder), pictures))
        except DemoFailed as error:
            print(f"munda-arbitrator demo: {error}", file=sys.stderr)
            return 1
    out.write(transcript)
    if written:
        out.write("\nPictures written: " + ", ".join(str(p) for p in written) + "\n")
    return 0


async def play(workdir: Path, pictures: Path | None = None) -> tuple[str, list[Path]]:
    """Play the scripted campaign; return the channels' transcript and the pictures written."""
    fake = FakeDiscord.demo(token=TOKEN)
    # Kept from before the bot connects: the transcript is the channels in time order.
    timeline = Timeline(fake.world)
    async with open_arena(workdir, fake=fake, log_level="WARNING") as arena:
        script = Script(arena, timeline)
        await script.campaign_and_gangs()
        await script.battle()
        written = await script.pictures(pictures) if pictures is not None else []
        return script.transcript(), written


class Script:
    def __init__(self, arena: Arena, timeline: Timeline) -> None:
        self.arena = arena
        self.driver = arena.driver
        self.timeline = timeline

    async def say(self, user: str, command: str, *, where: Channel | str = CHANNEL,
                  **options: Any) -> InteractionResult:
        result = await self.driver.slash(GUILD, where, user, command, **options)
        if "Something went wrong" in result.text():
            raise DemoFailed(f"/{command} failed: {result.text()}\n{self.arena.log_tail()}")
        return result

    async def campaign_and_gangs(self) -> None:
        await self.say("carol", "campaign create", name=CAMPAIGN, report_channel=REPORTS)
        for gang, (owner, house, alignment, fighters) in ROSTERS.items():
            await self.say(owner, "gang create", name=gang, house=house, alignment=alignment,
                           credits=300)
            # Every type comes with its profile from the shipped House List.
            for name, fighter_type in fighters:
                await self.say(owner, "fighter add", gang=gang, name=name,
                               fighter_type=fighter_type)
        # Their own Equipment Lists' prices: a Boltgun (Rare (8) at the Trading Post) and a
        # Lasgun at 5 (15 at the Trading Post).
        await self.say("alice", "fighter equip", fighter="Krull Ironhand", item="Boltgun")
        await self.say("bob", "fighter equip", fighter="Lyra Venom", item="Lasgun")
        await self.say("carol", "campaign territory add", name="Old Ruins", template="Old Ruins")
        await self.say("carol", "campaign territory assign", territory="Old Ruins", gang=VENOM)
        # A player tries to touch another's gang: refused, privately, nothing changed.
        await self.say("bob", "gang edit", gang=SLAG, reputation=1)
        await self.say("alice", "gang show", gang=SLAG)
        await self.say("bob", "roll", expression="2D6", purpose="bragging rights")

    async def battle(self) -> None:
        await self.say("alice", "prebattle", gang1=SLAG, gang2=VENOM, battlefield="Zone Mortalis")
        battles = await self.driver.autocomplete(GUILD, CHANNEL, "alice", "postbattle start",
                                                 focused="battle", battle="", winner=SLAG)
        if not battles:
            raise DemoFailed("the pre-battle sequence recorded no battle")
        await self.say("alice", "postbattle start", winner=SLAG, battle=battles[0].value,
                       territory="Old Ruins")
        thread = await self.until(self.battle_thread, "the battle's thread")
        await self.report(thread, VENOM, "bob", "ooa", ["Zell"])
        await self.report(thread, SLAG, "alice", "enemies", ["1"])
        for gang, owner in ((SLAG, "alice"), (VENOM, "bob")):
            panel = await self.until(partial(self.panel, thread, gang),
                                     f"the report panel of {gang}")
            await self.driver.click(panel, "Submit", owner)
        await self.steps(thread)
        await self.until(self.report_posted, "the battle report")

    async def steps(self, thread: Channel) -> None:
        """Both players confirm every step; they act where the step invites it."""
        acted: set[str] = set()
        for _ in range(30):
            stage = await self.until(lambda: self.open_stage(thread) or self.finished(thread),
                                     "the next step")
            if stage is True:
                return
            assert isinstance(stage, Message)
            title = str(stage.embeds[0].get("title", ""))
            if "Receive Rewards" in title and "rewards" not in acted:
                acted.add("rewards")
                await self.say("alice", "rewards claim", where=thread, gang=SLAG,
                               credit_dice=2, reputation_gain=1, reason="won the battle")
            if "Post-battle Actions" in title and "actions" not in acted:
                acted.add("actions")
                await self.say("alice", "action take", where=thread, fighter="Dreg Slagjaw",
                               action="Trade")
            if "Visit the Trading Post" in title and "trading" not in acted:
                acted.add("trading")
                await self.say("alice", "roster seek", where=thread, gang=SLAG)
            for player in ("alice", "bob"):
                current = await self.until(lambda: self.open_stage(thread), "the step")
                await self.driver.click(current, "Confirm", player)
            await self.until(partial(self.moved_on, thread, stage), "the next step to open")
        raise DemoFailed("the post-battle sequence did not finish")

    async def report(self, thread: Channel, gang: str, user: str, section: str,
                     values: list[str]) -> None:
        panel = await self.until(lambda: self.panel(thread, gang), f"the panel of {gang}")
        changed = await self.driver.select(panel, "Report which part?", [section], user)
        await changed.wait_for_update()
        panel = await self.until(lambda: self.panel(thread, gang), f"the panel of {gang}")
        select = next(s for s in panel.selects
                      if str(s.get("custom_id", "")).startswith("munda:pb:pick:"))
        chosen = await self.driver.select(panel, select["custom_id"], values, user)
        await chosen.wait_for_update()

    async def pictures(self, folder: Path) -> list[Path]:
        """The roster card (the Slag Lords with a vehicle added) and the chart as posted, and
        the battle's report pictures."""
        folder.mkdir(parents=True, exist_ok=True)
        # A crew and its vehicle, so the card shows a vehicle's profile beside the fighters'.
        await self.say("alice", "fighter add", gang=SLAG, name="Rusk", fighter_type="Road Thug")
        await self.say("alice", "vehicle add", gang=SLAG, name="Ironjaw",
                       vehicle_type="Wolfquad", crew="Rusk")
        shown = await self.say("alice", "gang show", gang=SLAG, card=True)
        charted = await self.say("bob", "campaign chart")
        posted = [a for result in (shown, charted) for m in result.messages
                  for a in m.attachments]
        if len(posted) < 2:
            raise DemoFailed(f"the bot attached {len(posted)} pictures, not a card and a chart"
                             f"\n{self.arena.log_tail()}")
        written = []
        for attachment in posted:
            written.append(folder / attachment.filename)
            written[-1].write_bytes(attachment.data)
        return written + await self.report_pictures(folder)

    async def report_pictures(self, folder: Path) -> list[Path]:
        """What the battle report can carry, read from the demo's database as it ends."""
        guild_id = self.driver.world.guild(GUILD).id
        storage = await Storage.open(self.arena.database_path)
        worker = PictureWorker()
        try:
            async with storage.read_only(guild_id) as tx:
                campaign = await tx.get_campaign_by_name(CAMPAIGN)
                [battle] = await tx.list_battles(campaign.id, limit=1)
                world = await tx.load_world(campaign.id, battle.gang_ids)
                report = await composed_report(tx, campaign.id, world, battle)
                drawn = await battle_report_pictures(tx, worker, campaign.id, battle, report,
                                                     world.gangs)
        finally:
            worker.close()
            await storage.close()
        paths = [folder / "battle-card.png", folder / "battle-chart.png"]
        paths[0].write_bytes(drawn.card)
        paths[1].write_bytes(drawn.chart)
        return paths

    # ----------------------------------------------------------------- reading the channel

    def thread_messages(self, thread: Channel) -> list[Message]:
        return self.driver.messages(thread, guild=GUILD, include_ephemeral=False)

    def battle_thread(self) -> Channel | None:
        threads = [t for t in self.driver.threads(CHANNEL, guild=GUILD) if SLAG in t.name]
        return threads[-1] if threads else None

    def panel(self, thread: Channel, gang: str) -> Message | None:
        for message in reversed(self.thread_messages(thread)):
            if message.embeds and f"End of battle: {gang}" in str(message.embeds[0]):
                return message
        return None

    def open_stage(self, thread: Channel) -> Message | None:
        for message in reversed(self.thread_messages(thread)):
            if any(str(c.get("custom_id") or "").startswith("munda:pb:confirm:")
                   for c in message.buttons):
                return message
        return None

    def moved_on(self, thread: Channel, stage: Message) -> bool | None:
        current = self.open_stage(thread)
        return True if current is None or current.id != stage.id else None

    def finished(self, thread: Channel) -> bool | None:
        return True if self.open_stage(thread) is None and self.report_posted() else None

    def report_posted(self) -> bool | None:
        for message in self.driver.messages(REPORTS, guild=GUILD):
            if message.embeds and "Battle report" in str(message.embeds[0].get("title")):
                return True
        return None

    async def until(self, check: Callable[[], T | None], what: str,
                    timeout: float = 20.0) -> T:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (found := check()) is None:
            if loop.time() > deadline:
                raise DemoFailed(f"timed out waiting for {what}\n{self.arena.log_tail()}")
            await asyncio.sleep(0.05)
        return found

    def transcript(self) -> str:
        """Each channel in time order, as a person reading it in Discord saw it happen."""
        parts = [f"== #{name} ({GUILD}) ==\n"
                 + self.timeline.render(self.driver.channel(name, guild=GUILD))
                 for name in (CHANNEL, REPORTS)]
        return "\n\n".join(parts) + "\n"
