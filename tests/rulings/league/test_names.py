import pytest

from rulings import Strike, active_strikes, build_event, load_league_rules, name_key

RULES = load_league_rules("btown")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("  John   SMITH ", "john smith"),
        ("Ｂｏｂ", "bob"),  # full-width letters (NFKC)
        ("Jose\u0301", "JOSÉ"),  # decomposed accent against the composed capital
        ("STRASSE", "straße"),  # case folding, not lower()
        ("Mary\u00a0Ann", "mary ann"),  # a no-break space is a space
    ],
)
def test_the_same_name_has_the_same_key(a, b):
    assert name_key(a) == name_key(b)


def test_different_names_differ():
    assert name_key("Jon Smith") != name_key("John Smith")
    assert name_key("Mary Ann") != name_key("MaryAnn")


def test_an_event_lists_a_name_once_whatever_its_spelling():
    with pytest.raises(ValueError, match="listed twice"):
        build_event(
            season="2026 Fall",
            location="Brewpub",
            date="2026-11-20",
            kind="regular",
            finish=[["José"], ["Jose\u0301"]],
        )


def test_3_b_strikes_match_player_and_season_by_name_key():
    strikes = [Strike(player="Jose\u0301", season="2026  fall", level=1)]
    mine = active_strikes(strikes, "JOSÉ", "2026 Fall", ["2026 Fall"], RULES)
    assert mine == strikes
