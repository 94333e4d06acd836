"""The battle report in the report channel carries its pictures, through the real bot.

A battle played to its end with /postbattle: the report the outbox posts to
the campaign's report channel has its embed and two PNG attachments, the
battle card and a half-size Gang Rating chart, read back from the fake
Discord as a player's client gets them and decoded with Pillow.
"""

from __future__ import annotations

import io

from PIL import Image

from bot.pictures.battle import (
    CARD_WIDTH,
    FOOT_HEIGHT,
    LINE_HEIGHT,
    ROW_HEIGHT,
    TITLE_HEIGHT,
)
from bot.pictures.chart import CHART_HEIGHT, CHART_WIDTH
from demo.arena import Arena
from fakediscord.entities import Attachment
from tests.e2e.postbattle_steps import (
    G,
    campaign_of_two,
    eventually,
    pick,
    run_through,
    start,
    submit,
    titled,
)


def decoded(attachment: Attachment) -> Image.Image:
    image = Image.open(io.BytesIO(attachment.data))
    image.load()
    assert image.format == "PNG", attachment.filename
    return image


async def test_a_finished_battles_report_arrives_with_its_card_and_chart(
    arena: Arena,
) -> None:
    camp = await campaign_of_two(arena, "Glass Flats", "Dust Eaters", "Rust Kin")
    _, thread = await start(arena, "bob", camp, "Dust Eaters", "Dust Eaters", "Rust Kin",
                            scenario="Stand-off")
    await pick(arena, thread, "Rust Kin", "carol", "ooa", ["Rust Kin 3"])
    await submit(arena, thread, "Dust Eaters", "bob")
    await submit(arena, thread, "Rust Kin", "carol")
    await run_through(arena, thread, ["bob", "carol"])

    [report] = await eventually(
        lambda: titled(arena.driver.messages("campaign", guild=G), "Battle report"),
        "the battle report")
    assert "Won by Dust Eaters" in report.embed_text()
    card, chart = report.attachments
    assert card.filename.startswith("battle-") and card.filename.endswith(".png")
    assert chart.filename == card.filename.removesuffix(".png") + "-chart.png"
    # The card: a band, a row per gang (a line more for each line of its aftermath past
    # the first, as the embed gives them after the figures), the foot.
    shown = [len(field["value"].splitlines()[4:]) for field in report.embeds[0]["fields"]]
    assert shown[1] >= 1  # Rust Kin 3 went Out of Action
    rows = sum(ROW_HEIGHT + LINE_HEIGHT * max(0, lines - 1) for lines in shown)
    assert decoded(card).size == (CARD_WIDTH, TITLE_HEIGHT + rows + FOOT_HEIGHT)
    assert decoded(chart).size == (CHART_WIDTH // 2, CHART_HEIGHT // 2)
    assert not report.ephemeral
