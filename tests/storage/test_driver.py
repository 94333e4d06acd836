"""The seam's own parts: placeholders numbered for PostgreSQL, JSON paths as key lists."""

from __future__ import annotations

import pytest

from bot.storage.driver import numbered, path_parts
from bot.storage.errors import StorageError


def test_placeholders_are_numbered_outside_strings_names_and_comments() -> None:
    sql = "SELECT '?', \"a?\", x FROM t -- what?\nWHERE a = ? AND b = 'it''s ?' AND c IN (?, ?)"
    assert numbered(sql) == (
        "SELECT '?', \"a?\", x FROM t -- what?\nWHERE a = $1 AND b = 'it''s ?' AND c IN ($2, $3)"
    )


def test_json_paths_become_jsonb_set_key_lists() -> None:
    assert path_parts("$.stages[2].message_ids[0]") == ["stages", "2", "message_ids", "0"]
    assert path_parts('$.reports."a b.c".message_id') == ["reports", "a b.c", "message_id"]
    with pytest.raises(StorageError):
        path_parts("stages")
