"""What an import skipped, did not recognise, or had to guess: shown before anything is stored."""

from __future__ import annotations

from pydantic import BaseModel, Field

from bot.render import clip
from rules.limits import MAX_REPORT_FIELDS, MAX_REPORT_PROBLEMS


class ImportReport(BaseModel):
    """Collected while parsing; stored with a staged import so the Confirm still shows it.

    - ``skipped_fields``: fields the bot does not read, by where they were
      ("gang.wealth_history", "fighter.portrait"), with how often.
    - ``unknown_items``: equipment names found in no Trading Post or
      Equipment List (kept at 0 credits), with how many.
    - ``problems``: things that did not import as written (a skipped fighter,
      a value read differently), one line each.
    - ``notes``: facts worth knowing that are not problems.

    A report is stored with its staged import, so it is bounded: past
    MAX_REPORT_PROBLEMS problems and MAX_REPORT_FIELDS distinct fields, the
    rest are only counted (``problems_not_listed``, ``fields_not_listed``).
    """

    skipped_fields: dict[str, int] = Field(default_factory=dict)
    unknown_items: dict[str, int] = Field(default_factory=dict)
    problems: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    problems_not_listed: int = 0
    fields_not_listed: int = 0

    def skip_field(self, where: str, name: str) -> None:
        key = f"{where}.{clip(name, 40)}"
        if key in self.skipped_fields or len(self.skipped_fields) < MAX_REPORT_FIELDS:
            self.skipped_fields[key] = self.skipped_fields.get(key, 0) + 1
        else:
            self.fields_not_listed += 1

    def unknown_item(self, name: str, count: int = 1) -> None:
        self.unknown_items[name] = self.unknown_items.get(name, 0) + count

    def problem(self, text: str) -> None:
        if len(self.problems) < MAX_REPORT_PROBLEMS:
            self.problems.append(text)
        else:
            self.problems_not_listed += 1

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    @property
    def clean(self) -> bool:
        # The counters only ever grow once their lists are full: the lists decide.
        return not (self.skipped_fields or self.unknown_items or self.problems)

    def lines(self) -> list[str]:
        """The report as plain lines (escape them before showing them on Discord)."""
        lines = [f"Problem: {p}" for p in self.problems]
        if self.problems_not_listed:
            lines.append(
                f"Problem: {self.problems_not_listed} more, not listed (a report keeps "
                f"{MAX_REPORT_PROBLEMS})."
            )
        if self.unknown_items:
            items = ", ".join(
                f"{name} ×{count}" if count > 1 else name
                for name, count in sorted(self.unknown_items.items(), key=lambda i: i[0].lower())
            )
            lines.append(f"Not in any Trading Post or Equipment List (kept at 0 credits): {items}")
        if self.skipped_fields:
            fields = ", ".join(
                f"{name} ×{count}" if count > 1 else name
                for name, count in sorted(self.skipped_fields.items())
            )
            more = (
                f", and {self.fields_not_listed} more (a report lists {MAX_REPORT_FIELDS})"
                if self.fields_not_listed else ""
            )
            lines.append(f"Fields not read: {fields}{more}")
        lines += [f"Note: {n}" for n in self.notes]
        return lines
