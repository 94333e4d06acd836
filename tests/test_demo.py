"""The newcomer's first command: the demo plays a campaign through the real bot and prints it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

from bot.pictures.battle import CARD_WIDTH
from bot.pictures.canvas import A4_HEIGHT, A4_WIDTH
from bot.pictures.chart import CHART_HEIGHT, CHART_WIDTH


def test_demo_plays_a_battle_through_the_real_bot_and_prints_the_channels() -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "demo"], capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout
    assert "== #general (Underhive) ==" in text
    # A player's attempt to edit another's gang is refused privately.
    assert "[ephemeral, only Bob sees this]: The Slag Lords is not your gang" in text
    # Every step of the post-battle sequence was posted and confirmed by both players.
    for step in ("Wrap-up", "Assign/Reassign Territory", "Receive Rewards", "Collect Income",
                 "Post-battle Actions", "A. Clean House", "B. Visit the Trading Post",
                 "F. Update Gang Rating", "Report Results"):
        assert f"**✅ {step}" in text or f"**✅ Update Roster ({step})" in text, step
    assert "🎲 Lasting Injury for Zell: D66" in text
    # In time order: the Wrap-up is posted after the clicks that made it, first as it
    # opened; its confirmation comes later, as an edit.
    assert text.index("> Bob clicked [Submit]") < text.index("**▶️ Wrap-up**")
    assert text.index("**▶️ Wrap-up**") < text.index("edited '✅ Wrap-up'")
    assert text.count("\n        | **▶️ Wrap-up**\n") == 1  # posted once, then only edited
    # The report reached the campaign's report channel, with mentions readable.
    report = text.split("== #campaign (Underhive) ==", 1)[1]
    assert "Battle report: The Slag Lords vs The Venom Court" in report
    assert "Territory won: Old Ruins" in report
    # Each gang's aftermath, naming the fighters.
    assert "Out of Action: Zell (" in report and "from income" in report
    assert "<@" not in text


def test_rules_only_demo_needs_no_discord() -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "demo", "--rules-only", "--seed", "3"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Report Results" in done.stdout


def test_the_demo_writes_its_pictures_for_a_person_to_look_at(tmp_path: Path) -> None:
    folder = tmp_path / "pictures"
    done = subprocess.run([sys.executable, "-m", "bot", "demo", "--pictures", str(folder)],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    sizes = {path.name: Image.open(path).size for path in folder.iterdir()}
    assert sizes == {
        # As the bot attached them in the channel...
        "roster-the-slag-lords.png": (A4_WIDTH, A4_HEIGHT),
        "chart-dust-falls.png": (CHART_WIDTH, CHART_HEIGHT),
        # ...and what the battle report can carry, drawn from the demo's database.
        "battle-card.png": (CARD_WIDTH, sizes["battle-card.png"][1]),
        "battle-chart.png": (CHART_WIDTH // 2, CHART_HEIGHT // 2),
    }
    assert "(attachment roster-the-slag-lords.png" in done.stdout
    assert f"Pictures written: {folder / 'roster-the-slag-lords.png'}" in done.stdout


def test_options_that_would_be_ignored_are_refused(tmp_path: Path) -> None:
    for argv, said in ((["--seed", "3"], "--seed applies to --rules-only only"),
                       (["--rules-only", "--pictures", str(tmp_path / "p")],
                        "--pictures needs the full demo")):
        done = subprocess.run([sys.executable, "-m", "bot", "demo", *argv],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, argv
        assert said in done.stderr and done.stdout == ""
    assert not (tmp_path / "p").exists()
