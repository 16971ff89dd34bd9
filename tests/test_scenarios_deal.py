"""Scenario tests for the deal, the opening and an exhausted stock: docs/rules.md §3 and §6.

Each test is a small hand-made deal (``sto_odno_env.records.scenario.Game``); the helpers are in
``tests/scenario_helpers.py``.
"""

from __future__ import annotations

from sto_odno_env.game.rules import Rules
from sto_odno_env.records.scenario import Game, deck_for
from tests.scenario_helpers import DRAW, PASS, actions, card, held, plays, step, with_effect


def test_deal_one_card_at_a_time_from_the_player_after_the_dealer():
    """§3: deal clockwise from the player after the dealer, dealer last; the dealer's last
    card opens (dealer_blind); the rest is the stock; the player after the dealer moves."""
    game = Game("classic", 3, dealer=1, deck=list(range(36)))
    # Seat 2 gets deck cards 0, 3, 6, 9, 12; seat 0 gets 1, 4, ...; seat 1 (dealer) 2, 5, ...
    assert game.hand(2) == ["6♠", "9♠", "Q♠", "6♣", "9♣"]
    assert game.hand(0) == ["7♠", "10♠", "K♠", "7♣", "10♣"]
    assert game.hand(1) == ["8♠", "J♠", "A♠", "8♣"]
    assert game.top == "J♣" and game.discard == ["J♣"]
    assert game.stock[:2] == ["Q♣", "K♣"] and len(game.stock) == 21
    assert game.player == 2
    # §3: the opening card is not an action: nothing but match and round so far.
    assert [e["type"] for e in game.events] == ["match", "round"]


# --- §3 dealer_blind opening ------------------------------------------------------------------


def test_opening_queen_gives_the_dealer_an_order_decision():
    """§3 dealer_blind: a queen opens as if the dealer played it: the dealer orders a suit."""
    game = Game("classic", dealer=1, hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♠ J♥ K♣ A♦"}, opening="Q♥")
    assert (game.player, game.phase) == (1, "ORDER")
    assert game.legal() == {"order ♠", "order ♣", "order ♦", "order ♥"}
    assert actions(game) == []
    game.order("♦")
    assert (game.player, game.phase, game.ordered_suit) == (0, "PLAY", "♦")
    assert game.legal() == plays("K♦ 10♦", "draw")


def test_opening_cover_card_must_be_covered_by_the_dealer():
    """§3 dealer_blind: an 8 opens as if the dealer played it: the dealer must cover it."""
    game = Game("classic", dealer=1, hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♥ J♥ 10♣ K♣"}, opening="8♥")
    assert (game.player, game.phase) == (1, "COVER")
    assert game.legal() == plays("9♥ J♥")
    game.play("J♥")
    assert (game.player, game.phase, game.top) == (0, "PLAY", "J♥")


def test_opening_cover_card_without_a_cover_forces_the_dealer_to_draw():
    """§3, §4 COVER: the dealer without a cover draws, forced, until one fits, and plays it."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♠ J♣ 10♣ K♣"},
        opening="8♥",
        stock="A♠ 10♥ 6♦",
    )
    assert actions(game) == [(1, DRAW, True), (1, DRAW, True), (1, card("10♥"), True)]
    assert "A♠" in held(game, 1)
    assert (game.player, game.top) == (0, "10♥")


def test_opening_penalty_hits_the_player_after_the_dealer():
    """§3 dealer_blind: a 7 opens as if the dealer played it: seat 0 draws 2, is skipped."""
    game = Game(
        "classic",
        3,
        dealer=2,
        hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♠ J♥ 7♥ K♣ A♦", 2: "8♠ 6♥ 10♥ J♦"},
        opening="7♣",
        stock="6♦ 10♠",
    )
    assert held(game, 0) == {"9♣", "J♠", "K♦", "10♦", "A♥", "6♦", "10♠"}
    assert (game.player, game.top) == (1, "7♣")
    assert game.legal() == plays("7♥ K♣", "draw")


def test_opening_penalty_in_a_duel_gives_the_dealer_the_first_turn():
    """§3, §5.1: with two players the skipped seat 0 hands the first turn to the dealer."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♠ J♥ 7♥ K♣"},
        opening="6♣",
        stock="6♦",
    )
    assert "6♦" in held(game, 0) and len(game.hand(0)) == 6
    assert game.player == 1


def test_opening_skip_hits_the_player_after_the_dealer():
    """§3 dealer_blind: an ace opens: seat 0 (after the dealer) loses the turn, draws nothing."""
    game = Game(
        "classic",
        3,
        dealer=2,
        hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♠ J♥ 7♥ K♣ A♦", 2: "8♠ 6♥ 10♥ J♦"},
        opening="A♣",
    )
    assert game.player == 1 and len(game.hand(0)) == 5


def test_opening_without_effect_the_player_after_the_dealer_moves():
    """§3 dealer_blind: without an effect the player after the dealer (seat 0 of 3) moves."""
    game = Game(
        "classic",
        3,
        dealer=2,
        hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♠ J♥ 7♥ K♣ A♦", 2: "8♠ 6♥ 10♥ J♦"},
        opening="10♣",
    )
    assert (game.player, game.phase, game.top) == (0, "PLAY", "10♣")


# --- §3 leader_plays opening ------------------------------------------------------------------


def test_leader_plays_any_card_onto_the_empty_table():
    """§3 leader_plays: everyone keeps hand_size cards; the leader plays any card, no DRAW."""
    game = Game("encyclopedia", dealer=1, hands={0: "9♣ J♠ K♦ 10♦", 1: "7♣ 9♥ J♥ A♦"})
    assert game.top is None and game.discard == []
    assert len(game.hand(0)) == len(game.hand(1)) == 4
    assert (game.player, game.phase) == (1, "PLAY")
    assert game.legal() == plays("7♣ 9♥ J♥ A♦")
    game.play("7♣")  # with its effect: seat 0 draws 2 and is skipped
    assert len(game.hand(0)) == 6
    assert (game.player, game.top) == (1, "7♣")


def test_leader_opening_with_a_queen_orders_and_with_an_eight_must_cover():
    """§3 leader_plays: the leader's first card takes its effect: a queen orders, an 8 must
    be covered (encyclopedia)."""
    game = Game("encyclopedia", dealer=0, hands={0: "Q♣ 8♦ 9♦ J♠", 1: "7♣ 9♥ J♥ A♦"})
    game.play("Q♣")
    assert (game.player, game.phase) == (0, "ORDER")
    game.order("♥")
    assert (game.player, game.ordered_suit) == (1, "♥")

    game = Game("encyclopedia", dealer=0, hands={0: "Q♣ 8♦ 9♦ J♠", 1: "7♣ 9♥ J♥ A♦"})
    game.play("8♦")
    assert (game.player, game.phase) == (0, "COVER")
    assert game.legal() == {"play Q♣", "play 9♦"}


def test_opening_penalty_under_stacking_lets_the_hit_player_respond():
    """§3, §5.2: the opening 6 hits seat 0, who may stack its own 6 onto it (stacking)."""
    game = Game(
        "classic",
        stacking=True,
        dealer=1,
        hands={0: "6♥ 9♣ J♠ K♦ 10♦", 1: "9♠ J♥ 7♥ K♣"},
        opening="6♣",
        stock="A♠ 10♠",
    )
    assert (game.player, game.phase) == (0, "RESPOND")
    assert game.legal() == {"play 6♥", "draw"}
    game.play("6♥")  # the dealer holds no 6: it takes 1 + 1 and is skipped
    assert held(game, 1) >= {"A♠", "10♠"} and len(game.hand(1)) == 6
    assert (game.player, game.top) == (0, "6♥")


def test_leader_rotation_previous_finisher_leads():
    """§3 leader_plays: the next round's leader is the previous round's finisher (seat 2 here,
    not the seat after the previous leader)."""
    rules = Rules.preset("encyclopedia").replace(hand_size=2)
    next_deck = deck_for(rules, 3, 2, {0: "6♠ 7♠", 1: "6♣ 7♣", 2: "6♦ 7♦"})
    game = Game(
        rules,
        3,
        dealer=0,
        hands={0: "9♠ K♥", 1: "9♦ K♦", 2: "9♣ Q♥"},
        stock="J♣ 10♣",
        decks=[next_deck],
    )
    game.play("9♠")
    game.play("9♦")
    game.play("9♣")
    game.pass_()  # seat 0 was forced to draw J♣ (playable), and passes
    game.pass_()  # seat 1 likewise drew 10♣
    game.play("Q♥")  # seat 2 goes out
    assert game.last("round_end")["finisher"] == 2
    assert game.last("round")["dealer"] == 2
    assert (game.player, game.top) == (2, None)
    assert game.legal() == plays("6♦ 7♦")


def test_leader_rotation_skips_a_finisher_who_went_out():
    """§3 leader_plays: if the finisher is out, the next player still in after it leads.
    A (contrived) finish bonus of +200 for Q♥ puts finisher seat 2 out."""
    rules = Rules.preset("encyclopedia").replace(hand_size=2, finish_bonus={"Q♥": {"points": 200}})
    next_deck = deck_for(rules, 3, 0, {0: "6♠ 7♠", 1: "6♣ 7♣"}, seats_in=[0, 1])
    game = Game(
        rules,
        3,
        dealer=0,
        hands={0: "9♠ K♥", 1: "9♦ K♦", 2: "9♣ Q♥"},
        stock="J♣ 10♣",
        decks=[next_deck],
    )
    game.play("9♠")
    game.play("9♦")
    game.play("9♣")
    game.pass_()
    game.pass_()
    game.play("Q♥")
    assert game.last("round_end")["finisher"] == 2 and game.last("round_end")["out"] == [2]
    assert game.last("round")["dealer"] == 0
    assert game.player == 0 and game.legal() == plays("6♠ 7♠")


def test_dealer_rotation_next_dealer_is_the_next_player():
    """§3: later rounds are dealt by the next player after the previous dealer."""
    rules = Rules.preset("classic").replace(hand_size=2)
    next_deck = deck_for(rules, 3, 0, {1: "9♠ 10♠", 2: "9♥ 10♥", 0: "J♦"}, opening="9♦")
    game = Game(
        rules,
        3,
        dealer=2,
        hands={0: "9♣ 9♦", 1: "J♥ J♦", 2: "K♥"},
        opening="10♣",
        stock="J♠ A♠",
        decks=[next_deck],
    )
    game.play("9♣")  # seats 1 and 2 cannot follow: forced draw and pass each
    game.play("9♦")
    assert game.last("round_end")["finisher"] == 0
    assert game.last("round")["dealer"] == 0
    assert held(game, 0) == {"J♦"} and game.top == "9♦"
    assert game.player == 1  # the player after the new dealer


# --- §6 Stock exhausted -----------------------------------------------------------------------


def test_reshuffle_flip_draws_the_oldest_discarded_card_first():
    """§6 reshuffle: flip — the pile but its top is turned over: oldest card on top."""
    game = Game(
        "classic",
        reshuffle="flip",
        effects=with_effect("classic", "K♠", draw=26, skip=True),
        dealer=1,
        hands={0: "K♠ 10♠ J♦ A♥ K♦", 1: "9♥ J♣ A♣ 6♥"},
        opening="9♠",
    )
    game.play("K♠")  # seat 1 takes the whole 26-card stock
    assert game.stock == [] and game.player == 0
    game.play("10♠")
    mark = len(game.events)
    game.draw()
    assert game.events[mark:] == [
        {"type": "action", "player": 1, "action": DRAW, "forced": False},
        {"type": "reshuffle", "stock": [card("9♠"), card("K♠")]},
    ]
    assert "9♠" in held(game, 1)
    assert game.stock == ["K♠"] and game.discard == ["10♠"]
    assert game.phase == "AFTER_DRAW" and game.legal() == plays("9♠", "pass")


def test_reshuffle_shuffle_makes_the_pile_but_its_top_the_stock():
    """§6 reshuffle: shuffle — the pile but its top becomes the stock in shuffled order."""
    game = Game(
        "classic",
        effects=with_effect("classic", "K♠", draw=26, skip=True),
        dealer=1,
        hands={0: "K♠ 10♠ J♦ A♥ K♦", 1: "9♥ J♣ A♣ 6♥"},
        opening="9♠",
        shuffles=["K♠ 9♠"],
    )
    game.play("K♠")
    game.play("10♠")
    game.draw()
    assert game.last("reshuffle") == {"type": "reshuffle", "stock": [card("K♠"), card("9♠")]}
    assert "K♠" in held(game, 1) and game.stock == ["9♠"] and game.discard == ["10♠"]


def test_pass_is_legal_in_play_only_when_nothing_can_be_drawn():
    """§4 PLAY, §6 empty_stock: skip — DRAW is not legal and PASS is when nothing can be drawn;
    the rest of a penalty is forgiven."""
    game = Game(
        "classic",
        effects=with_effect("classic", "K♠", draw=30, skip=True),
        dealer=1,
        hands={0: "10♠ 9♣ J♦ A♥ K♦", 1: "9♠ J♥ J♣ A♣"},
        opening="K♠",
    )
    # The opening K♠: seat 0 takes the 26-card stock, 4 are forgiven; seat 0 is skipped.
    assert len(game.hand(0)) == 5 + 26 and game.stock == [] and game.discard == ["K♠"]
    assert game.player == 1
    assert game.legal() == plays("9♠", "pass")
    game.pass_()
    assert game.player == 0 and "pass" in game.legal() and "draw" not in game.legal()
    game.play("10♠")
    # Now K♠ lies under the top card: it can be drawn, so DRAW is back and PASS is gone.
    assert game.player == 1 and game.legal() == plays("9♠", "draw")


def test_steal_from_the_first_player_clockwise_after_the_drawer():
    """§6 empty_stock: steal — with stock and pile dry the drawer takes a card from the next
    player clockwise who holds cards (wrapping around the table)."""
    game = Game(
        "yard",
        3,
        hand_size=3,
        effects=with_effect("yard", "K♠", draw=27, skip=True),
        dealer=2,
        hands={0: "7♣ 8♦ A♠", 1: "9♠ J♥ A♣", 2: "J♦ 10♣"},
        opening="K♠",
        steals=["J♦", "A♠"],
    )
    assert game.stock == [] and game.player == 1  # seat 0 took all 27, and is skipped
    game.draw()
    # Seat 1 steals J♦ from seat 2; J♦ cannot follow K♠, so PASS is forced. Seat 2 cannot
    # follow K♠ either: its DRAW is forced and steals from seat 0 (the next one holding cards).
    assert [e for e in game.events if e["type"] == "steal"] == [
        {"type": "steal", "player": 1, "from": 2, "card": card("J♦")},
        {"type": "steal", "player": 2, "from": 0, "card": card("A♠")},
    ]
    assert actions(game) == [(1, DRAW, False), (1, PASS, True), (2, DRAW, True)]
    assert "J♦" in held(game, 1) and held(game, 2) == {"10♣", "A♠"}
    assert (game.player, game.phase) == (2, "AFTER_DRAW")
    assert game.legal() == plays("A♠", "pass")


def test_steal_that_empties_a_hand_ends_the_round_without_bonus():
    """§6, §7: a player whose last card is stolen finishes: last card none, no bonus.

    Yard, three players, two cards each; a K♠ that draws 30 hands seat 0 the whole stock.
    Seat 1 draws, steals seat 2's only card, and seat 2 goes out with 0 points. Seat 0 holds
    every card but K♠ 9♠ J♥ 10♣: 240 - 4 - (9 + 2 + 10) = 215 points, over 101: the match
    ends (first_loser), ranked by total.
    """
    game = Game(
        "yard",
        3,
        hand_size=2,
        effects=with_effect("yard", "K♠", draw=30, skip=True),
        dealer=2,
        hands={0: "7♣ 8♦", 1: "9♠ J♥", 2: "10♣"},
        opening="K♠",
    )
    assert game.player == 1 and game.legal() == plays("9♠", "draw")
    rewards = step(game, DRAW)
    assert game.last("steal") == {"type": "steal", "player": 1, "from": 2, "card": card("10♣")}
    assert game.last("round_end") == {
        "type": "round_end",
        "finisher": 2,
        "last_card": None,
        "points": [215, 21, 0],
        "totals": [215, 21, 0],
        "out": [0],
    }
    assert game.last("match_end") == {
        "type": "match_end",
        "ranking": [2, 1, 0],
        "totals": [215, 21, 0],
        "truncated": False,
    }
    assert rewards == [-1.0, 0.0, 1.0]
    assert game.done
