"""A closing Confirm reads the battle's rosters once (docs/benchmarks.md): in the write
that stores the next step's rolls, whose ledger check that nothing changed in between
is made against the rows that write read, not against a second read of them; and not
at all when the next step rolls nothing as it opens. The check
still refuses a decision made from a world that changed before its write
(tests/storage/test_apply.py, tests/e2e/test_concurrency.py). Real SQLite file; the
statements are recorded with a spy on the connection the database threads use.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, cast

import pytest

from bot.battle import engine
from bot.battle.state import Phase
from bot.storage import Storage
from bot.storage.driver import Row
from bot.storage.ledger import affected
from bot.storage.on_thread import ThreadConnection
from tests import factories as f
from tests.test_battle_flow import ALICE, BOB
from tests.test_battle_round_trips import GUILD, Bot, _stored_run


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every query run on a database thread's connection."""
    made: list[str] = []
    query = ThreadConnection.execute_fetchall

    async def recorded(conn: ThreadConnection, sql: str,
                       params: Iterable[Any] = ()) -> Sequence[Row]:
        made.append(sql)
        return await query(conn, sql, params)

    monkeypatch.setattr(ThreadConnection, "execute_fetchall", recorded)
    yield made


@pytest.mark.sqlite_only("records the statements of the database threads")
async def test_a_closing_confirm_reads_each_roster_once(
    storage: Storage, statements: list[str]
) -> None:
    campaign_id, run = await _stored_run(storage)
    # Its income is the first roll of a step that changes a gang (Collect Income).
    await storage.write(GUILD).add_territory(campaign_id,
                                f.territory("Sump", id="t1", controller="g1"), actor="10")
    bot = cast(Any, Bot(storage))
    checked_first = without = 0
    while run.current is not None and run.phase is Phase.SEQUENCE:
        stage = run.current.number
        await engine.confirm_stage(engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1"), stage)
        statements.clear()
        closing = await engine.confirm_stage(engine.RunCall(bot, GUILD, BOB, campaign_id, "b1"),
                                             stage)
        run = closing.run
        touching = [bool(affected(p.result.changes)[0]) for p in closing.decision.actions]
        fighter_reads = [sql for sql in statements if " FROM fighters WHERE gang_pk IN " in sql]
        # One read for the decision, whose first action is checked against it; each
        # later action that changes a gang is checked against a read of what the action
        # before it wrote. The old code read them again for the first action as well.
        first = 1 if touching and touching[0] else 0
        # A step that rolls nothing as it opens shows gang names only (the end of the
        # sequence owes the battle report, drawn from the rosters).
        needed = 1 if closing.decision.actions or run.phase is Phase.FINISHED else 0
        assert len(fighter_reads) == needed + sum(touching) - first, (stage, fighter_reads)
        checked_first += first
        without += 1 - needed
    assert run.phase is Phase.FINISHED
    assert checked_first  # some step's first roll changed a gang
    assert without  # and some step rolled nothing
