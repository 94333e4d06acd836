"""The start message says what follows as the thread will show it."""

from __future__ import annotations

from bot.battle.render import sequence_outline
from rules.sequence import STAGES, Step


def test_the_outline_counts_the_messages_the_thread_will_post() -> None:
    campaign = sequence_outline(skirmish=False)
    assert f"Then come {len(STAGES) - 1} steps" in campaign and "12 steps" in campaign
    assert "Update Roster (Clean House, Visit the Trading Post" in campaign
    assert "report channel" in campaign and "Arbitrator" not in campaign
    assert Step.FINISHED.value not in campaign
    skirmish = sequence_outline(skirmish=True)
    assert "9 steps" in skirmish and "Report Results" not in skirmish
    assert "Post-battle Actions" not in skirmish and "no report" in skirmish
