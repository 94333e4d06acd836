"""Pasted profiles (rules/profiles.py): any spacing, with or without inches and plus signs,
and a refusal that names the first characteristic it could not read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import InvalidRequest
from rules.models import PROFILE_STATS, TARGET_STATS, Profile, stat_bounds
from rules.profiles import LABELS, parse_profile, profile_line


@st.composite
def profiles(draw: st.DrawFn) -> Profile:
    values: dict[str, int | None] = {}
    for stat in PROFILE_STATS:
        low, high = stat_bounds(stat)
        values[stat] = draw(st.none() | st.integers(low, high))
    return Profile.model_validate(values)


spaces = st.text(" \t", max_size=3)


@st.composite
def pasted(draw: st.DrawFn, profile: Profile) -> str:
    """The profile written as a player might: spacing anywhere between label and value
    and between characteristics, labels in any case, inches and "+" or not."""
    parts = []
    for stat in PROFILE_STATS:
        value = profile.get(stat)
        label = draw(st.sampled_from([LABELS[stat], LABELS[stat].upper(), stat]))
        if value is None:
            shown = "-"
        elif stat == "m":
            shown = f"{value}{draw(st.sampled_from(['', chr(34), '″']))}"
        elif stat in TARGET_STATS:
            shown = f"{value}{draw(st.sampled_from(['', '+']))}"
        else:
            shown = str(value)
        parts.append(f"{label}{draw(spaces)}{shown}")
    joined = ""
    for part in parts:
        joined += part + draw(st.text(" \t\n", min_size=1, max_size=3))
    return draw(spaces) + joined


@given(data=st.data(), profile=profiles())
def test_any_spacing_with_or_without_inches_and_plus_reads_the_same_profile(
    data: st.DataObject, profile: Profile
) -> None:
    assert parse_profile(data.draw(pasted(profile))) == profile


@given(profile=profiles())
def test_a_profile_line_reads_back_as_itself(profile: Profile) -> None:
    assert parse_profile(profile_line(profile)) == profile


def test_the_roster_line_and_the_table_form() -> None:
    line = 'M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+'
    expected = parse_profile(line)
    assert (expected.m, expected.ws, expected.ld, expected.int_) == (5, 4, 7, 7)
    table = 'M WS BS S T W I A Ld Cl Wil Int\n5" 4+ 4+ 3 3 1 4+ 1 7+ 7+ 7+ 7+'
    assert parse_profile(table) == expected
    assert parse_profile("m5ws4bs4s3t3w1i4a1ld7cl7wil7int7") == expected


@pytest.mark.parametrize(("text", "names"), [
    ('M5" WS4++ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+', "WS '4++'"),
    ('M5" WS4+ BS x S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+', "BS has no value"),
    ('M5" WS4+ BS4+ S3+ T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+', "S '3+'"),
    ('M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld13+ Cl7+ Wil7+ Int7+', "Ld 13+ is out of range"),
    ('M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+', "no Int"),
    ('M5" WS4+ WS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+', "WS is given twice"),
    ('M5" Q4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+', "'Q' is not a characteristic"),
])
def test_a_refusal_names_the_first_unreadable_characteristic(text: str, names: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_profile(text)
    assert names in refused.value.message


def test_a_dash_is_a_characteristic_the_fighter_does_not_have() -> None:
    familiar = parse_profile('M6" WS4+ BS- S2 T2 W1 I3+ A1 Ld- Cl- Wil- Int-')
    assert familiar.bs is None and familiar.ld is None and familiar.m == 6
    assert profile_line(familiar) == 'M6" WS4+ BS- S2 T2 W1 I3+ A1 Ld- Cl- Wil- Int-'
