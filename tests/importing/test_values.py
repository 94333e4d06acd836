"""Loose values from exported files: numbers as text, names, id fields; gzip and JSON reading."""

from __future__ import annotations

import gzip
from typing import Any

import pytest

from bot.importing.common import decode_text, load_json, pack, unpack
from bot.importing.values import read_id, read_int, read_name, read_names
from rules.errors import InvalidRequest


@pytest.mark.parametrize(
    ("value", "expected"),
    [(4, 4), ("4", 4), ("4+", 4), ('5"', 5), (" 7 ", 7), (3.0, 3), ("120 credits", 120),
     ("15¢", 15), ("0", 0)],
)
def test_numbers_as_gang_sheets_print_them(value: Any, expected: int) -> None:
    assert read_int(value) == expected


@pytest.mark.parametrize("value", ["four", "4.5", 4.5, True, None, [], "", "4++", "1e3"])
def test_what_is_not_a_whole_number_is_refused(value: Any) -> None:
    with pytest.raises(ValueError):
        read_int(value)


def test_bounds_are_inclusive() -> None:
    assert read_int("12", low=1, high=12) == 12
    with pytest.raises(ValueError, match=r"outside 1\.\.12"):
        read_int("13", low=1, high=12)
    with pytest.raises(ValueError, match="outside"):
        read_int(-1)


def test_names_are_collapsed_and_bounded() -> None:
    assert read_name("  Krug   Ironhide ") == "Krug Ironhide"
    assert read_name(9001) == "9001"
    with pytest.raises(ValueError, match="empty"):
        read_name("   ")
    with pytest.raises(ValueError, match="longer than 100"):
        read_name("x" * 101)
    with pytest.raises(ValueError, match="not text"):
        read_name({"name": "x"})


def test_lists_of_names_take_text_or_objects_and_report_the_rest() -> None:
    names, problems = read_names(["Fearsome", {"name": "Nerves of Steel"}, 3, ""], "skills")
    assert names == ["Fearsome", "Nerves of Steel", "3"]
    assert problems == ["skills #4: the skills is empty"]
    assert read_names("Fearsome", "skills") == ([], ["skills is not a list"])


def test_ids_are_text_or_nothing() -> None:
    assert read_id(48213) == "48213"
    assert read_id(" abc ") == "abc"
    assert read_id(None) is None
    assert read_id(True) is None
    assert read_id("x" * 201) is None


def test_gzip_is_unpacked_within_the_limit() -> None:
    assert unpack(b'{"a": 1}', 100) == b'{"a": 1}'
    assert unpack(pack(b"x" * 50), 100) == b"x" * 50
    bomb = gzip.compress(b"\0" * 1_000_000)
    with pytest.raises(InvalidRequest, match="more than 1000 bytes"):
        unpack(bomb, 1000)
    with pytest.raises(InvalidRequest, match="damaged"):
        unpack(b"\x1f\x8b" + b"junk" * 10, 1000)


def test_text_and_json_are_read_with_readable_refusals() -> None:
    assert decode_text("\ufeffname".encode()) == "name"
    with pytest.raises(InvalidRequest, match="not UTF-8"):
        decode_text(b"\xff\xfe\x00")
    with pytest.raises(InvalidRequest, match=r"not valid JSON, so not a gang export \(line 1"):
        load_json(b"{nope", "a gang export")
