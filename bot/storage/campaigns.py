"""Campaign rows: every lookup is by guild id first, which is what isolates servers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache

from bot.storage.codec import Row, dumps, new_id, now
from bot.storage.decoded import KeptByRow
from bot.storage.driver import Connection, Select, campaign_key, the_row
from bot.storage.offloop import is_long, off_loop_if
from bot.storage.records import Campaign, TradingPostEntry
from rules.errors import InvalidRequest, NotFound
from rules.models import CampaignSettings
from rules.names import name_key, name_taken

_SELECT = (
    "SELECT pk, id, guild_id, name, is_default, scenario_die, ruleset, skirmish,"
    " arbitrator_user_ids, arbitrator_role_id, report_channel_id, created_at, trading_post,"
    " rule_data, roster_cards FROM campaigns"
)


# Distinct stored Trading Posts kept validated (one at the bounds, 2000 items, is
# about 3.5 MB of models).
TRADING_POSTS_KEPT = 32


def trading_post_from_text(text: str | None) -> list[TradingPostEntry] | None:
    """The stored Trading Post; its entries are shared by every campaign read with the
    same text (read only), so a listing neither validates nor frees them again."""
    if text is None:
        return None
    return list(_validated(text))


@lru_cache(maxsize=TRADING_POSTS_KEPT)
def _validated(text: str) -> tuple[TradingPostEntry, ...]:
    # Keyed by the stored text: a Trading Post replaced is a new key, never a stale one.
    return tuple(TradingPostEntry.model_validate(entry) for entry in json.loads(text))


def trading_post_text(entries: Sequence[TradingPostEntry] | None) -> str | None:
    if entries is None:
        return None
    return dumps([entry.model_dump(mode="json") for entry in entries])


# Campaigns kept by their stored row (bot/storage/decoded.py): every click reads its
# campaign, and building one is a tenth of a Confirm's read. Nobody changes a Campaign
# handed out (a change is a model_copy, then stored). A row with a long Trading Post or
# rule data is built every time (its entries are kept by _validated).
CAMPAIGNS_KEPT = 256
KEPT_ROW_CHARS = 16_000
_campaigns: KeptByRow[Campaign] = KeptByRow(CAMPAIGNS_KEPT, KEPT_ROW_CHARS)


def campaign_from_row(row: Row) -> Campaign:
    """The campaign of ``row``: the one built from the same stored row before, if kept."""
    return _campaigns.get(row, lambda: _built(row))


def _built(row: Row) -> Campaign:
    return Campaign(
        id=row["id"],
        guild_id=row["guild_id"],
        settings=CampaignSettings(
            name=row["name"],
            scenario_die=row["scenario_die"],
            ruleset=row["ruleset"],
            skirmish=bool(row["skirmish"]),
            roster_cards=_flag(row["roster_cards"]),
        ),
        is_default=bool(row["is_default"]),
        arbitrator_user_ids=json.loads(row["arbitrator_user_ids"]),
        arbitrator_role_id=row["arbitrator_role_id"],
        report_channel_id=row["report_channel_id"],
        created_at=row["created_at"],
        trading_post=trading_post_from_text(row["trading_post"]),
        rule_data=row["rule_data"],
    )


def _flag(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def _column(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _no_campaign(campaign_id: str) -> str:
    return f"There is no campaign with id {campaign_id} on this server."


async def campaign_row(db: Connection, guild_id: int, campaign_id: str) -> Row:
    return await the_row(db, f"{_SELECT} WHERE guild_id = ? AND id = ?",
                         (guild_id, campaign_id), _no_campaign(campaign_id))


def campaign_select(guild_id: int, campaign_id: str) -> Select:
    """:func:`campaign_row` as a SELECT to read with others (driver.fetch_together)."""
    return f"{_SELECT} WHERE guild_id = ? AND id = ?", (guild_id, campaign_id)


def no_campaign(campaign_id: str) -> NotFound:
    return NotFound(_no_campaign(campaign_id))


class CampaignGone(NotFound):
    """A campaign's key known from an earlier transaction no longer names it (it was
    deleted, or deleted and brought back as a new row)."""

    def __init__(self, guild_id: int, campaign_id: str) -> None:
        super().__init__(_no_campaign(campaign_id))
        self.guild_id, self.campaign_id = guild_id, campaign_id


async def claim_known(db: Connection, guild_id: int, campaign_id: str, pk: int) -> None:
    """Claim the campaign by the key ``pk`` an earlier transaction found, and check that
    it still names that campaign, without waiting for an answer (``Connection.defer``:
    on PostgreSQL both go with BEGIN, in the transaction's first round trip).
    CampaignGone when it does not, with nothing of the transaction kept."""
    await db.claim(campaign_key(pk))
    await db.defer("SELECT pk FROM campaigns WHERE pk = ? AND guild_id = ? AND id = ?",
                   (pk, guild_id, campaign_id), unless_empty=CampaignGone(guild_id, campaign_id))


async def claimed_campaign_pk(db: Connection, guild_id: int, campaign_id: str) -> int:
    """:func:`campaign_pk` in a write transaction: the campaign claimed for it too
    (``Connection.claim``), in the same statement where the database allows."""
    claiming = db.dialect.claiming("pk")
    if claiming is None:
        pk = await campaign_pk(db, guild_id, campaign_id)
        await db.claim(campaign_key(pk))
        return pk
    row = await the_row(db, f"SELECT pk, {claiming} FROM campaigns WHERE guild_id = ? AND id = ?",
                        (guild_id, campaign_id), _no_campaign(campaign_id))
    return int(row[0])


async def campaign_pk(db: Connection, guild_id: int, campaign_id: str) -> int:
    row = await the_row(db, *pk_select(guild_id, campaign_id), _no_campaign(campaign_id))
    return int(row[0])


def pk_select(guild_id: int, campaign_id: str) -> Select:
    """The campaign's key (:func:`campaign_pk`) as a SELECT to read with others."""
    return "SELECT pk FROM campaigns WHERE guild_id = ? AND id = ?", (guild_id, campaign_id)


def _named(guild_id: int, name: str | None) -> tuple[str, tuple[object, ...], str]:
    """Where the campaign called ``name`` is (None: the server's default one), and the
    refusal when there is none."""
    if name is None:
        return ("guild_id = ? AND is_default = 1", (guild_id,),
                "This server has no campaign yet; an Arbitrator can start one.")
    return ("guild_id = ? AND name_key = ?", (guild_id, name_key(name)),
            f"There is no campaign called '{name}' on this server.")


async def get_by_name(db: Connection, guild_id: int, name: str) -> Campaign:
    where, params, missing = _named(guild_id, name)
    return campaign_from_row(await the_row(db, f"{_SELECT} WHERE {where}", params, missing))


async def get_default(db: Connection, guild_id: int) -> Campaign:
    where, params, missing = _named(guild_id, None)
    return campaign_from_row(await the_row(db, f"{_SELECT} WHERE {where}", params, missing))


async def claimed_named(db: Connection, guild_id: int, name: str | None) -> Row:
    """The row of the campaign called ``name`` (None: the default one), claimed for a
    write transaction (``Connection.claim``) in the same statement where the database
    allows: the claim waits for the campaign's other writers; the row is as it was when
    the statement began (its settings are written under the server's claim, not this)."""
    where, params, missing = _named(guild_id, name)
    claiming = db.dialect.claiming("pk")
    also = "" if claiming is None else f", {claiming}"
    row = await the_row(db, f"{_SELECT.removesuffix(' FROM campaigns')}{also} FROM campaigns"
                        f" WHERE {where}", params, missing)
    if claiming is None:
        await db.claim(campaign_key(int(row["pk"])))
    return row


async def list_all(db: Connection, guild_id: int) -> list[Campaign]:
    rows = list(await db.execute_fetchall(f"{_SELECT} WHERE guild_id = ? ORDER BY pk",
                                          (guild_id,)))
    # Every campaign of the server may carry a Trading Post of up to 2000 items: validated
    # on the loop, a few of them held it for a tenth of a second at every listing (each
    # /campaign import lists them twice). Those not validated yet are validated here.
    return await off_loop_if(is_long(row["trading_post"] for row in rows), _from_rows, rows)


def _from_rows(rows: list[Row]) -> list[Campaign]:
    # Built, not kept: a listing of every campaign would push out those clicks read.
    return [_built(row) for row in rows]


async def _name_free(
    db: Connection, guild_id: int, name: str, except_id: str | None = None
) -> None:
    rows = list(
        await db.execute_fetchall(
            "SELECT id, name FROM campaigns WHERE guild_id = ? AND name_key = ?",
            (guild_id, name_key(name)),
        )
    )
    if rows and rows[0][0] != except_id:
        raise InvalidRequest(name_taken("campaign", name, rows[0][1], "on this server"))


async def create(
    db: Connection,
    guild_id: int,
    settings: CampaignSettings,
    *,
    arbitrator_user_ids: Sequence[int],
    arbitrator_role_id: int | None,
    report_channel_id: int | None,
    make_default: bool,
    campaign_id: str | None = None,
    created_at: str | None = None,
    trading_post: Sequence[TradingPostEntry] | None = None,
    rule_data: str | None = None,
) -> Campaign:
    await _name_free(db, guild_id, settings.name)
    has_default = bool(
        list(
            await db.execute_fetchall(
                "SELECT 1 FROM campaigns WHERE guild_id = ? AND is_default = 1", (guild_id,)
            )
        )
    )
    # The first campaign of a server is its default, so commands work at once.
    default = make_default or not has_default
    if default:
        await db.execute("UPDATE campaigns SET is_default = 0 WHERE guild_id = ?", (guild_id,))
    new = campaign_id or new_id()
    await db.execute(
        "INSERT INTO campaigns (id, guild_id, name, name_key, is_default, scenario_die, ruleset,"
        " skirmish, arbitrator_user_ids, arbitrator_role_id, report_channel_id, created_at,"
        " trading_post, rule_data, roster_cards)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            new, guild_id, settings.name, name_key(settings.name), int(default),
            settings.scenario_die.value, settings.ruleset, int(settings.skirmish),
            dumps(list(arbitrator_user_ids)), arbitrator_role_id, report_channel_id,
            created_at or now(), trading_post_text(trading_post), rule_data,
            _column(settings.roster_cards),
        ),
    )
    return campaign_from_row(await campaign_row(db, guild_id, new))


async def update(db: Connection, guild_id: int, campaign: Campaign) -> Campaign:
    """Write settings, name, Arbitrators and report channel (not the default flag)."""
    await campaign_pk(db, guild_id, campaign.id)
    await _name_free(db, guild_id, campaign.name, except_id=campaign.id)
    settings = campaign.settings
    await db.execute(
        "UPDATE campaigns SET name = ?, name_key = ?, scenario_die = ?, ruleset = ?,"
        " skirmish = ?, arbitrator_user_ids = ?, arbitrator_role_id = ?,"
        " report_channel_id = ?, roster_cards = ? WHERE guild_id = ? AND id = ?",
        (
            settings.name, name_key(settings.name), settings.scenario_die.value,
            settings.ruleset, int(settings.skirmish), dumps(campaign.arbitrator_user_ids),
            campaign.arbitrator_role_id, campaign.report_channel_id,
            _column(settings.roster_cards), guild_id, campaign.id,
        ),
    )
    return campaign_from_row(await campaign_row(db, guild_id, campaign.id))


async def set_trading_post(
    db: Connection,
    guild_id: int,
    campaign_id: str,
    entries: Sequence[TradingPostEntry] | None,
) -> Campaign:
    """Replace the campaign's own Trading Post (None: back to the rule set's)."""
    await campaign_pk(db, guild_id, campaign_id)
    await db.execute(
        "UPDATE campaigns SET trading_post = ? WHERE guild_id = ? AND id = ?",
        (trading_post_text(entries), guild_id, campaign_id),
    )
    return campaign_from_row(await campaign_row(db, guild_id, campaign_id))


async def set_rule_data(
    db: Connection, guild_id: int, campaign_id: str, rule_data: str | None
) -> Campaign:
    """Replace the campaign's own rule data, as JSON text (None: the shipped set's only)."""
    await campaign_pk(db, guild_id, campaign_id)
    await db.execute(
        "UPDATE campaigns SET rule_data = ? WHERE guild_id = ? AND id = ?",
        (rule_data, guild_id, campaign_id),
    )
    return campaign_from_row(await campaign_row(db, guild_id, campaign_id))


async def set_default(db: Connection, guild_id: int, campaign_id: str) -> Campaign:
    await campaign_pk(db, guild_id, campaign_id)
    await db.execute("UPDATE campaigns SET is_default = 0 WHERE guild_id = ?", (guild_id,))
    await db.execute(
        "UPDATE campaigns SET is_default = 1 WHERE guild_id = ? AND id = ?",
        (guild_id, campaign_id),
    )
    return campaign_from_row(await campaign_row(db, guild_id, campaign_id))


async def delete(db: Connection, guild_id: int, campaign_id: str) -> None:
    """Delete a campaign with all it holds; the oldest remaining one becomes default."""
    row = await campaign_row(db, guild_id, campaign_id)
    await db.execute("DELETE FROM campaigns WHERE pk = ?", (row["pk"],))
    if row["is_default"]:
        await db.execute(
            "UPDATE campaigns SET is_default = 1 WHERE pk ="
            " (SELECT MIN(pk) FROM campaigns WHERE guild_id = ?)",
            (guild_id,),
        )
