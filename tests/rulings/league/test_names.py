import pytest

from rulings import NameFormatError, check_name, name_key, similar_name


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("  Ann   Lee ", "Ann Lee"),
        ("Ｂｅａ", "Bea"),  # full width: NFKC
        ("Jose\u0301", "José"),  # decomposed: NFKC
        ("A\u200bnn", "Ann"),  # zero-width space
        ("\ufeffAnn\u200d", "Ann"),  # byte-order mark, zero-width joiner
        ("An\u00adn", "Ann"),  # soft hyphen
        ("\u2066Ann\u2069", "Ann"),  # bidirectional isolates
        ("Ann\u3164", "Ann"),  # Hangul filler shows as a blank
        ("Ann\tLee", "Ann Lee"),  # a tab is a blank
    ],
)
def test_19_4_one_name_normalisation_nfkc_without_invisible_characters(typed, stored):
    assert check_name(typed) == stored
    assert name_key(typed) == name_key(stored)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("\u200b\u200c\u200d", "player name: missing or empty"),
        ("   ", "player name: missing or empty"),
        ("Bea\x07", r"holds a control character \(U\+0007\)"),
        ("Bea\x00", r"holds a control character \(U\+0000\)"),
        ("\x1b[31mBea", r"holds a control character \(U\+001B\)"),
        ("B" * 101, "longer than 100 characters"),
        (None, "player name: missing or empty"),
    ],
)
def test_19_4_a_name_empty_once_cleaned_or_with_control_characters_is_refused(typed, message):
    with pytest.raises(NameFormatError, match=message):
        check_name(typed, "player name")


def test_similar_name_finds_a_close_name_and_only_a_close_one():
    known = {name_key("John Smith"): "John Smith"}
    assert similar_name(name_key("Jon Smith"), known) == "John Smith"
    assert similar_name(name_key("Mars Base"), known) is None
    assert similar_name("anything", {}) is None


def test_name_key_of_ascii_text_is_the_full_normalisation():
    """The ASCII shortcut keys every ASCII name exactly as NFKC + casefold + blanks would."""
    import random
    import string
    import unicodedata

    from rulings.league.names import _visible

    rng = random.Random(19)
    alphabet = string.printable + "\x1c\x1d\x1e\x1f\x85"[:4]
    for _ in range(3000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        slow = unicodedata.normalize("NFKC", _visible(name).casefold())
        assert name_key(name) == slow, repr(name)
