"""rules.names: the stored form of a name and the key names are compared in."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from rules.models import CampaignSettings, Gang
from rules.names import (
    checked_name,
    clean,
    did_you_mean,
    name_key,
    name_taken,
    nearest_name,
    same_name,
    visible,
)

# Any text, including the characters the normaliser exists for.
texts = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from("\u200b\u200c\u200d\u2060\ufeff\u00ad\u202e\u202d\u2066\u2069"
                        "\u3164\u2800\u034f\ufe0f \t\u00a0\u3000аеорсхуіΑΒΕΗΙΚΜΝΟΡΤΧΥΖ’–"),
    ),
    max_size=40,
)
# Latin names, and the Cyrillic and Greek letters that pass for their letters.
LATIN = "aeopcxyiABEHIKMNOPTXYZ"
LOOKALIKE = "аеорсхуіΑΒΕΗΙΚΜΝΟΡΤΧΥΖ"


@given(texts)
def test_clean_is_idempotent(text: str) -> None:
    assert clean(clean(text)) == clean(text)


@given(texts)
def test_the_key_of_a_name_is_the_key_of_its_clean_form_and_of_itself(text: str) -> None:
    assert name_key(clean(text)) == name_key(text)
    assert name_key(name_key(text)) == name_key(text)


@given(texts)
def test_a_clean_name_has_no_invisible_characters_nor_stray_spaces(text: str) -> None:
    cleaned = clean(text)
    assert cleaned == cleaned.strip() and "  " not in cleaned
    assert not any(unicodedata.category(c) in ("Cf", "Cc", "Cs") for c in cleaned)
    assert not any(c in "\u3164\u2800\u034f\ufe0f" for c in cleaned)
    assert unicodedata.is_normalized("NFKC", cleaned)


@given(texts)
def test_a_checked_name_is_never_invisible_nor_too_long(text: str) -> None:
    try:
        name = checked_name(text)
    except ValueError:
        assert not visible(text) or len(clean(text)) > 100
        return
    assert visible(name) and name_key(name) and 1 <= len(name) <= 100


@given(st.text(st.sampled_from(LATIN + " "), min_size=1, max_size=20), st.data())
def test_look_alike_letters_give_the_same_key(latin: str, data: st.DataObject) -> None:
    swap = dict(zip(LATIN, LOOKALIKE, strict=True))
    chosen = data.draw(st.lists(st.booleans(), min_size=len(latin), max_size=len(latin)))
    disguised = "".join(swap[c] if pick and c in swap else c for c, pick in zip(latin, chosen,
                                                                               strict=True))
    assert name_key(disguised) == name_key(latin)


@given(texts)
def test_case_never_makes_two_names(text: str) -> None:
    assert name_key(text.casefold()) == name_key(text)


@pytest.mark.parametrize(
    "twin",
    [
        "Red Ones\u200b",          # zero-width space
        "Red\u200d Ones",          # zero-width joiner
        "\u202eRed Ones",          # right-to-left override
        "\u2066Red Ones\u2069",    # bidi isolate
        "Red\u00a0Ones",           # no-break space
        "Red \u3164 Ones",         # Hangul filler as a space
        "Red Оnes",                # Cyrillic O
        "Rеd Onеs",                # Cyrillic e
        "RED ΟΝΕS",                # Greek capitals
        "Ｒｅｄ　Ｏｎｅｓ",           # full width
        "𝐑𝐞𝐝 𝐎𝐧𝐞𝐬",                # mathematical bold
        "  red   ONES ",
        "\ua4e3ed Ones",           # Lisu R
        "\u13a1ed Ones",           # Cherokee R
        "Red \u13a4nes",           # Cherokee O (with a tick the table spells O')
        "Red One\ua4e2",           # Lisu S
        "Red O\u0578es",           # Armenian n
    ],
)
def test_names_that_look_alike_are_the_same_name(twin: str) -> None:
    assert same_name(twin, "Red Ones")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Gang 1", "Gang l"),
        ("Squad 0", "Squad O"),
        ("Café", "Cafe"),
        ("Burn", "Bum"),
        ("Red Ones", "Red Onez"),
        ("Rex", "Rox"),
        ("Маша", "Мама"),
        ("Шахтёры", "Waxtepbi"),
        ("Red Ơnes", "Red Ones"),  # an accent (the horn) on a Latin letter, as "Café"
    ],
)
def test_names_a_player_can_tell_apart_stay_different(one: str, other: str) -> None:
    assert not same_name(one, other)


def test_fighters_in_other_scripts_meet_their_latin_twins() -> None:
    assert same_name("\ua4d7rag", "Krag")  # Lisu K
    assert same_name("Kra\u0261", "Krag")  # Latin script g
    assert same_name("\u0399ron", "Iron")  # Greek capital iota is a capital I


def test_case_insensitivity_holds_in_other_scripts_too() -> None:
    assert same_name("МАМА", "мама")
    assert same_name("ΣΚΙΑ", "σκια")


def test_typographic_dashes_and_quotes_are_the_plain_ones() -> None:
    assert same_name("Slag Lord\u2019s Boys", "Slag Lord's Boys")
    assert same_name("Ash\u2013Wolves", "Ash-Wolves")


def test_the_stored_form_drops_hidden_characters_and_keeps_the_letters() -> None:
    assert clean("  Red\u200b  Ones\u202e ") == "Red Ones"
    assert clean("Ｒｅｄ") == "Red"
    assert clean("Rе\u200bd") == "Rеd"  # a Cyrillic letter is kept as typed; only the key folds it
    assert clean("Cafe\u200b\u0301") == "Café"  # the accent meets its letter


@pytest.mark.parametrize("blank", ["\u200b", "\u200b\u200d\u2060", "\u202e\u202c", "\u3164",
                                   "\u2800 \u2800", "\ufe0f", "\u0301"])
def test_a_name_with_nothing_visible_is_refused_politely(blank: str) -> None:
    with pytest.raises(ValueError, match=r"nothing visible in it.*Please use letters"):
        checked_name(blank, "gang name")


def test_an_empty_name_is_refused_as_empty() -> None:
    with pytest.raises(ValueError, match="The gang name cannot be empty"):
        checked_name("  \t ", "gang name")


def test_the_length_limit_counts_the_clean_name() -> None:
    assert checked_name("x" * 100 + "\u200b" * 20) == "x" * 100
    with pytest.raises(ValueError, match="at most 100"):
        checked_name("\ufdfa" * 10)  # one character that NFKC spells out in 18


def test_every_model_name_is_stored_clean_and_never_invisible() -> None:
    gang = Gang(id="g", name="Red\u200b Ones\u202e", house="\uff27oliath", owner="1")
    assert (gang.name, gang.house) == ("Red Ones", "Goliath")
    gang.name = "  Blue\u2060 Ones "
    assert gang.name == "Blue Ones"
    with pytest.raises(ValidationError, match="nothing visible"):
        CampaignSettings(name="\u200b")


def test_a_refusal_names_the_look_alike_it_clashes_with() -> None:
    same = name_taken("gang", "red ones", "Red Ones", "in this campaign")
    assert same == "There is already a gang called 'red ones' in this campaign."
    alike = name_taken("gang", "Red Оnes", "Red Ones", "in this campaign")
    assert "looks the same as the gang 'Red Ones' in this campaign" in alike
    assert "choose a name that can be told apart" in alike


def test_the_nearest_name_is_suggested_for_a_typo() -> None:
    gangs = ["The Slag Lords", "The Venom Court", "Ash Wolves"]
    assert nearest_name("Slag Lord", gangs) == "The Slag Lords"
    assert nearest_name("venom", gangs) == "The Venom Court"
    assert nearest_name("Ash Wolfs", gangs) == "Ash Wolves"
    assert nearest_name("Goliath Forge", gangs) is None
    assert nearest_name("  ", gangs) is None
    assert did_you_mean("Slag Lord", gangs) == " Did you mean 'The Slag Lords'?"
    assert did_you_mean("Nobody", gangs) == ""
