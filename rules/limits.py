"""How much one imported file may hold: a gang, a Trading Post, a campaign, rule data.

The one place these bounds are defined (docs/importing.md, "Limits", lists
them all; a test checks the table against this module). Every list an import
reads is bounded, every text has a length and every number a range, so a
hostile file can neither fill the database, nor keep a worker (or the drawing
of a roster card) busy for long, nor store what the bot's own export could
not read back. A file over a bound is refused whole, with a message naming
the bound: cutting it short silently would import a gang that is not the one
in the file. The byte size of a file is bounded separately
(``[importing] max_import_bytes``).

The bounds live with the rules, not the bot, because the rule data model
(:mod:`rules.ruledata`) holds them as field constraints: every path that
validates rule data (an attachment, a campaign export, a shipped data set,
the stored copy) is held to the same ones.
"""

from __future__ import annotations

from rules.errors import InvalidRequest

# --------------------------------------------------------------------------- any file

# Any JSON file: digits of one number (Discord's 19-digit ids fit; Python itself stops
# at 4300, and converting thousands of such numbers takes seconds).
MAX_NUMBER_DIGITS = 30
# Entries of all lists and objects of one gang, Trading Post or rule data file together
# (a file at every bound below has fewer): the JSON decoder reads texts without letting
# the event loop run, so only their number bounds how long it holds it.
MAX_JSON_VALUES = 200_000
# Lists and tables inside one another (a campaign export; a rule data file, TOML too).
MAX_DEPTH = 64
# Credits and costs: the rules' own bound.
MAX_CREDITS = 1_000_000

# --------------------------------------------------------------------------- one gang

# A Yaktribe export or a /gang export file.
MAX_FIGHTERS = 200
MAX_VEHICLES = 50  # crewed and in the Stash, each
MAX_FIGHTER_ITEMS = 50  # a fighter's equipment, a vehicle's equipment or upgrades
MAX_QTY = 20  # one Yaktribe equipment line ("qty")
MAX_STASH_ITEMS = 200
MAX_GANG_ITEMS = 1000  # everything the gang owns, counted together
MAX_SKILLS = 30
MAX_INJURIES = 30  # a fighter's Lasting Injuries, a vehicle's Lasting Damage
MAX_ADVANCEMENTS = 40
MAX_SPECIAL_RULES = 30
MAX_TERRITORIES = 100
# Any one text in a gang file (a skill, an injury, a rule): names have their own 100.
MAX_TEXT = 200
# XP, kills, battles fought; credits and costs have MAX_CREDITS.
MAX_COUNT = 100_000
# A fighter's bounded lists, by the field that holds each: its bound, and what a
# refusal calls its entries ("skills for 'Krug'").
FIGHTER_LISTS: dict[str, tuple[int, str]] = {
    "equipment": (MAX_FIGHTER_ITEMS, "items"),
    "skills": (MAX_SKILLS, "skills"),
    "lasting_injuries": (MAX_INJURIES, "injuries"),
    "special_rules": (MAX_SPECIAL_RULES, "special rules"),
    "advancements": (MAX_ADVANCEMENTS, "advancements"),
}

# --------------------------------------------------------------------------- Trading Post

MAX_TRADING_POST_ITEMS = 2000
MAX_COLUMNS = 50  # columns of a CSV header, distinct keys of the JSON items

# --------------------------------------------------------------------------- campaign export

# The most entries of each list a campaign file may have, by the list's key. The
# per-gang lists match what /gang import accepts; the campaign-wide ones leave room
# for years of play. Its rule data is held to the rule data bounds below as well.
CAMPAIGN_LIST_LIMITS: dict[str, int] = {
    "gangs": 200,
    "fighters": 200,
    "vehicles": 100,
    "stash_vehicles": 100,
    "stash": 1000,
    "territories": 500,
    "battles": 10_000,
    "sequences": 10_000,
    "ledger": 200_000,
    "gang_imports": 1000,
    "trading_post": 2000,
}
# Any other list of a campaign file (skills, equipment, dice faces, a sequence's stages...).
CAMPAIGN_OTHER_LIST = 1000
# SQLite keeps signed 64-bit integers.
MAX_STORED_INT = 2**63 - 1

# --------------------------------------------------------------------------- rule data

# Generous enough for every House of the game with its Hangers-on, Brutes, Trading Post
# and skill sets in one file; the largest official lists are well inside each bound.
MAX_HOUSES = 100
MAX_FIGHTER_TYPES = 100  # of one House List
MAX_VEHICLE_TYPES = 100  # of one House List
MAX_EQUIPMENT_LIST = 200  # of one fighter type or vehicle type
# Weapons; wargear (each): a campaign's own Trading Post fits, so its rule data exports.
MAX_ITEMS = MAX_TRADING_POST_ITEMS
MAX_SKILL_SETS = 100  # six skills each
MAX_HANGERS_ON = 200
MAX_RULE_TERRITORIES = 200
# Campaign types (Dominion, Law and Misrule...) of one rule data file.
MAX_CAMPAIGN_TYPES = 20
MAX_TABLE_ENTRIES = 100  # of a dice table, the scenarios, advancements, Hanger-on limits
MAX_EFFECTS = 10  # of one injury result, of one Territory's Boons
MAX_BOONS = 20  # Boon texts of one Territory
MAX_SHORT_LIST = 20  # characteristics, categories, re-rolled results, recruit lines...
# A skill, a special rule, a characteristic, a dice expression, a Boon line.
MAX_RULE_TEXT = 200
# A description: a rule set's, an injury result's.
MAX_DESCRIPTION = 1000
# A dice result an injury table or a Boon names (a D66 table reads 11..66).
MAX_DICE_RESULT = 100
# How far one injury or advancement moves a characteristic.
MAX_STAT_CHANGE = 10
# An advancement's or table's XP cost; a Hanger-on's Reputation.
MAX_XP_COST = 1000
MAX_REPUTATION = 1000

# --------------------------------------------------------------------------- reports

# What an import report keeps: problems beyond this are counted, not listed.
MAX_REPORT_PROBLEMS = 200
MAX_REPORT_FIELDS = 100


def check_count(count: int, limit: int, what: str, *, so_far: bool = False) -> None:
    """Refuse a file that lists more than ``limit`` of ``what`` ("skills for 'Krug'").

    ``so_far``: ``count`` is where reading stopped, not the whole file's count.
    """
    if count > limit:
        counted = f"more than {limit}" if so_far else str(count)
        raise InvalidRequest(
            f"That file lists {counted} {what}; this bot reads at most {limit}. "
            "Nothing was imported."
        )
