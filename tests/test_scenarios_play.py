"""Scenario tests for play within a round: docs/rules.md §2 (playable), §4 (a turn), §5 (effects).

Each test is a small hand-made deal (``sto_odno_env.records.scenario.Game``). Unless said otherwise
two players sit, seat 1 deals, the opening card has no effect, and so seat 0 moves first.
``legal()`` names the actions of the player to act: ``play X``, ``order ♥``, ``draw``, ``pass``.
"""

from __future__ import annotations

from sto_odno_env.records.scenario import Game
from tests.scenario_helpers import DRAW, PASS, actions, held, ids, plays, with_effect


def test_playable_same_suit_same_rank_or_wild_queen():
    """§2: with no suit ordered, a card matches the top card's suit or rank; queens are wild."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "9♣ 10♦ J♠ Q♥ K♥", 1: "6♠ 7♠ 8♠ A♠"},
        opening="10♣",
    )
    assert game.player == 0 and game.phase == "PLAY" and game.top == "10♣"
    # 9♣ same suit, 10♦ same rank, Q♥ wild; J♠ and K♥ match nothing.
    assert game.legal() == plays("9♣ 10♦ Q♥", "draw")


def test_yard_queens_are_not_wild_but_follow_an_ordered_suit():
    """§2, §9 yard: queens order but are not wild, yet any queen may go on an ordered suit."""
    game = Game(
        "yard",
        dealer=1,
        hands={0: "Q♣ Q♥ 9♣ J♠", 1: "Q♠ 9♦ J♣"},
        opening="10♣",
    )
    # Q♣ follows by suit; Q♥ matches neither suit nor rank and is not wild here.
    assert game.legal() == plays("Q♣ 9♣", "draw")
    game.play("Q♣")
    assert game.phase == "ORDER" and game.player == 0
    game.order("♦")
    assert game.player == 1 and game.ordered_suit == "♦"
    # ♦ ordered: 9♦ by suit, Q♠ because it is a queen; J♣ (the queen's suit) is not enough.
    assert game.legal() == plays("Q♠ 9♦", "draw")


def test_ordered_suit_overrides_the_top_card_until_the_next_play():
    """§2, §4 ORDER: the ordered suit (or a queen) must follow; it holds until a card is played."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "Q♥ 9♣ J♠ K♦ 10♦", 1: "J♥ 9♠ 10♣ A♦"},
        opening="10♥",
    )
    game.play("Q♥")
    assert game.phase == "ORDER"
    assert game.legal() == {"order ♠", "order ♣", "order ♦", "order ♥"}
    game.order("♠")
    assert (game.player, game.ordered_suit, game.top) == (1, "♠", "Q♥")
    # J♥ has the queen's suit, 10♣ nothing: only the ordered ♠ is playable.
    assert game.legal() == plays("9♠", "draw")
    game.play("9♠")
    assert game.ordered_suit is None
    # back to suit/rank matching on 9♠
    assert game.legal() == plays("9♣ J♠", "draw")


def test_ordered_suit_survives_draws_and_passes():
    """§4 ORDER: ordered_suit holds until the next card is played, not until the turn ends."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "Q♥ 9♣ J♠ K♦ 10♠", 1: "J♥ 10♣ A♦ 7♦"},
        opening="10♥",
        stock="6♥",
    )
    game.play("Q♥").order("♠")
    # Seat 1 has no spade or queen: DRAW is forced, 6♥ cannot be played on ♠, PASS is forced.
    assert actions(game)[-2:] == [(1, DRAW, True), (1, PASS, True)]
    assert game.player == 0 and game.ordered_suit == "♠"
    assert game.legal() == plays("J♠ 10♠", "draw")


def test_queen_on_queen_orders_anew():
    """§4 ORDER: a queen may follow an ordered suit, and it orders a new suit."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "Q♥ 9♣ J♠ K♦ 10♦", 1: "Q♦ 9♠ 10♣ A♦"},
        opening="10♥",
    )
    game.play("Q♥").order("♠")
    game.play("Q♦")
    assert game.phase == "ORDER" and game.player == 1 and game.ordered_suit is None
    game.order("♣")
    assert (game.player, game.ordered_suit) == (0, "♣")
    assert game.legal() == plays("9♣", "draw")


# --- §5 Effects -------------------------------------------------------------------------------


def test_draw_and_skip_in_a_duel():
    """§5.1: 7 = draw 2 + skip; with two players the skip gives the turn back to the player."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "7♣ 9♣ J♠ K♦ 10♦", 1: "J♥ 9♠ 10♥ A♦"},
        opening="10♣",
        stock="6♥ 8♦ A♥",
    )
    game.play("7♣")
    assert held(game, 1) == {"J♥", "9♠", "10♥", "A♦", "6♥", "8♦"}
    assert game.stock[0] == "A♥"
    # §5.3 the top card stays in force: seat 0 plays again and must follow 7♣.
    assert (game.player, game.phase, game.top) == (0, "PLAY", "7♣")
    assert game.legal() == plays("9♣", "draw")


def test_skip_chain_in_a_duel():
    """§5.1: in a duel every skip gives the same player the turn again, so skips chain."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "A♣ A♦ 10♦ J♠ K♥", 1: "J♥ 9♠ 10♥ 6♥"},
        opening="10♣",
    )
    game.play("A♣")
    assert game.player == 0
    game.play("A♦")
    assert game.player == 0
    game.play("10♦")
    assert game.player == 1
    assert len(game.hand(1)) == 4  # an ace draws nothing


def test_penalty_hits_the_next_player_and_the_skip_jumps_over_them():
    """§5.1 with three players: 6 = draw 1 + skip; seat 1 draws, seat 2 moves."""
    game = Game(
        "classic",
        3,
        dealer=2,
        hands={0: "6♣ 9♣ J♠ K♦ 10♦", 1: "J♥ 9♠ 10♥ 6♥ K♣", 2: "8♠ 7♥ A♥ J♦"},
        opening="10♣",
        stock="7♦",
    )
    assert game.player == 0
    game.play("6♣")
    assert "7♦" in held(game, 1) and len(game.hand(1)) == 6
    assert (game.player, game.top) == (2, "6♣")


def test_skip_without_penalty_in_three_players():
    """§5.1: an ace skips the next player, who draws nothing."""
    game = Game(
        "classic",
        3,
        dealer=2,
        hands={0: "A♣ 9♣ J♠ K♦ 10♦", 1: "J♥ 9♠ 10♥ 6♥ K♣", 2: "8♠ 7♥ A♥ J♦"},
        opening="10♣",
    )
    game.play("A♣")
    assert game.player == 2 and len(game.hand(1)) == 5


def test_king_of_spades_overrides_the_kings():
    """§5: a card key replaces its rank key: K♠ draws 4 and skips, other kings do nothing."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "K♥ K♠ 9♣ J♠ 10♦", 1: "K♦ 9♠ J♥ 7♥"},
        opening="10♥",
        stock="6♣ 7♣ 8♣ 9♦",
    )
    game.play("K♥")
    assert game.player == 1 and len(game.hand(1)) == 4  # no effect: seat 1 just moves
    game.play("K♦")
    game.play("K♠")
    assert held(game, 1) == {"9♠", "J♥", "7♥", "6♣", "7♣", "8♣", "9♦"}
    assert game.player == 0  # skipped: back to seat 0 in a duel


def test_yard_king_of_spades_draws_five():
    """§9 yard: K♠ = draw 5 + skip."""
    game = Game("yard", dealer=1, hands={0: "K♠ 9♣ J♠ 10♦", 1: "9♠ 10♥ 7♥"}, opening="K♦")
    game.play("K♠")
    assert len(game.hand(1)) == 3 + 5 and game.player == 0


def test_ukrainian_seven_draws_one_without_skip_and_six_draws_two_with_skip():
    """§9 ukrainian: 7 = draw 1 (no skip), 6 = draw 2 + skip."""
    game = Game(
        "ukrainian",
        dealer=1,
        hands={0: "7♣ 6♣ 9♣ J♠ 10♦", 1: "9♠ 10♥ J♥ 7♥"},
        opening="10♣",
        stock="K♦ 8♥ 8♠ 9♦",
    )
    game.play("7♣")
    assert held(game, 1) == {"9♠", "10♥", "J♥", "7♥", "K♦"}
    assert game.player == 1  # no skip: the player who drew moves
    game.draw()  # 8♥ cannot follow 7♣: PASS is forced
    assert game.player == 0
    game.play("6♣")
    assert held(game, 1) >= {"8♠", "9♦"} and len(game.hand(1)) == 8
    assert game.player == 0


# --- §4 a turn: DRAW, AFTER_DRAW, PASS --------------------------------------------------------


def test_voluntary_draw_is_legal_with_a_playable_card():
    """§4 PLAY: with voluntary_draw DRAW is legal even when a card is playable."""
    game = Game("classic", dealer=1, hands={0: "9♣ J♠ K♦ 10♦ A♥", 1: "9♠ 10♥ J♥ 7♥"}, opening="10♣")
    assert game.legal() == plays("9♣ 10♦", "draw")
    assert "pass" not in game.legal()


def test_without_voluntary_draw_draw_only_when_nothing_is_playable():
    """§4 PLAY: voluntary_draw false — DRAW only without a playable card (and then forced)."""
    game = Game(
        "classic",
        voluntary_draw=False,
        dealer=1,
        hands={0: "9♣ J♠ 10♠ A♠ K♦", 1: "9♠ 10♥ 7♥ A♦"},
        opening="10♣",
        stock="6♥ 8♦",
    )
    assert game.legal() == plays("9♣ 10♠")  # no DRAW: seat 0 can play
    game.play("9♣")
    # Seat 1's only playable card is 9♠ and DRAW is not legal: the play is forced.
    assert actions(game)[-1] == (1, ids("9♠")[0], True)
    assert game.player == 0 and game.top == "9♠"
    game.play("J♠")
    # Seat 1 now holds nothing playable on J♠: DRAW (6♥) and PASS are both forced.
    assert actions(game)[-2:] == [(1, DRAW, True), (1, PASS, True)]
    assert "6♥" in held(game, 1)
    assert game.player == 0 and game.legal() == plays("10♠ A♠")


def test_after_draw_drawn_card_only():
    """§4 AFTER_DRAW, after_draw: drawn_card — only the drawn card (if playable) or PASS."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "9♣ J♠ K♦ 6♦ A♥", 1: "9♠ J♥ K♣ A♦"},
        opening="10♣",
        stock="10♥",
    )
    game.draw()
    assert game.phase == "AFTER_DRAW" and game.player == 0
    assert game.legal() == plays("10♥", "pass")  # 9♣ is playable but was not drawn
    game.pass_()
    assert game.player == 1 and game.phase == "PLAY"


def test_after_draw_unplayable_drawn_card_forces_pass():
    """§4 AFTER_DRAW: an unplayable drawn card leaves PASS alone, which the engine takes."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "9♣ J♠ K♦ 6♦ A♥", 1: "9♠ J♥ K♣ A♦"},
        opening="10♣",
        stock="J♦",
    )
    game.draw()
    assert actions(game) == [(0, DRAW, False), (0, PASS, True)]
    assert game.player == 1 and "J♦" in held(game, 0)


def test_after_draw_any_card():
    """§4 AFTER_DRAW, after_draw: any_card — every playable card in hand, and PASS."""
    game = Game(
        "classic",
        after_draw="any_card",
        dealer=1,
        hands={0: "9♣ J♠ K♦ 6♦ A♥", 1: "9♠ J♥ K♣ A♦"},
        opening="10♣",
        stock="J♦",
    )
    game.draw()
    assert game.phase == "AFTER_DRAW" and game.player == 0
    assert game.legal() == plays("9♣", "pass")  # J♦ drawn but unplayable; 9♣ still is


def test_draw_rule_one_takes_one_card():
    """§4 DRAW, draw_rule: one."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "9♣ J♠ K♦ 6♦ A♥", 1: "9♠ J♥ K♣ A♦"},
        opening="10♣",
        stock="J♦ K♥ 10♥ 6♥",
    )
    game.draw()
    assert "J♦" in held(game, 0) and game.stock[:3] == ["K♥", "10♥", "6♥"]
    assert game.player == 1  # J♦ unplayable: forced PASS


def test_draw_rule_until_playable():
    """§4 DRAW, draw_rule: until_playable — take cards until the one just drawn is playable."""
    game = Game(
        "classic",
        draw_rule="until_playable",
        dealer=1,
        hands={0: "9♣ J♠ K♦ 6♦ A♥", 1: "9♠ J♥ K♣ A♦"},
        opening="10♣",
        stock="J♦ K♥ 10♥ 6♥",
    )
    game.draw()
    assert held(game, 0) >= {"J♦", "K♥", "10♥"} and game.stock[0] == "6♥"
    assert actions(game) == [(0, DRAW, False)]  # one decision, three cards
    # the drawn card is the last one taken: 10♥, not 9♣ (drawn_card)
    assert game.phase == "AFTER_DRAW" and game.legal() == plays("10♥", "pass")


# --- §4 COVER ---------------------------------------------------------------------------------


def test_cover_must_be_covered_and_a_cover_on_a_cover_again():
    """§4 COVER: after an 8 the same player must cover it; an 8 played as cover needs a cover."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "8♥ 8♠ J♥ 9♠ 10♠", 1: "9♦ 10♦ J♦ A♦"},
        opening="10♥",
    )
    game.play("8♥")
    assert (game.player, game.phase) == (0, "COVER")
    assert game.legal() == plays("8♠ J♥")  # no DRAW while a cover is in hand
    game.play("8♠")
    assert (game.player, game.phase) == (0, "COVER")
    assert game.legal() == plays("9♠ 10♠")
    game.play("9♠")
    assert (game.player, game.phase, game.top) == (1, "PLAY", "9♠")


def test_a_queen_as_cover_orders_then_the_turn_passes():
    """§4 COVER, ORDER: a queen covering an 8 still orders a suit; then the turn passes."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "8♥ Q♠ J♥ K♣ A♣", 1: "9♦ 10♦ J♦ K♠"},
        opening="10♥",
    )
    game.play("8♥")
    assert game.legal() == plays("Q♠ J♥")
    game.play("Q♠")
    assert (game.player, game.phase) == (0, "ORDER")
    game.order("♦")
    assert (game.player, game.phase, game.ordered_suit) == (1, "PLAY", "♦")


def test_cover_without_a_card_draws_one_forced_card_at_a_time():
    """§4 COVER: with no cover the only action is DRAW, one card each, forced, until one fits."""
    game = Game(
        "classic",
        dealer=1,
        hands={0: "8♥ K♣ K♦ J♣ A♣", 1: "9♦ 10♦ J♦ K♠"},
        opening="10♥",
        stock="J♠ K♥ 6♥",
    )
    game.play("8♥")
    k_hearts = ids("K♥")[0]
    assert actions(game) == [
        (0, ids("8♥")[0], False),
        (0, DRAW, True),  # J♠ does not cover 8♥
        (0, DRAW, True),  # K♥ does
        (0, k_hearts, True),  # the one legal action: play it
    ]
    assert "J♠" in held(game, 0) and game.stock[0] == "6♥"
    assert (game.player, game.top) == (1, "K♥")


def test_cover_obligation_lapses_by_forced_pass_when_nothing_can_be_drawn():
    """§4 COVER, §6 empty_stock skip: when nothing can be drawn, the obligation lapses.

    Yard (queens not wild), empty_stock switched to skip, and a K♠ that draws 30 so the
    stock runs dry. Seat 0 then plays 8♥ onto ordered ♥ with only 9♣ left: the reshuffled
    pile (K♠ Q♠ Q♦) cannot cover 8♥, so three forced draws and a forced PASS follow.
    """
    game = Game(
        "yard",
        empty_stock="skip",
        effects=with_effect("yard", "K♠", draw=30, skip=True),
        dealer=1,
        hands={0: "K♠ Q♠ 8♥ 9♣", 1: "Q♦ 10♠ J♠"},
        opening="K♣",
        shuffles=["K♣", "Q♦ Q♠ K♠"],
    )
    game.play("K♠")  # seat 1 takes the 28-card stock and the reshuffled K♣; 1 is forgiven
    assert len(game.hand(1)) == 3 + 29 and game.stock == [] and game.discard == ["K♠"]
    assert game.player == 0
    game.play("Q♠").order("♥")
    game.play("Q♦").order("♥")
    mark = len(game.events)
    game.play("8♥")
    assert actions(game, mark) == [
        (0, ids("8♥")[0], False),
        (0, DRAW, True),
        (0, DRAW, True),
        (0, DRAW, True),
        (0, PASS, True),  # nothing left to draw: the cover obligation lapses
    ]
    assert held(game, 0) == {"9♣", "K♠", "Q♠", "Q♦"}
    assert (game.player, game.phase, game.top) == (1, "PLAY", "8♥")


# --- §5.2 Stacking ----------------------------------------------------------------------------


def test_stacking_respond_and_accept_with_skip():
    """§5.2: the hit player may add a same-rank penalty card; accepting takes the whole count
    and then loses the turn when the last card of the chain skips."""
    game = Game(
        "classic",
        stacking=True,
        dealer=1,
        hands={0: "6♣ 6♦ 9♣ J♠ K♦", 1: "6♥ 9♠ 10♥ 7♣"},
        opening="10♣",
        stock="J♥ A♠ 8♦",
    )
    game.play("6♣")
    # Seat 1 RESPONDs: the other 6 or accept; 7♣ would follow 6♣ but is not legal here.
    assert (game.player, game.phase) == (1, "RESPOND")
    assert game.legal() == plays("6♥", "draw")
    game.play("6♥")
    assert (game.player, game.phase) == (0, "RESPOND")
    assert game.legal() == plays("6♦", "draw")
    game.draw()  # accept: both cards, then skipped (6♥ skips)
    assert held(game, 0) == {"6♦", "9♣", "J♠", "K♦", "J♥", "A♠"}
    assert (game.player, game.phase, game.top) == (1, "PLAY", "6♥")


def test_stacking_passes_the_accumulated_penalty_on_in_three_players():
    """§5.2: a stacked 6 passes 1+1 to the next player, who holds no 6 and draws both."""
    game = Game(
        "classic",
        3,
        stacking=True,
        dealer=2,
        hands={0: "6♣ 9♣ J♠ K♦ 9♥", 1: "6♥ 9♠ 10♥ 7♣ K♣", 2: "8♠ 7♥ A♥ J♦"},
        opening="10♣",
        stock="J♥ A♠ 8♦",
    )
    game.play("6♣")
    assert game.legal() == plays("6♥", "draw")
    game.play("6♥")
    # Seat 2 holds no 6: no RESPOND, it takes 2 and is skipped.
    assert held(game, 2) == {"8♠", "7♥", "A♥", "J♦", "J♥", "A♠"}
    assert (game.player, game.phase) == (0, "PLAY")


def test_stacking_only_same_rank_penalty_cards():
    """§5.2: a card of another rank (or a same-rank card without draw) does not open RESPOND."""
    game = Game(
        "classic",
        stacking=True,
        dealer=1,
        hands={0: "K♠ 9♣ J♠ K♦ 10♦", 1: "K♥ 7♠ 9♥ J♥"},
        opening="10♠",
        stock="6♣ 7♣ 8♣ 9♦",
    )
    game.play("K♠")  # K♥ has no draw effect, 7♠ is another rank: seat 1 just takes 4
    assert len(game.hand(1)) == 8 and game.player == 0 and game.phase == "PLAY"


def test_stacking_accept_without_skip_keeps_the_turn():
    """§5.2, §9 ukrainian: the 7 draws 1 without skip, so the accepting player then moves."""
    game = Game(
        "ukrainian",
        stacking=True,
        dealer=1,
        hands={0: "7♣ 9♣ J♠ K♦ 10♦", 1: "7♦ 9♠ 10♥ J♥"},
        opening="10♣",
        stock="A♠ 8♦",
    )
    game.play("7♣")
    assert game.legal() == plays("7♦", "draw")
    game.draw()
    assert "A♠" in held(game, 1) and len(game.hand(1)) == 5
    assert (game.player, game.phase) == (1, "PLAY")


def test_stacking_accept_when_the_stock_is_dry_forgives_the_rest():
    """§5.2, §6: DRAW (accept) is legal in RESPOND; what cannot be drawn is forgiven.

    A K♠ drawing 30 empties the stock at the opening; later seat 0 accepts 7♠ (2 cards)
    but only K♠ can be drawn from the pile.
    """
    game = Game(
        "classic",
        stacking=True,
        effects=with_effect("classic", "K♠", draw=30, skip=True),
        dealer=1,
        hands={0: "7♥ 9♣ J♣ K♦ 10♦", 1: "7♠ 7♣ 7♦ A♥"},
        opening="K♠",
    )
    assert len(game.hand(0)) == 5 + 26 and game.stock == []
    assert game.player == 1
    game.play("7♠")
    assert (game.player, game.phase) == (0, "RESPOND")
    assert game.legal() == plays("7♥", "draw")
    game.draw()
    assert len(game.hand(0)) == 5 + 26 + 1  # K♠ from the pile; the second card is forgiven
    assert game.stock == [] and game.discard == ["7♠"]
    assert (game.player, game.phase) == (1, "PLAY")
