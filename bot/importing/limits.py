"""How much one imported gang or Trading Post may hold (docs/importing.md, "Limits").

Every list an import reads is bounded, so a hostile file can neither fill
the database nor keep a worker busy for long. A file over a bound is refused
whole, with a message naming the bound: cutting it short silently would
import a gang that is not the one in the file. The byte size of a file is
bounded separately (``[importing] max_import_bytes``).
"""

from __future__ import annotations

from rules.errors import InvalidRequest

# Any JSON file: digits of one number (Discord's 19-digit ids fit; Python itself stops
# at 4300, and converting thousands of such numbers takes seconds).
MAX_NUMBER_DIGITS = 30
# Entries of all lists and objects of one gang or Trading Post file together (a gang at
# every bound below has fewer): the JSON decoder reads texts without letting the event
# loop run, so only their number bounds how long it holds it.
MAX_JSON_VALUES = 200_000

# One gang (a Yaktribe export or a /gang export file).
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
# XP, kills, battles fought; credits and costs have the rules' own bound (1,000,000).
MAX_COUNT = 100_000

# One Trading Post file.
MAX_TRADING_POST_ITEMS = 2000
MAX_COLUMNS = 50  # columns of a CSV header, distinct keys of the JSON items

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
