import pytest

from rulings import InvalidCardsError, RulingsError
from rulings.poker import Card, Rank, Suit, parse_cards
from rulings.poker.cards import DECK, card, format_cards


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

    from rulings.poker import evaluate

    assert pickle.loads(pickle.dumps(card("As"))) is card("As")
    assert copy.deepcopy(parse_cards("Kd Qh")) == parse_cards("Kd Qh")
    value = evaluate(parse_cards("As Ks Qs Js Ts"))
    assert pickle.loads(pickle.dumps(value)) is value


def test_card_is_an_int_whose_value_is_its_evaluator_key():
    from rulings.poker.cards import card_key

    ace = card("As")
    assert isinstance(ace, int)
    assert ace == card_key(Rank.ACE.index, Suit.SPADES.position)
    assert all(c == card_key(c.rank.index, c.suit.position) for c in DECK)
    assert (ace.rank, ace.suit, ace.code) == (Rank.ACE, Suit.SPADES, 48)
    assert [(c.rank.index, c.suit.position) for c in DECK] == [divmod(i, 4) for i in range(52)]


def test_card_text_forms():
    ten = card("10h")
    assert (str(ten), repr(ten), ten.pretty) == ("Th", "card('Th')", "T♥")
    assert f"{ten}|{ten:>4}|{ten:<3}|" == "Th|  Th|Th |"
    assert "%s" % ten == "Th"  # noqa: UP031


def test_card_equality_hash_and_order():
    two = card("2s")
    assert two != 0  # never equal to its code
    assert hash(two) == hash(int(two))  # an int: equal to, and hashes like, its own key
    assert dict.fromkeys([int(two)], 1)[two] == 1
    assert card("As") != card("Ah")
    assert len({*DECK, *parse_cards("As Kd")}) == 52
    # Cards order by rank, then suit in the order s, h, d, c: the order of their codes.
    assert sorted(parse_cards("Kd 2c As Ks 2s")) == list(parse_cards("2s 2c Ks Kd As"))
    assert list(DECK) == sorted(DECK, key=lambda c: c.code)


def test_card_is_immutable_and_shared():
    ace = card("As")
    with pytest.raises(AttributeError):
        ace.rank = Rank.KING  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ace.other = 1  # type: ignore[attr-defined]
    assert Card(14, "s") is ace
    assert Card(Rank.ACE, Suit.SPADES) is ace


@pytest.mark.parametrize(("rank", "suit"), [(15, "s"), (1, "s"), (Rank.ACE, "x"), ("A", "s")])
def test_card_constructor_rejects_what_is_not_a_card(rank, suit):
    with pytest.raises(InvalidCardsError, match="is not a card"):
        Card(rank, suit)


def test_cards_write_as_text_in_json():
    import json

    from rulings.poker import analyse, parse_hand_query

    report = analyse(parse_hand_query("As Ks vs Qh Qd", "2c 7d 9h Td 3s"))
    data = json.loads(json.dumps(report.to_json()))
    assert data["board"] == ["2c", "7d", "9h", "Td", "3s"]
    assert data["players"][0]["cards"] == ["As", "Ks"]
    assert data["players"][1]["best_five"] == ["Qh", "Qd", "Td", "9h", "7d"]
