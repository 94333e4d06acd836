"""One transaction on one server's data: the typed API every caller goes through.

A :class:`Transaction` is bound to a guild id when it is opened, and every
method resolves the campaign it names through that guild id first: a server
can only ever reach its own campaigns, whatever ids or names it passes.
``Storage`` opens one per call; ``async with storage.transaction(guild_id)``
hands one to a caller that must load, decide and apply atomically.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from bot.shards import ShardSet
from bot.storage import (
    battles,
    calendar,
    campaigns,
    exporting,
    gangs,
    imports,
    ledger,
    outbox,
    sequences,
    timers,
)
from bot.storage.at_once import CAMPAIGN_PK
from bot.storage.codec import Row, territory_from_row
from bot.storage.driver import Connection, campaign_key, fetch_together, server_key
from bot.storage.errors import StaleSequence
from bot.storage.records import (
    ActionRecord,
    Campaign,
    CampaignDocument,
    GangImportLink,
    LedgerEvent,
    SequenceRecord,
    TradingPostEntry,
)
from bot.storage.roster import (
    BattleWorldRows,
    RosterRows,
    WorldRows,
    battle_gangs_select,
    battle_world_from,
    battle_world_selects,
    fetch_gang_rows,
    fetch_rosters,
    fetch_territories,
    fetch_world,
    fetch_world_and,
    gang_from_rows,
    rosters_where,
    territories_select,
    territory_rows,
    world_from_rows,
)
from rules.cycles import Calendar
from rules.errors import InvalidRequest, NotFound
from rules.models import Battle, CampaignSettings, Fighter, Gang, Item, Territory, Vehicle
from rules.names import name_key
from rules.world import RuleResult, World

M = TypeVar("M", bound=BaseModel)
# The one stored calendar of a campaign (a sequence: an undo rewinds it with its action).
CALENDAR_KEY = "campaign-calendar"


class KnownCampaigns:
    """Campaigns' keys (pk) by server and id, as found by earlier transactions of this
    process, so that a writer claims its campaign without reading the key first
    (``campaigns.claim_known``, which checks the key still names it). A cache: a key
    is dropped when its campaign is deleted here or found gone (CampaignGone), and the
    whole when it grows past ``MOST``."""

    MOST = 10_000

    def __init__(self) -> None:
        self._pks: dict[tuple[int, str], int] = {}

    def get(self, key: tuple[int, str]) -> int | None:
        return self._pks.get(key)

    def found(self, guild_id: int, campaign_id: str, pk: int) -> None:
        if len(self._pks) >= self.MOST:
            self._pks.clear()
        self._pks[guild_id, campaign_id] = pk

    def forget(self, guild_id: int, campaign_id: str) -> None:
        self._pks.pop((guild_id, campaign_id), None)


@dataclass
class StartRows(Generic[M]):
    """What starting a battle's sequence reads, in one statement
    (:meth:`Transaction.start_rows`)."""

    world: World  # the gangs found, with their rosters, and every territory
    gang_ids: dict[str, str]  # the gangs found by their name keys
    battle: Battle | None  # the recorded battle named, if any
    existing: tuple[M, int] | None  # its stored state, if any
    recent: dict[str, list[tuple[M, int]]]  # per gang: its latest battles' states
    scheduled: list[calendar.ScheduledBattle]  # the campaign's, soonest first
    next_battle_pk: int | None  # the key a new battle is stored under (none is recorded)


class Transaction:
    """Repository operations inside one SQLite transaction, scoped to one guild."""

    def __init__(
        self, db: Connection, guild_id: int, *, writable: bool,
        known_campaigns: KnownCampaigns | None = None,
    ) -> None:
        self.guild_id = guild_id
        self._known = known_campaigns
        self._conn = db
        self._writable = writable
        self._open = True
        # Undo of an action also rewinds the sequences saved in its transaction.
        self._last_action: int | None = None
        self._sequences_before: dict[str, Row | None] = {}
        # Sequences whose state before this transaction an action of it keeps already.
        self._sequences_kept_by: dict[str, int] = {}
        # Outbox keys read by prefix (world_rows_with_captives): a key under one of them
        # that is not there is owed without waiting for an answer (owe_unless_delivered).
        self._owed_read: dict[str, set[str]] = {}
        self._campaign_pks: dict[str, int] = {}  # campaign id -> pk, see _campaign
        self._server_claimed = False
        # Outbox rows this transaction added, and whether it deleted some: handed to the
        # outbox worker once committed (``outbox_changes``).
        self._owed: list[outbox.OutboxEntry] = []
        self._forgot_owed = False
        self._unlisted_owed = False  # rows owed without waiting for them (not in _owed)

    def close(self) -> None:
        self._open = False

    @property
    def _db(self) -> Connection:
        if not self._open:
            raise RuntimeError("This transaction has ended; open a new one.")
        return self._conn

    def _write_db(self) -> Connection:
        if not self._writable:
            raise RuntimeError("This is a read-only transaction; use storage.transaction().")
        return self._db

    async def _campaign(self, campaign_id: str) -> int:
        # Every method resolves its campaign first, a dozen times in one click's
        # transaction; each query is a round trip to the database thread. Within one
        # transaction the answer only changes when a campaign is deleted (or made).
        pk = self._campaign_pks.get(campaign_id)
        known = None if self._known is None else self._known.get((self.guild_id, campaign_id))
        if pk is None and known is not None and self._writable:
            pk = self._campaign_pks[campaign_id] = known  # claimed and checked with BEGIN
            await campaigns.claim_known(self._db, self.guild_id, campaign_id, pk)
        elif pk is None and self._writable:  # found and claimed in one statement
            pk = await campaigns.claimed_campaign_pk(self._db, self.guild_id, campaign_id)
            self._found_key(campaign_id, pk)
        elif pk is None:
            pk = await campaigns.campaign_pk(self._db, self.guild_id, campaign_id)
            await self._found(campaign_id, pk)
        return pk

    async def _found(self, campaign_id: str, pk: int) -> None:
        """Remember a campaign's key; a writer claims the campaign as it first meets it."""
        self._found_key(campaign_id, pk)
        if self._writable:
            # PostgreSQL: writers of one campaign wait for each other, never for
            # other campaigns' (SQLite's one writer lock covers it already).
            await self._conn.claim(campaign_key(pk))

    def _found_key(self, campaign_id: str, pk: int) -> None:
        self._campaign_pks[campaign_id] = pk
        if self._known is not None:
            self._known.found(self.guild_id, campaign_id, pk)

    async def _claim_server(self) -> None:
        """Serialise the server-wide writes (campaigns made, renamed, deleted): the
        name and default checks read what the other writer may be about to change."""
        if not self._server_claimed:
            self._server_claimed = True
            await self._write_db().claim(server_key(self.guild_id))

    # -------------------------------------------------------------- campaigns

    async def create_campaign(
        self,
        settings: CampaignSettings,
        *,
        arbitrator_user_ids: Sequence[int] = (),
        arbitrator_role_id: int | None = None,
        report_channel_id: int | None = None,
        make_default: bool = False,
    ) -> Campaign:
        """Start a campaign; the server's first one becomes its default."""
        await self._claim_server()
        self._campaign_pks.clear()
        return await campaigns.create(
            self._write_db(), self.guild_id, settings,
            arbitrator_user_ids=arbitrator_user_ids, arbitrator_role_id=arbitrator_role_id,
            report_channel_id=report_channel_id, make_default=make_default,
        )

    async def get_campaign(self, campaign_id: str) -> Campaign:
        row = await campaigns.campaign_row(self._db, self.guild_id, campaign_id)
        if campaign_id not in self._campaign_pks:
            await self._found(campaign_id, int(row["pk"]))  # no second look-up
        return campaigns.campaign_from_row(row)

    async def get_campaign_by_name(self, name: str) -> Campaign:
        return await campaigns.get_by_name(self._db, self.guild_id, name)

    async def get_default_campaign(self) -> Campaign:
        return await campaigns.get_default(self._db, self.guild_id)

    async def list_campaigns(self) -> list[Campaign]:
        return await campaigns.list_all(self._db, self.guild_id)

    async def update_campaign(self, campaign: Campaign) -> Campaign:
        """Write settings (name included), Arbitrators and report channel."""
        await self._claim_server()
        return await campaigns.update(self._write_db(), self.guild_id, campaign)

    async def rename_campaign(self, campaign_id: str, new_name: str) -> Campaign:
        campaign = await self.get_campaign(campaign_id)
        settings = CampaignSettings.model_validate(
            {**campaign.settings.model_dump(), "name": new_name}
        )
        return await self.update_campaign(campaign.model_copy(update={"settings": settings}))

    async def set_default_campaign(self, campaign_id: str) -> Campaign:
        await self._claim_server()
        return await campaigns.set_default(self._write_db(), self.guild_id, campaign_id)

    async def delete_campaign(self, campaign_id: str) -> None:
        """Delete a campaign with everything in it: gangs, Territories, battles, the ledger
        and its snapshots, sequences, staged imports and the messages it owed or posted."""
        await self._claim_server()
        self._campaign_pks.clear()
        if self._known is not None:
            self._known.forget(self.guild_id, campaign_id)
        await campaigns.delete(self._write_db(), self.guild_id, campaign_id)
        self._forgot_owed = True
        await outbox.forget(self._write_db(), self.guild_id, campaign_id)
        await timers.forget(self._write_db(), self.guild_id, campaign_id)

    async def forget_server(self) -> int:
        """Delete every campaign of this server and its outbox; returns how many campaigns."""
        found = await self.list_campaigns()
        for campaign in found:
            await self.delete_campaign(campaign.id)
        self._forgot_owed = True
        await outbox.forget(self._write_db(), self.guild_id, None)
        await timers.forget(self._write_db(), self.guild_id, None)
        return len(found)

    async def set_trading_post(
        self,
        campaign_id: str,
        entries: Sequence[TradingPostEntry] | None,
        *,
        actor: str,
        note: str,
    ) -> Campaign:
        """Give the campaign its own Trading Post (None: the rule set's again); ``note``
        goes to the ledger."""
        campaign = await campaigns.set_trading_post(
            self._write_db(), self.guild_id, campaign_id, entries)
        await self.add_note(campaign_id, note, actor=actor, clause="PB-6B")
        return campaign

    async def set_rule_data(
        self, campaign_id: str, rule_data: str | None, *, actor: str, note: str
    ) -> Campaign:
        """Give the campaign its own rule data (JSON of rules.ruledata.RuleData; None: none);
        ``note`` goes to the ledger."""
        campaign = await campaigns.set_rule_data(
            self._write_db(), self.guild_id, campaign_id, rule_data)
        await self.add_note(campaign_id, note, actor=actor)
        return campaign

    async def add_note(
        self, campaign_id: str, text: str, *, actor: str, clause: str = "CAMPAIGN"
    ) -> None:
        """A line in the campaign's ledger that belongs to no action (nothing to undo)."""
        pk = await self._campaign(campaign_id)
        event = ledger.note_event(actor, text, clause=clause)
        await ledger.insert_plain_events(self._write_db(), [ledger.event_values(pk, event)])

    # -------------------------------------------------------------- gangs

    async def get_gang(self, campaign_id: str, gang_id: str) -> Gang:
        world = await gangs.load_world(self._db, await self._campaign(campaign_id), [gang_id], ())
        return world.gang(gang_id)

    async def gangs_without_rosters(
        self, campaign_id: str, gang_ids: Sequence[str] | None
    ) -> dict[str, Gang]:
        """The named gangs' own fields (name, owner, credits...) with EMPTY rosters
        (``None``: every gang of the campaign, in the order they joined).

        For checks that look no further than who owns a gang: a whole gang is a
        dozen fighters and their equipment to read and validate. Never change these or write
        them back: the gang of one stored row is shared by its readers (bot/storage/gangs.py).
        """
        rows = await fetch_gang_rows(self._db, await self._campaign(campaign_id), gang_ids)
        listing_all = gang_ids is None
        if gang_ids is None:
            gang_ids = list(rows)
        for gang_id in gang_ids:
            if gang_id not in rows:
                raise NotFound(f"There is no gang with id {gang_id} in this campaign.")
        if listing_all:  # every gang of the campaign: built, not kept (see gangs.py)
            return {gang_id: gang_from_rows(RosterRows(gang=rows[gang_id]))
                    for gang_id in gang_ids}
        return {gang_id: gangs.gang_without_roster(rows[gang_id]) for gang_id in gang_ids}

    async def state_for_decision(
        self, campaign_id: str, key: str, model_type: type[M], battle_id: str
    ) -> tuple[Campaign, tuple[M, int] | None, dict[str, Gang]]:
        """The campaign, the stored state of ``key`` with its revision (None: none) and
        the gangs of battle ``battle_id`` without rosters (as gangs_without_rosters, by
        id), read together: what a click on a post-battle run needs to decide, one
        statement on PostgreSQL (driver.fetch_together). NotFound: no such campaign."""
        campaign_rows, state_rows, gang_rows = await fetch_together(self._db, [
            campaigns.campaign_select(self.guild_id, campaign_id),
            sequences.stored_select(self.guild_id, campaign_id, key),
            battle_gangs_select(self.guild_id, campaign_id, battle_id),
        ])
        campaign, state = await self._campaign_and_state(
            campaign_id, campaign_rows, state_rows, model_type)
        return campaign, state, {str(r["id"]): gangs.gang_without_roster(r) for r in gang_rows}

    async def state_and_battle_world(
        self, campaign_id: str, key: str, model_type: type[M], battle_id: str
    ) -> tuple[Campaign, tuple[M, int] | None, BattleWorldRows]:
        """As :meth:`state_for_decision`, with the battle's world instead of its gangs' own
        rows: the rosters of its gangs and of the gangs whose fighters they hold Captive,
        and every territory (roster.BattleWorldRows). What a report panel's click needs to
        decide, one statement on PostgreSQL. NotFound: no such campaign."""
        campaign_rows, state_rows, *world = await fetch_together(self._db, [
            campaigns.campaign_select(self.guild_id, campaign_id),
            sequences.stored_select(self.guild_id, campaign_id, key),
            *battle_world_selects(self.guild_id, campaign_id, battle_id),
        ])
        campaign, state = await self._campaign_and_state(
            campaign_id, campaign_rows, state_rows, model_type)
        return campaign, state, battle_world_from(world)

    async def _campaign_and_state(
        self, campaign_id: str, campaign_rows: Sequence[Row], state_rows: Sequence[Row],
        model_type: type[M],
    ) -> tuple[Campaign, tuple[M, int] | None]:
        """The campaign (its key remembered) and a stored state with its revision, from the
        rows of ``campaign_select`` and ``stored_select``."""
        if not campaign_rows:
            raise campaigns.no_campaign(campaign_id)
        row = campaign_rows[0]
        if campaign_id not in self._campaign_pks:
            await self._found(campaign_id, int(row["pk"]))
        state = None
        if state_rows:
            found = state_rows[0]
            state = sequences.read_state(found, model_type), int(found["revision"])
        return campaigns.campaign_from_row(row), state

    async def claim_campaign_named(self, name: str | None) -> Campaign:
        """The campaign called ``name`` (None: the server's default one), claimed for this
        write transaction as it is found: one statement on PostgreSQL. A blank name is
        none, as bot.lookup.campaign_named reads it."""
        row = await campaigns.claimed_named(self._write_db(), self.guild_id,
                                            name if name and name.strip() else None)
        found = campaigns.campaign_from_row(row)
        self._campaign_pks[found.id] = int(row["pk"])
        return found

    async def recent_states(
        self, campaign_id: str, gang_ids: Sequence[str], model_type: type[M], prefix: str,
        recent: int,
    ) -> dict[str, list[tuple[M, int]]]:
        """Per gang, the stored states keyed ``prefix`` + battle id of its ``recent``
        latest battles, with their revisions, the latest first: one statement."""
        if not gang_ids:
            return {}
        pk = await self._campaign(campaign_id)
        sql, params = sequences.of_recent_battles(
            pk, (", ".join("?" * len(gang_ids)), gang_ids), prefix, recent)
        return sequences.recent_states(await self._db.execute_fetchall(sql, params), model_type)

    async def start_rows(
        self, campaign_id: str, model_type: type[M], prefix: str, recent: int, *,
        gang_names: Sequence[str] = (), battle_id: str | None = None,
    ) -> StartRows[M]:
        """What a battle's sequence starts from, read together (one statement on
        PostgreSQL): the gangs called ``gang_names`` (or those of the recorded battle
        ``battle_id``) with their rosters, every territory, that battle and its stored
        state (keyed ``prefix`` + its id), the states of each gang's ``recent`` latest
        battles, the campaign's scheduled battles, and the key of a new battle (when no
        battle is recorded)."""
        pk = await self._campaign(campaign_id)
        keys = [name_key(name) for name in gang_names]
        if battle_id is None:
            where = f"campaign_pk = ? AND name_key IN ({', '.join('?' * len(keys))})"
            params: list[object] = [pk, *keys]
        else:
            where = ("campaign_pk = ? AND id IN (SELECT gang_id FROM battle_gangs WHERE"
                     " battle_pk = (SELECT pk FROM battles WHERE campaign_pk = ? AND id = ?))")
            params = [pk, pk, battle_id]
        also = [territories_select(pk),
                sequences.of_recent_battles(pk, (f"SELECT id FROM gangs WHERE {where}", params),
                                            prefix, recent),
                calendar.of_campaign_select(pk)]
        if battle_id is None:
            also.append((self._db.dialect.next_pk("battles"), ()))
        else:
            also += [*battles.selects(pk, battle_id),
                     (f"{sequences.STORED} WHERE campaign_pk = ? AND key = ?",
                      (pk, prefix + battle_id))]
        rosters, found = await rosters_where(self._db, f"WHERE {where}", params, *also)
        territories, recent_rows, scheduled, *rest = found
        gang_ids = [str(rows.gang["id"]) for rows in rosters.values()]
        world = world_from_rows(WorldRows(rosters, territory_rows(territories)), gang_ids)
        battle = existing = next_pk = None
        if battle_id is None:
            next_pk = int(rest[0][0]["pk"])
        else:
            battle = battles.from_selected(battle_id, rest[0], rest[1])
            if rest[2]:
                row = rest[2][0]
                existing = sequences.read_state(row, model_type), int(row["revision"])
        return StartRows(
            world=world, gang_ids={str(r.gang["name_key"]): str(r.gang["id"])
                                   for r in rosters.values()},
            battle=battle, existing=existing,
            recent=sequences.recent_states(recent_rows, model_type),
            scheduled=calendar.from_rows(campaign_id, scheduled), next_battle_pk=next_pk)

    async def create_started(
        self, campaign_id: str, battle: Battle, battle_pk: int, key: str, state: BaseModel
    ) -> int:
        """Store a new battle under ``battle_pk`` (:meth:`start_rows`) and the first state
        of its sequence ``key``, neither stored yet (read so in this transaction), with
        no read back: sent with the next statement, or at COMMIT, on PostgreSQL. Returns
        the state's revision."""
        pk = await self._campaign(campaign_id)
        await battles.insert_new(self._write_db(), pk, battle, battle_pk)
        return await sequences.insert_new(self._write_db(), pk, key, state, battle.id)

    async def start_recorded(
        self, campaign_id: str, battle: Battle, key: str, state: BaseModel
    ) -> int:
        """Write a recorded battle's own row as it starts (its gangs unchanged, read in
        this transaction) and the state of its sequence ``key`` over whatever is stored
        (a cancelled run's, say): two statements, nothing read back. Returns the
        state's revision."""
        pk = await self._campaign(campaign_id)
        await battles.update_row(self._write_db(), pk, battle)
        saved = await sequences.save(self._write_db(), pk, key, state, battle.id)
        assert saved is not None  # not guarded by a revision: always written
        return saved

    async def get_gang_by_name(
        self, campaign_id: str, name: str, *, rosters: bool = True
    ) -> Gang:
        """The gang called ``name``; without ``rosters`` as :meth:`gangs_without_rosters`."""
        pk = await self._campaign(campaign_id)
        gang_id = await gangs.gang_id_by_name(self._db, pk, name)
        if not rosters:
            return (await self.gangs_without_rosters(campaign_id, [gang_id]))[gang_id]
        return (await gangs.load_world(self._db, pk, [gang_id], ())).gang(gang_id)

    async def list_gangs(self, campaign_id: str, *, owner: str | None = None) -> list[Gang]:
        """Every gang of the campaign (or of one owner), in the order they joined."""
        pk = await self._campaign(campaign_id)
        ids = None if owner is None else await gangs.gang_ids_of_owner(self._db, pk, owner)
        rows = await fetch_rosters(self._db, pk, ids)
        return [gang_from_rows(r) for r in rows.values()]

    async def create_gang(
        self, campaign_id: str, gang: Gang, *, actor: str, title: str | None = None
    ) -> Gang:
        """Store a new gang with its roster; ids are kept (make new ones with new_id())."""
        pk = await self._campaign(campaign_id)
        if await fetch_rosters(self._write_db(), pk, [gang.id]):
            raise InvalidRequest(f"There is already a gang with id {gang.id} in this campaign.")
        return await gangs.create(
            self._db, pk, gang, actor=actor, title=title or f"New gang {gang.name}"
        )

    async def update_gang(
        self, campaign_id: str, gang: Gang, *, actor: str, title: str = "Roster edit"
    ) -> Gang:
        """Store ``gang`` as it is now: fields, fighters, vehicles, Stash."""
        return await self._edit_gang(campaign_id, gang.id, gangs.replace_gang(gang), actor, title)

    async def rename_gang(
        self, campaign_id: str, gang_id: str, new_name: str, *, actor: str
    ) -> Gang:
        change = gangs.set_gang_fields(gang_id, name=new_name)
        return await self._edit_gang(campaign_id, gang_id, change, actor, f"Rename to {new_name}")

    async def transfer_gang(
        self, campaign_id: str, gang_id: str, new_owner: str, *, actor: str
    ) -> Gang:
        """Give the gang to another Discord user (owner is the user id as a string)."""
        change = gangs.set_gang_fields(gang_id, owner=new_owner)
        return await self._edit_gang(campaign_id, gang_id, change, actor, "Transfer owner")

    async def delete_gang(self, campaign_id: str, gang_id: str, *, actor: str) -> None:
        """Delete a gang; its territories become unclaimed. Undo brings it back."""
        pk = await self._campaign(campaign_id)
        territory_ids = await gangs.territory_ids_of(self._write_db(), pk, gang_id)
        await gangs.edit(
            self._db, pk, actor=actor, title="Delete gang", change=gangs.delete_gang(gang_id),
            gang_ids=[gang_id], territory_ids=territory_ids,
        )

    async def _edit_gang(
        self, campaign_id: str, gang_id: str, change: gangs.Edit, actor: str, title: str
    ) -> Gang:
        pk = await self._campaign(campaign_id)
        world = await gangs.edit(
            self._write_db(), pk, actor=actor, title=title, change=change, gang_ids=[gang_id]
        )
        return world.gang(gang_id)

    # -------------------------------------------------------------- fighters, vehicles, Stash

    async def add_fighter(
        self, campaign_id: str, gang_id: str, fighter: Fighter, *, actor: str
    ) -> Fighter:
        return await self._write_fighter(campaign_id, gang_id, fighter, actor, new=True)

    async def update_fighter(
        self, campaign_id: str, gang_id: str, fighter: Fighter, *, actor: str
    ) -> Fighter:
        return await self._write_fighter(campaign_id, gang_id, fighter, actor, new=False)

    async def _write_fighter(
        self, campaign_id: str, gang_id: str, fighter: Fighter, actor: str, *, new: bool
    ) -> Fighter:
        """Add ``fighter`` to the gang (``new``) or write it over the stored one; it comes
        back as stored."""
        change = (gangs.add_fighter if new else gangs.replace_fighter)(gang_id, fighter)
        title = f"{'Add' if new else 'Edit'} {fighter.name}"
        gang = await self._edit_gang(campaign_id, gang_id, change, actor, title)
        return gang.fighter(fighter.id)

    async def remove_fighter(
        self, campaign_id: str, gang_id: str, fighter_id: str, *, actor: str
    ) -> Fighter:
        fighter = (await self.get_gang(campaign_id, gang_id)).fighter(fighter_id)
        change = gangs.remove_fighter(gang_id, fighter_id)
        await self._edit_gang(campaign_id, gang_id, change, actor, f"Remove {fighter.name}")
        return fighter

    async def find_fighter(self, campaign_id: str, name: str) -> tuple[Gang, Fighter]:
        """The fighter called ``name`` in this campaign, with its gang."""
        return await gangs.fighter_by_name(self._db, await self._campaign(campaign_id), name)

    async def captives_held_by(self, campaign_id: str, gang_id: str) -> list[tuple[Gang, Fighter]]:
        """Fighters of other gangs that ``gang_id`` holds Captive, with their gangs."""
        return await gangs.captives_held_by(self._db, await self._campaign(campaign_id), gang_id)

    async def captive_owners(self, campaign_id: str, gang_ids: Sequence[str]) -> list[str]:
        """The gangs (ids) whose fighters any of ``gang_ids`` holds Captive."""
        return await gangs.captive_owners(self._db, await self._campaign(campaign_id), gang_ids)

    async def add_vehicle(
        self, campaign_id: str, gang_id: str, vehicle: Vehicle, *, actor: str, stash: bool = False
    ) -> Vehicle:
        change = gangs.add_vehicle(gang_id, vehicle, stash)
        gang = await self._edit_gang(campaign_id, gang_id, change, actor, f"Add {vehicle.name}")
        return next(v for v in [*gang.vehicles, *gang.stash_vehicles] if v.id == vehicle.id)

    async def update_vehicle(
        self, campaign_id: str, gang_id: str, vehicle: Vehicle, *, actor: str
    ) -> Vehicle:
        change = gangs.replace_vehicle(gang_id, vehicle)
        await self._edit_gang(campaign_id, gang_id, change, actor, f"Edit {vehicle.name}")
        return vehicle

    async def remove_vehicle(
        self, campaign_id: str, gang_id: str, vehicle_id: str, *, actor: str
    ) -> None:
        change = gangs.remove_vehicle(gang_id, vehicle_id)
        await self._edit_gang(campaign_id, gang_id, change, actor, "Remove vehicle")

    async def add_stash_item(
        self, campaign_id: str, gang_id: str, item: Item, *, actor: str
    ) -> Item:
        change = gangs.add_stash_item(gang_id, item)
        await self._edit_gang(campaign_id, gang_id, change, actor, f"{item.name} to the Stash")
        return item

    async def remove_stash_item(
        self, campaign_id: str, gang_id: str, item_id: str, *, actor: str
    ) -> Item:
        gang = await self.get_gang(campaign_id, gang_id)
        item = next((i for i in gang.stash if i.id == item_id), None)
        if item is None:
            raise NotFound(f"{gang.name} has no item with id {item_id} in its Stash.")
        change = gangs.remove_stash_item(gang_id, item_id)
        await self._edit_gang(campaign_id, gang_id, change, actor, f"{item.name} out of the Stash")
        return item

    # -------------------------------------------------------------- territories and worlds

    async def add_territory(
        self, campaign_id: str, territory: Territory, *, actor: str
    ) -> Territory:
        pk = await self._campaign(campaign_id)
        if await fetch_territories(self._write_db(), pk, [territory.id]):
            raise InvalidRequest(
                f"There is already a territory with id {territory.id} in this campaign."
            )
        gang_ids = [territory.controller] if territory.controller else []
        world = await gangs.edit(
            self._db, pk, actor=actor, title=f"New territory {territory.name}",
            change=gangs.add_territory(territory), gang_ids=gang_ids,
        )
        return world.territory(territory.id)

    async def get_territory(self, campaign_id: str, territory_id: str) -> Territory:
        rows = await fetch_territories(self._db, await self._campaign(campaign_id), [territory_id])
        if territory_id not in rows:
            raise NotFound(f"There is no territory with id {territory_id} in this campaign.")
        return territory_from_row(rows[territory_id])

    async def list_territories(
        self, campaign_id: str, *, controller: str | None = None
    ) -> list[Territory]:
        rows = await fetch_territories(self._db, await self._campaign(campaign_id))
        found = [territory_from_row(row) for row in rows.values()]
        return [t for t in found if controller is None or t.controller == controller]

    async def assign_territory(
        self, campaign_id: str, territory_id: str, gang_id: str | None, *, actor: str
    ) -> Territory:
        """Give a territory to ``gang_id`` (None: unclaimed)."""
        world = await gangs.edit(
            self._write_db(), await self._campaign(campaign_id), actor=actor,
            title="Assign territory", change=gangs.assign_territory(territory_id, gang_id),
            gang_ids=[gang_id] if gang_id else [], territory_ids=[territory_id],
        )
        return world.territory(territory_id)

    async def remove_territory(self, campaign_id: str, territory_id: str, *, actor: str) -> None:
        await gangs.edit(
            self._write_db(), await self._campaign(campaign_id), actor=actor,
            title="Remove territory", change=gangs.remove_territory(territory_id),
            territory_ids=[territory_id],
        )

    async def load_world(self, campaign_id: str, gang_ids: Sequence[str]) -> World:
        """The named gangs and every territory of the campaign."""
        return await gangs.load_world(self._db, await self._campaign(campaign_id), gang_ids)

    async def load_world_rows(
        self, campaign_id: str, gang_ids: Sequence[str]
    ) -> tuple[World, WorldRows]:
        """:meth:`load_world`, and the rows it was built from: :meth:`apply` of a result
        computed from that world, in this write transaction, may be given them (nothing
        written to those gangs and territories in between) to check against them."""
        rows = await fetch_world(self._db, await self._campaign(campaign_id), gang_ids)
        return world_from_rows(rows, gang_ids), rows

    async def world_rows_with_captives(
        self, campaign_id: str, gang_ids: Sequence[str], *, battle_id: str | None = None,
        owed_prefix: str | None = None,
    ) -> tuple[Battle | None, World, WorldRows]:
        """:meth:`load_world_rows` of ``gang_ids`` and of the gangs whose fighters they
        hold Captive (after them, by id), and the battle ``battle_id`` if given: read
        together, one statement on PostgreSQL; a second reads the rosters when a captive's
        gang is not among ``gang_ids`` (a captive taken in another battle). With
        ``owed_prefix``, the keys of the messages owed under it are read too (see
        :meth:`owe_unless_delivered`)."""
        pk = await self._campaign(campaign_id)
        also = [gangs.captive_owners_select(pk, gang_ids)] if gang_ids else []
        if battle_id is not None:
            also += battles.selects(pk, battle_id)
        if owed_prefix is not None:
            also.append(outbox.keys_select(self.guild_id, owed_prefix))
        rows, found = await fetch_world_and(self._db, pk, gang_ids, *also)
        if owed_prefix is not None:
            self._owed_read[owed_prefix] = {str(row["key"]) for row in found.pop()}
        owners = gangs.owners_from(found[0]) if gang_ids else []
        battle = None if battle_id is None else battles.from_selected(battle_id, *found[-2:])
        everyone = list(dict.fromkeys([*gang_ids, *owners]))
        if len(everyone) > len(gang_ids):
            rows = await fetch_world(self._db, pk, everyone)
        return battle, world_from_rows(rows, everyone), rows

    # -------------------------------------------------------------- actions and ledger

    async def apply(
        self,
        campaign_id: str,
        result: RuleResult,
        *,
        actor: str,
        battle_id: str | None = None,
        step: str | None = None,
        read: WorldRows | None = None,
    ) -> ActionRecord:
        """Store a rules result: snapshot, new state and ledger rows, all or nothing.

        Raises StaleWorld if the stored gangs are no longer those the result
        was computed from (load them inside this transaction to rule it out).
        ``read``: see :meth:`load_world_rows`.
        """
        action_pk = await self.apply_id(campaign_id, result, actor=actor, battle_id=battle_id,
                                        step=step, read=read)
        return await ledger.get_action(self._db, await self._campaign(campaign_id), action_pk)

    async def apply_id(
        self,
        campaign_id: str,
        result: RuleResult,
        *,
        actor: str,
        battle_id: str | None = None,
        step: str | None = None,
        read: WorldRows | None = None,
    ) -> int:
        """:meth:`apply`, returning the new action's id only: the action is not read back
        (a closing Confirm's write names its notices after the id, and needs no more)."""
        pk = await self._campaign(campaign_id)
        action = ledger.Action(
            clause=result.clause, title=result.title, actor=actor, changes=result.changes,
            rolls=result.rolls, notes=result.notes, battle_id=battle_id, step=step,
        )
        action_pk = await ledger.apply_world(self._write_db(), pk, result.world, action, read)
        self._last_action = action_pk
        for key, previous in self._sequences_before.items():
            await ledger.remember_sequence(self._db, action_pk, key, previous)
        for key, kept_by in self._sequences_kept_by.items():
            await ledger.copy_kept_sequence(self._db, action_pk, kept_by, key)
        return action_pk

    async def undo_last_action(
        self, campaign_id: str, *, actor: str, battle_id: str | None = None
    ) -> ActionRecord:
        """Restore the state before the last action not yet undone; return that action.

        With ``battle_id``, refuse unless that action belongs to the battle.
        """
        pk = await self._campaign(campaign_id)
        return await ledger.undo_last(self._write_db(), pk, actor=actor, battle_id=battle_id)

    async def list_actions(
        self, campaign_id: str, *, battle_id: str | None = None, limit: int = 20
    ) -> list[ActionRecord]:
        pk = await self._campaign(campaign_id)
        return await ledger.list_actions(self._db, pk, battle_id=battle_id, limit=limit)

    async def recent_events(
        self,
        campaign_id: str,
        gang_id: str | None = None,
        battle_id: str | None = None,
        limit: int = 20,
    ) -> list[LedgerEvent]:
        """The latest ledger events, newest first."""
        pk = await self._campaign(campaign_id)
        return await ledger.events(self._db, pk, gang_id=gang_id, battle_id=battle_id, limit=limit)

    async def roster_changes(
        self, campaign_id: str, *, limit: int = ledger.ROSTER_CHANGES_MAX
    ) -> list[LedgerEvent]:
        """Every change to the campaign's gangs, fighters and vehicles, oldest first: what
        the campaign chart replays. Refused when there are more than ``limit``."""
        if campaign_id in self._campaign_pks or self._writable:
            pk = await self._campaign(campaign_id)
            return await ledger.roster_changes(self._db, pk, limit=limit)
        # A read that starts here: the campaign's key found in the same statement, one
        # round trip on PostgreSQL and no snapshot transaction (a report's chart).
        found, rows = await fetch_together(self._db, [
            campaigns.pk_select(self.guild_id, campaign_id),
            ledger.roster_changes_select((CAMPAIGN_PK, (self.guild_id, campaign_id)), limit),
        ])
        if not found:
            raise campaigns.no_campaign(campaign_id)
        await self._found(campaign_id, int(found[0]["pk"]))
        return ledger.roster_changes_from(rows, limit)

    async def battle_events(self, campaign_id: str, battle_id: str) -> list[LedgerEvent]:
        """Every event of one battle, oldest first: the Arbitrator's report."""
        pk = await self._campaign(campaign_id)
        return await ledger.events(self._db, pk, battle_id=battle_id, newest_first=False)

    # -------------------------------------------------------------- battles

    async def create_battle(self, campaign_id: str, battle: Battle) -> Battle:
        return await battles.create(self._write_db(), await self._campaign(campaign_id), battle)

    async def update_battle(self, campaign_id: str, battle: Battle) -> Battle:
        return await battles.update(self._write_db(), await self._campaign(campaign_id), battle)

    async def get_battle(self, campaign_id: str, battle_id: str) -> Battle:
        return await battles.get(self._db, await self._campaign(campaign_id), battle_id)

    async def list_battles(
        self, campaign_id: str, *, gang_id: str | None = None, limit: int | None = 50
    ) -> list[Battle]:
        """Battles newest first, optionally only those ``gang_id`` fought."""
        pk = await self._campaign(campaign_id)
        return await battles.list_recent(self._db, pk, gang_id=gang_id, limit=limit)

    # -------------------------------------------------------------- sequences

    async def save_sequence(
        self, campaign_id: str, key: str, state: BaseModel, *, battle_id: str | None = None,
        revision: int | None = None,
    ) -> int:
        """Store the state of a sequence in progress; returns its revision.

        ``revision``: the revision the state was decided from (0: none stored);
        :class:`StaleSequence` when the stored one has moved on since (nothing is
        written; the caller decides again from what is stored now).
        """
        pk = await self._campaign(campaign_id)
        await self._remember_sequence(pk, key)
        saved = await sequences.save(self._write_db(), pk, key, state, battle_id,
                                     revision=revision)
        if saved is None:
            raise StaleSequence(sequences.STALE)
        return saved

    async def load_sequence(self, campaign_id: str, key: str, model_type: type[M]) -> M | None:
        """The stored state of ``key`` read as ``model_type``; None if there is none."""
        found = await self.load_sequence_at(campaign_id, key, model_type)
        return None if found is None else found[0]

    async def load_sequence_at(
        self, campaign_id: str, key: str, model_type: type[M]
    ) -> tuple[M, int] | None:
        """The stored state of ``key`` and its revision (for ``save_sequence(revision=)``)."""
        row = await sequences.stored(self._db, await self._campaign(campaign_id), key)
        if row is None:
            return None
        return sequences.read_state(row, model_type), int(row["revision"])

    async def set_in_sequence(
        self, campaign_id: str, key: str, checks: Sequence[tuple[str, str | int]],
        values: Mapping[str, int],
    ) -> int | None:
        """Set numbers in a stored state in one UPDATE (see ``sequences.set_in_state``)."""
        pk = await self._campaign(campaign_id)
        return await sequences.set_in_state(self._write_db(), pk, key, checks, values)

    async def delete_sequence(self, campaign_id: str, key: str) -> bool:
        pk = await self._campaign(campaign_id)
        await self._remember_sequence(pk, key)
        return await sequences.delete(self._write_db(), pk, key)

    async def list_sequences(self, campaign_id: str) -> list[SequenceRecord]:
        return await sequences.list_all(self._db, await self._campaign(campaign_id))

    async def load_sequences(
        self, campaign_id: str, model_type: type[M], prefix: str
    ) -> list[M]:
        """Every stored state of ``model_type`` whose key starts with ``prefix``, oldest
        first (a battle's runs, say, and no other kind of sequence)."""
        name = sequences.model_name(model_type)
        found: list[M] = []
        for record in await self.list_sequences(campaign_id):
            if record.model != name or not record.key.startswith(prefix):
                continue
            state = await self.load_sequence(campaign_id, record.key, model_type)
            if state is not None:
                found.append(state)
        return found
    # -------------------------------------------------------------- the campaign's calendar

    async def get_calendar(self, campaign_id: str) -> tuple[Calendar, int] | None:
        """The campaign's cycles and challenges (rules.cycles) and their revision; None
        before the Arbitrator starts the first cycle."""
        return await self.load_sequence_at(campaign_id, CALENDAR_KEY, Calendar)

    async def save_calendar(
        self, campaign_id: str, calendar: Calendar, *, revision: int
    ) -> int:
        """Store the calendar read at ``revision`` (0: none yet); StaleSequence when
        another change came first. Saved after this transaction's :meth:`apply`, an undo
        of that action puts the calendar back as it was."""
        return await self.save_sequence(campaign_id, CALENDAR_KEY, calendar, revision=revision)

    async def _remember_sequence(self, campaign_pk: int, key: str) -> None:
        if key in self._sequences_before or key in self._sequences_kept_by:
            return
        if self._last_action is not None:  # read and kept in one statement, not waited for
            await ledger.keep_stored_sequence(self._write_db(), self._last_action,
                                              campaign_pk, key)
            self._sequences_kept_by[key] = self._last_action
            return
        self._sequences_before[key] = await sequences.stored(self._write_db(), campaign_pk, key)

    # -------------------------------------------------------------- gang imports

    async def find_gang_import(
        self, campaign_id: str, source: str, external_id: str
    ) -> GangImportLink | None:
        """The link a previous import of ``source``/``external_id`` left (docs/importing.md)."""
        pk = await self._campaign(campaign_id)
        return await imports.find_link(self._db, pk, source, external_id)

    async def save_gang_import(self, campaign_id: str, link: GangImportLink) -> None:
        await imports.save_links(self._write_db(), await self._campaign(campaign_id), [link])

    async def stage_import(
        self,
        campaign_id: str,
        token: str,
        user_id: str,
        state: BaseModel,
        *,
        max_age: timedelta = timedelta(days=1),
    ) -> None:
        """Keep an import until its Confirm button (which survives restarts)."""
        pk = await self._campaign(campaign_id)
        await imports.stage(
            self._write_db(), pk, token, user_id, state.model_dump_json(by_alias=True), max_age
        )

    async def take_staged_import(
        self,
        campaign_id: str,
        token: str,
        model_type: type[M],
        *,
        max_age: timedelta = timedelta(days=1),
    ) -> tuple[str, M] | None:
        """(user id, state) of a staged import, removed as it is taken; None when it is
        gone or older than ``max_age``. A rolled-back transaction puts it back."""
        found = await self.take_staged_state(campaign_id, token, max_age=max_age)
        if found is None:
            return None
        user_id, state = found
        return user_id, model_type.model_validate_json(state)

    async def take_staged_state(
        self, campaign_id: str, token: str, *, max_age: timedelta = timedelta(days=1)
    ) -> tuple[str, str] | None:
        """As :meth:`take_staged_import`, with the state as its stored JSON text, for a
        caller that validates a large one off the event loop."""
        pk = await self._campaign(campaign_id)
        return await imports.take(self._write_db(), pk, token, max_age)

    async def peek_staged_state(
        self, campaign_id: str, token: str, *, max_age: timedelta = timedelta(days=1)
    ) -> tuple[str, str] | None:
        """(user id, state as stored) of a staged import, left staged; None if gone."""
        pk = await self._campaign(campaign_id)
        return await imports.peek(self._write_db(), pk, token, max_age)

    async def restage_import(self, campaign_id: str, token: str, state: str) -> None:
        """Replace a staged import's state (stored JSON text) with ``state``."""
        pk = await self._campaign(campaign_id)
        await imports.restage(self._write_db(), pk, token, state)

    # -------------------------------------------------------------- outbox (bot/outbox.py)

    async def owe_message(
        self,
        key: str,
        channel_id: int,
        payload: dict[str, Any],
        *,
        link: dict[str, Any] | None = None,
        fallback_channel_id: int | None = None,
    ) -> outbox.OutboxEntry:
        """Owe a message to a channel, committed with this transaction (docs/reliability.md).

        ``key`` names the message within the server: owing it again changes
        nothing. The delivery worker posts it and records Discord's id.
        """
        entry, new = await outbox.owe(
            self._write_db(), self.guild_id, key, channel_id, payload, link=link,
            fallback_channel_id=fallback_channel_id,
        )
        if new:
            self._owed.append(entry)
        return entry

    def outbox_changes(self) -> outbox.Owed | None:
        """The rows this transaction owed and whether it deleted some (None: neither), for
        the storage to hand to the outbox worker once it has committed."""
        if not (self._owed or self._forgot_owed or self._unlisted_owed):
            return None
        return outbox.Owed(self.guild_id, tuple(self._owed), self._forgot_owed,
                           self._unlisted_owed)

    async def owe_unless_delivered(
        self,
        key: str,
        channel_id: int,
        payload: dict[str, Any],
        *,
        link: dict[str, Any] | None = None,
        fallback_channel_id: int | None = None,
    ) -> outbox.OutboxEntry | None:
        """:meth:`owe_message`; the row only when it was delivered already (its message
        to adopt), None otherwise. A key under a prefix read in this transaction
        (``world_rows_with_captives(owed_prefix=)``) and not found there is new: it is owed
        without waiting for an answer (:meth:`owe_message_unanswered`)."""
        if any(key.startswith(prefix) and key not in keys
               for prefix, keys in self._owed_read.items()):
            await self.owe_message_unanswered(key, channel_id, payload, link=link,
                                              fallback_channel_id=fallback_channel_id)
            return None
        entry = await self.owe_message(key, channel_id, payload, link=link,
                                       fallback_channel_id=fallback_channel_id)
        return entry if entry.message_id is not None else None

    async def owe_message_unanswered(
        self,
        key: str,
        channel_id: int,
        payload: dict[str, Any],
        *,
        link: dict[str, Any] | None = None,
        fallback_channel_id: int | None = None,
    ) -> None:
        """:meth:`owe_message` when nothing of the row is needed (whether it was owed or
        delivered before): the insert waits for the next statement sent, no round trip of
        its own on PostgreSQL. There its row is not handed to the outbox worker, which
        reads the server's outbox after the commit to find it; where writes run at once
        (SQLite) it is owed as :meth:`owe_message` owes, and handed over."""
        if not self._write_db().defers:
            await self.owe_message(key, channel_id, payload, link=link,
                                   fallback_channel_id=fallback_channel_id)
            return
        made = outbox.owe_statement(self.guild_id, key, channel_id, payload, link=link,
                                    fallback_channel_id=fallback_channel_id, returning=False)
        await self._write_db().defer(made.sql, made.params)
        self._unlisted_owed = True

    async def undelivered_messages(
        self, limit: int = 500, *, guild_id: int | None = None, shards: ShardSet | None = None,
    ) -> list[outbox.OutboxEntry]:
        """Owed messages of every server (or of ``guild_id``; of ``shards``' servers only,
        when given), oldest first."""
        return await outbox.undelivered(self._db, limit, guild_id, shards)

    async def owed_message(self, key: str) -> outbox.OutboxEntry | None:
        return await outbox.get(self._db, self.guild_id, key)

    async def outbox_entry(self, entry_id: int) -> outbox.OutboxEntry | None:
        return await outbox.get_by_id(self._db, self.guild_id, entry_id)

    async def outbox_entries(
        self, prefix: str = "", *, pending_only: bool = False
    ) -> list[outbox.OutboxEntry]:
        """This server's outbox rows whose key starts with ``prefix``, oldest first."""
        return await outbox.of_guild(self._db, self.guild_id, prefix=prefix,
                                     pending_only=pending_only)

    async def outbox_delivered(self, entry_id: int, message_id: int, channel_id: int) -> bool:
        return await outbox.delivered(self._write_db(), self.guild_id, entry_id, message_id,
                                      channel_id)

    async def outbox_retry(self, entry_id: int, error: str, due_at: float) -> None:
        await outbox.retry_later(self._write_db(), self.guild_id, entry_id, error, due_at)

    async def outbox_redirect(self, entry_id: int, error: str) -> bool:
        return await outbox.redirect(self._write_db(), self.guild_id, entry_id, error)

    async def outbox_give_up(self, entry_id: int, error: str) -> None:
        await outbox.give_up(self._write_db(), self.guild_id, entry_id, error)

    # -------------------------------------------------------------- timers (bot/timers.py)

    async def set_timer(self, key: str, kind: str, due_at: datetime,
                        args: dict[str, Any]) -> timers.Timer:
        """A timer of ``kind`` due at ``due_at`` (the bot clock's time), committed with this
        transaction; ``args`` go to its handler (``args["campaign"]`` ties it to a campaign,
        deleted with it). Setting ``key`` again with the same time and arguments changes
        nothing; with others it moves the timer (due again)."""
        return await timers.set_timer(self._write_db(), self.guild_id, key, kind, due_at,
                                      args)

    async def cancel_timer(self, key: str) -> bool:
        """Forget ``key``'s timer, fired or not; False when there was none."""
        return await timers.cancel(self._write_db(), self.guild_id, key)

    async def timer(self, key: str) -> timers.Timer | None:
        return await timers.get(self._db, self.guild_id, key)

    async def list_timers(self, prefix: str = "") -> list[timers.Timer]:
        """This server's timers whose key starts with ``prefix``, soonest first."""
        return await timers.of_guild(self._db, self.guild_id, prefix)

    async def due_timers(self, at: datetime, kinds: Collection[str], limit: int = 200, *,
                         shards: ShardSet | None = None) -> list[timers.Timer]:
        """Timers of every server (on ``shards``) due at ``at`` with a handler, soonest
        first (the timer worker's scan)."""
        return await timers.due(self._db, at, kinds, limit, shards)

    async def next_timer_due(self, kinds: Collection[str], *,
                             shards: ShardSet | None = None) -> datetime | None:
        return await timers.next_due(self._db, kinds, shards)

    async def take_timer(self, timer_id: int, at: datetime) -> timers.Timer | None:
        """Mark this server's timer fired at ``at``, with this transaction; None when it
        fired already, was moved later or is gone."""
        return await timers.take(self._write_db(), self.guild_id, timer_id, at)

    async def timer_failed(self, timer_id: int, error: str, retry_at: datetime) -> None:
        await timers.failed(self._write_db(), self.guild_id, timer_id, error, retry_at)

    # -------------------------------------------------------------- scheduled battles

    async def create_scheduled_battle(
        self, campaign_id: str, gang_ids: Sequence[str], territory: str | None,
        challenge_key: str | None,
    ) -> calendar.ScheduledBattle:
        """A battle the gangs are to play, with no time yet (its players propose one).
        Made again for the same ``challenge_key``, it is the battle made the first time."""
        return await calendar.create(self._write_db(), await self._campaign(campaign_id),
                                     campaign_id, list(gang_ids), territory, challenge_key)

    async def get_scheduled_battle(self, campaign_id: str,
                                   scheduled_id: str) -> calendar.ScheduledBattle:
        return await calendar.get(self._db, await self._campaign(campaign_id), campaign_id,
                                  scheduled_id)

    async def scheduled_battles(self, campaign_id: str, *,
                                active_only: bool = False) -> list[calendar.ScheduledBattle]:
        return await calendar.of_campaign(self._db, await self._campaign(campaign_id),
                                          campaign_id, active_only=active_only)

    async def update_scheduled_battle(
        self, battle: calendar.ScheduledBattle
    ) -> calendar.ScheduledBattle:
        return await calendar.update(self._write_db(), await self._campaign(battle.campaign_id),
                                     battle)

    async def calendar_settings(self, campaign_id: str) -> calendar.CalendarSettings:
        return await calendar.settings(self._db, await self._campaign(campaign_id))

    async def set_calendar_settings(self, campaign_id: str,
                                    chosen: calendar.CalendarSettings) -> None:
        await calendar.set_settings(self._write_db(), await self._campaign(campaign_id), chosen)

    # -------------------------------------------------------------- export and import

    async def export_campaign(self, campaign_id: str) -> CampaignDocument:
        """The whole campaign as a versioned document (see docs/storage.md)."""
        return await exporting.export_campaign(self._db, self.guild_id, campaign_id)

    async def import_campaign(
        self,
        document: exporting.Document | exporting.PreparedImport,
        *,
        actor: str,
        name: str | None = None,
        grant: exporting.ImportGrant | None = None,
    ) -> Campaign:
        """Create a campaign on this server from an exported document (model, dict or JSON).

        The document is untrusted: everything in it gets a fresh id, and of its Discord
        ids only those ``grant`` vouches for are kept (docs/importing.md).
        """
        self._campaign_pks.clear()
        await self._claim_server()
        return await exporting.import_campaign(
            self._write_db(), self.guild_id, document, actor=actor, name=name, grant=grant
        )
