"""Card and action ids and the text forms of cards (docs/rules.md §1)."""

from __future__ import annotations

import pytest

from sto_odno_env.game import cards
from sto_odno_env.game.cards import (
    DRAW,
    NUM_ACTIONS,
    NUM_CARDS,
    ORDER_BASE,
    PASS,
    CardParseError,
    action_name,
    card_id,
    card_name,
    parse_card,
    parse_cards,
    parse_rank,
    rank_of,
    suit_of,
)

RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = ["♠", "♣", "♦", "♥"]
LETTERS = ["S", "C", "D", "H"]


def test_deck_and_action_space_sizes() -> None:
    assert NUM_CARDS == 36
    assert (ORDER_BASE, DRAW, PASS, NUM_ACTIONS) == (36, 40, 41, 42)


@pytest.mark.parametrize(
    ("name", "card"),
    [("6♠", 0), ("Q♠", 6), ("K♠", 7), ("A♠", 8), ("6♣", 9), ("10♦", 22), ("A♥", 35)],
)
def test_card_ids_of_rules_section_1(name: str, card: int) -> None:
    assert parse_card(name) == card
    assert card_name(card) == name


def test_card_id_is_suit_times_nine_plus_rank() -> None:
    for suit in range(4):
        for rank in range(9):
            card = card_id(suit, rank)
            assert card == suit * 9 + rank
            assert (suit_of(card), rank_of(card)) == (suit, rank)
            assert card_name(card) == RANKS[rank] + SUITS[suit]
    assert sorted(card_id(s, r) for s in range(4) for r in range(9)) == list(range(36))


@pytest.mark.parametrize("text", ["Q♠", "QS", "qs", "Qs", "qS", "q♠", " Q♠ ", "Q♤"])
def test_queen_of_spades_forms(text: str) -> None:
    assert parse_card(text) == 6


@pytest.mark.parametrize("text", ["10h", "Th", "10H", "TH", "th", "10♥", "T♥", "t♡", "10♡"])
def test_ten_of_hearts_forms(text: str) -> None:
    assert parse_card(text) == 31


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("6♣", 9),
        ("6c", 9),
        ("6♧", 9),
        ("7♦", 19),
        ("7d", 19),
        ("7♢", 19),
        ("ks", 7),
        ("KS", 7),
        ("Ah", 35),
        ("a♥", 35),
        ("jd", 23),
        ("10s", 4),
        ("ts", 4),
    ],
)
def test_other_forms(text: str, card: int) -> None:
    assert parse_card(text) == card


def test_round_trip_name_and_id_for_all_36() -> None:
    names = set()
    for card in range(NUM_CARDS):
        name = card_name(card)
        names.add(name)
        assert parse_card(name) == card
        rank, suit = RANKS[rank_of(card)], LETTERS[suit_of(card)]
        assert parse_card(rank + suit) == card
        assert parse_card((rank + suit).lower()) == card
        if rank == "10":
            assert parse_card("T" + suit) == card
            assert parse_card("t" + suit.lower()) == card
    assert len(names) == NUM_CARDS


def test_ids_pass_through() -> None:
    for card in range(NUM_CARDS):
        assert parse_card(card) == card


def test_parse_cards_lists() -> None:
    assert parse_cards("Q♠ QS qs 10h Th") == [6, 6, 6, 31, 31]
    assert parse_cards("6♠, A♥,K♠") == [0, 35, 7]
    assert parse_cards("") == []


@pytest.mark.parametrize(
    ("text", "rank"),
    [("6", 0), ("10", 4), ("t", 4), ("T", 4), ("j", 5), ("Q", 6), ("k", 7), ("A", 8), (6, 0)],
)
def test_parse_rank(text, rank: int) -> None:
    assert parse_rank(text) == rank


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "Q",
        "♠",
        "S",
        "10",
        "1♠",
        "5♠",
        "11♠",
        "B♠",
        "QX",
        "Q♠♠",
        "♠Q",
        "QSS",
        "1 0h",
        "queen of spades",
        "Q♠ K♠",
    ],
)
def test_bad_card_text_raises_card_parse_error(text: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_card(text)
    message = str(info.value)
    assert repr(text) in message
    assert "is not a card" in message
    # the message says what is allowed
    assert "Q♠" in message and "10h" in message and "Th" in message


@pytest.mark.parametrize("value", [-1, 36, 100, True, False])
def test_bad_card_ids_raise_card_parse_error(value) -> None:
    with pytest.raises(CardParseError, match="card"):
        parse_card(value)


def test_card_parse_error_is_a_value_error() -> None:
    assert issubclass(CardParseError, ValueError)
    with pytest.raises(ValueError):
        parse_card("X♠")


def test_parse_cards_names_the_bad_token() -> None:
    with pytest.raises(CardParseError, match="'Zq'"):
        parse_cards("Q♠ Zq 10h")


@pytest.mark.parametrize("text", ["", "5", "1", "11", "B", "QQ", "♠"])
def test_bad_rank_text(text: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_rank(text)
    message = str(info.value)
    assert repr(text) in message and "is not a rank" in message
    assert "allowed: 6, 7, 8, 9, 10, J, Q, K, A" in message


@pytest.mark.parametrize("card", [-1, 36])
def test_card_name_rejects_bad_ids(card: int) -> None:
    with pytest.raises(ValueError, match=r"outside 0\.\.35"):
        card_name(card)


def test_action_names() -> None:
    assert action_name(0) == "play 6♠"
    assert action_name(6) == "play Q♠"
    assert action_name(35) == "play A♥"
    assert [action_name(a) for a in range(36, 40)] == [f"order {s}" for s in SUITS]
    assert action_name(40) == "draw"
    assert action_name(41) == "pass"
    assert action_name(42) == "call"  # only legal with last_card_call (docs/rules.md §12)
    for bad in (-1, 43):
        with pytest.raises(ValueError, match=r"outside 0\.\.42"):
            action_name(bad)


def test_module_constants_agree_with_rules() -> None:
    assert list(cards.RANK_NAMES) == RANKS
    assert list(cards.SUIT_SYMBOLS) == SUITS
    assert RANKS.index("Q") == cards.QUEEN


# --- the 52-card deck (docs/rules.md §12, deck: 52) -------------------------------------------


def test_deck_of_52_ids_and_actions() -> None:
    """ids suit * 13 + rank with ranks from the 2; actions 0…51 play, 52…55 order, 56 draw,
    57 pass, 58 call: 58 actions (59 with the call)."""
    deck = cards.deck_of(52)
    assert (deck.cards, deck.ranks, deck.lowest) == (52, 13, "2")
    assert deck.rank_names[:5] == ("2", "3", "4", "5", "6")
    assert (deck.order_base, deck.draw, deck.pass_, deck.call, deck.no_card) == (52, 56, 57, 58, 52)
    assert (deck.actions(), deck.actions(call=True)) == (58, 59)
    names = {"2♠": 0, "6♠": 4, "Q♠": 10, "K♠": 11, "A♠": 12, "2♣": 13, "A♥": 51}
    for name, card in names.items():
        assert cards.parse_card(name, 52) == card
        assert cards.card_name(card, deck) == name
    assert [cards.parse_card(t, 52) for t in ("5h", "5H", "5♥", "Th")] == [42, 42, 42, 47]
    assert cards.action_name(56, 52) == "draw" and cards.action_name(55, 52) == "order ♥"
    assert cards.action_name(40, 52) == "play 3♥"  # 40 is draw only in the 36-card deck


def test_deck_of_36_is_the_module_constants() -> None:
    deck = cards.deck_of(36)
    assert deck is cards.DECK36 and deck.rank_names == cards.RANK_NAMES
    assert (deck.cards, deck.order_base, deck.draw, deck.pass_, deck.call, deck.no_card) == (
        cards.NUM_CARDS,
        cards.ORDER_BASE,
        cards.DRAW,
        cards.PASS,
        cards.CALL,
        cards.NO_CARD,
    )
    assert deck.actions() == cards.NUM_ACTIONS and deck.queen == cards.QUEEN


@pytest.mark.parametrize("text", ["2♠", "5h", "3", "4c"])
def test_low_ranks_are_not_in_the_36_card_deck(text: str) -> None:
    with pytest.raises(CardParseError, match="36-card deck"):
        cards.parse_card(text) if len(text) > 1 else cards.parse_rank(text)


def test_deck_sizes_other_than_36_and_52_are_refused() -> None:
    with pytest.raises(ValueError, match="allowed: 36, 52"):
        cards.deck_of(40)
