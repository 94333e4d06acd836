"""``munda-arbitrator demo``: see the whole thing work without a Discord token."""

from __future__ import annotations

from bot.demo_rules import run_rules_demo


def run_demo(*, seed: int, rules_only: bool) -> int:
    """Play a seeded battle's whole post-battle sequence and print every step."""
    return run_rules_demo(seed=seed)
