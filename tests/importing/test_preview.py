"""The question shown before an import: within Discord's limits, names escaped, report attached."""

from __future__ import annotations

from bot.importing.plan import StagedGangImport
from bot.importing.preview import QUESTION, preview
from bot.importing.report import ImportReport
from bot.importing.yaktribe import parse_yaktribe
from rules.ruleset import RuleSet
from tests import factories as f
from tests.importing.conftest import id_maker, slag_kings


def staged(gang_name: str = "Ash Wolves", problems: int = 0) -> StagedGangImport:
    report = ImportReport(problems=[f"problem number {n} " + "x" * 80 for n in range(problems)])
    fighters = [f.fighter(f"**@everyone** {n}", id=f"f{n}") for n in range(40)]
    return StagedGangImport(campaign_id="c", gang=f.gang(gang_name, fighters=fighters),
                            source_label="Yaktribe", report=report, declared_rating=999)


def test_a_new_gang_preview_fits_and_escapes() -> None:
    question = preview(staged("**Ash** @everyone"), None, "Dust Falls")
    embeds, attachment = question.embeds, question.report
    assert attachment is None and question.content == QUESTION
    assert embeds[0].title == "Import \\*\\*Ash\\*\\* @\u200beveryone?"
    assert "\\*\\*@\u200beveryone\\*\\* 0" in (embeds[0].description or "")
    assert "Gang Rating **" in (embeds[0].description or "") and "the file says 999" in (
        embeds[0].description or ""
    )
    assert sum(len(e) for e in embeds) <= 6000
    assert "0 items" in (embeds[0].description or "")


def test_a_long_report_is_cut_and_attached_whole() -> None:
    question = preview(staged(problems=60), None, "Dust Falls")
    embeds, attachment = question.embeds, question.report
    assert attachment is not None and attachment.filename == "import-report.txt"
    assert all(len(e.description or "") <= 1900 for e in embeds)
    assert sum(len(e) for e in embeds) <= 6000
    assert "more" in (embeds[-1].description or "")
    assert len(attachment.fp.read().decode().splitlines()) == 60


def test_an_update_shows_its_differences(ruleset: RuleSet) -> None:
    parsed = parse_yaktribe(slag_kings(), ruleset=ruleset, owner="1", make_id=id_maker())
    stored = parsed.gang
    updated = stored.model_copy(deep=True)
    updated.credits = 999
    plan = StagedGangImport(campaign_id="c", gang=updated, update_of=stored.id,
                            source_label="Yaktribe")
    embeds = preview(plan, stored, "Dust Falls").embeds
    assert embeds[0].title == "Update The Slag Kings?"
    assert embeds[1].title == "Differences"
    assert embeds[1].description == "The Slag Kings: credits 245 → 999"
    same = plan.model_copy(update={"gang": stored})
    embeds = preview(same, stored, "Dust Falls").embeds
    assert "No differences" in (embeds[1].description or "")
