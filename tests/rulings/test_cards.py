import pytest

from rulings import Card, InvalidCardsError, Rank, RulingsError, Suit, parse_cards
from rulings.cards import DECK, card, format_cards


def strs(text: str) -> list[str]:
    return [str(c) for c in parse_cards(text)]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("As Ks", ["As", "Ks"]),
        ("as ks", ["As", "Ks"]),
        ("AS,KS", ["As", "Ks"]),
        ("AsKs", ["As", "Ks"]),
        ("10s", ["Ts"]),
        ("Ts", ["Ts"]),
        ("A♠ K♥", ["As", "Kh"]),
        ("A♠️K♥️", ["As", "Kh"]),
        ("Ah", ["Ah"]),
        ("  2c ,  7d;9h /Td+jc  ", ["2c", "7d", "9h", "Td", "Jc"]),
        ("q♦ 3♣", ["Qd", "3c"]),
        ("", []),
    ],
)
def test_parse_cards_accepts_what_players_type(typed, expected):
    assert strs(typed) == expected


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("1x", '"1x" is not a card: use rank 2-9/T/J/Q/K/A and suit s/h/d/c'),
        ("As Kx", '"Kx" is not a card'),
        ("AsKx", '"Kx" is not a card'),
        ("A", '"A" is not a card'),
        ("11s", '"11s" is not a card'),
        ("As As", "As appears twice"),
        ("as AS", "As appears twice"),
        ("As Ks Qs Js Ts 9s 8s 7s", "Too many cards: 8 given, at most 7"),
    ],
)
def test_parse_cards_rejects_bad_input_naming_the_token(typed, message):
    with pytest.raises(InvalidCardsError, match=message.replace("(", r"\(")) as info:
        parse_cards(typed)
    assert isinstance(info.value, RulingsError)
    assert "\n" not in str(info.value)


def test_parse_cards_max_cards_is_configurable():
    assert len(parse_cards("2c 3c 4c 5c 6c 7c 8c 9c", max_cards=None)) == 8
    with pytest.raises(InvalidCardsError, match="at most 5"):
        parse_cards("2c 3c 4c 5c 6c 7c", max_cards=5)


def test_cards_are_shared_values_with_codes():
    assert Card(Rank.ACE, Suit.SPADES) is card("As")
    assert card("As") == Card(Rank.ACE, Suit.SPADES)
    assert len(set(DECK)) == 52
    assert [c.code for c in DECK] == list(range(52))
    assert card("2s").code == 0
    assert card("Ac").code == 51
    assert card("Th").pretty == "T♥"
    assert format_cards(parse_cards("as td")) == "As Td"
    assert repr(card("Qd")) == "card('Qd')"


def test_card_rejects_more_than_one():
    with pytest.raises(InvalidCardsError, match="not one card"):
        card("As Ks")


def test_rank_words():
    assert Rank.SIX.plural == "Sixes"
    assert Rank.TEN.word == "Ten"
    assert Rank.ACE > Rank.KING


def test_cards_and_hand_values_survive_pickling_as_the_shared_objects():
    import copy
    import pickle

    from rulings import evaluate

    assert pickle.loads(pickle.dumps(card("As"))) is card("As")
    assert copy.deepcopy(parse_cards("Kd Qh")) == parse_cards("Kd Qh")
    value = evaluate(parse_cards("As Ks Qs Js Ts"))
    assert pickle.loads(pickle.dumps(value)) is value
