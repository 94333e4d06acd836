"""What a /campaign settings change writes to the ledger, and what its embed shows."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.render import safe
from bot.storage import Campaign
from bot.ui.campaign import Naming, SettingsChange, settings_changes, settings_fields
from bot.ui.pictures import shows_roster_card
from rules.models import CampaignSettings, ScenarioDie


def dust_falls() -> Campaign:
    return Campaign(id="c1", guild_id=1, settings=CampaignSettings(name="Dust_Falls"),
                    arbitrator_user_ids=[5], created_at=datetime.now(UTC))


def test_a_change_is_raw_text_for_the_ledger_to_escape_once() -> None:
    before = dust_falls()
    after = before.model_copy(update={
        "settings": CampaignSettings(name="Ash*Wastes", scenario_die=ScenarioDie.D4),
        "arbitrator_user_ids": [7],
        "report_channel_id": 9,
    })
    naming = Naming(user="@user{}".format, channel="#channel{}".format)
    assert settings_changes(before, after, naming) == [
        "Name: Dust_Falls → Ash*Wastes",
        "Scenario die: D6 → D4",
        "Report channel: none → #channel9",
        "Arbitrators added: @user7",
        "Arbitrators removed: @user5",
    ]
    assert settings_changes(after, after, naming) == []


def test_the_embed_escapes_names_and_mentions_people() -> None:
    shown = dict(settings_fields(dust_falls()))
    assert shown["Name"] == safe("Dust_Falls") != "Dust_Falls"
    assert shown["Arbitrators"] == "<@5>"


def test_roster_cards_is_a_setting_of_the_campaign_over_the_bots_default() -> None:
    stored_before = dust_falls()  # a campaign stored before the setting: not set
    change = SettingsChange(roster_cards=False)
    assert change.changes_anything
    quiet = change.applied_to(stored_before)
    assert quiet.settings.roster_cards is False
    assert settings_changes(stored_before, quiet, Naming()) == [
        "Roster cards: the bot's default → off"]
    assert dict(settings_fields(quiet))["Roster cards"] == "off"

    # The player's card: wins; else the campaign's setting; else the bot's.
    assert not shows_roster_card(None, quiet, bot_default=True)
    assert shows_roster_card(True, quiet, bot_default=False)
    loud = SettingsChange(roster_cards=True).applied_to(quiet)
    assert shows_roster_card(None, loud, bot_default=False)
    assert not shows_roster_card(False, loud, bot_default=True)
    assert shows_roster_card(None, stored_before, bot_default=True)
    assert not shows_roster_card(None, stored_before, bot_default=False)
