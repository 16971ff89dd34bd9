"""Scenario tests for the end of a round and the match: docs/rules.md §7, §8, §9 and the rewards.

Rounds are kept short with ``hand_size=2`` (the dealer holds one card and the opening card
under dealer_blind). A typical round: seat 0 plays, the others cannot follow and are forced
to draw and pass, seat 0 plays its last card. Totals from earlier rounds are preloaded with
``preload`` where a test needs them ("as if earlier rounds had scored these").
"""

from __future__ import annotations

import numpy as np
import pytest

from sto_odno_env.game import engine
from sto_odno_env.game.rules import PRESETS, Rules
from sto_odno_env.records.scenario import Game, deck_for
from tests.scenario_helpers import DRAW, card, duel, preload, round_end, step

# --- §7 scoring, §9 presets -------------------------------------------------------------------


PRESET_FIELDS = "players hand_size opening draw_rule reshuffle empty_stock cover_can_finish"
PRESET_FIELDS += " reset_at_target match_end"
PRESET_TABLE = {  # §9, in the order of PRESET_FIELDS
    "classic": "2-6 5 dealer_blind one shuffle skip no yes last_survivor",
    "yard": "2-6 4 dealer_blind one shuffle steal no yes first_loser",
    "nines": "2-4 5 dealer_blind one shuffle skip no yes first_loser",
    "encyclopedia": "2-6 4 leader_plays until_playable flip skip yes no last_survivor",
    "ukrainian": "2-6 5 dealer_blind one shuffle skip no yes last_survivor",
}


def table_value(text: str):
    if "-" in text:
        return tuple(int(n) for n in text.split("-"))
    return {"yes": True, "no": False}.get(text, int(text) if text.isdigit() else text)


@pytest.mark.parametrize("name", tuple(PRESET_TABLE))
def test_preset_table(name):
    """§9: the presets of the sources' rules, their switches as tabled (the effects, points
    and bonuses are exercised by the scenarios in these files). micro, the research preset,
    has its own row of §9, checked in tests/test_rules.py."""
    rules = Rules.preset(name)
    expected = [table_value(text) for text in PRESET_TABLE[name].split()]
    assert [getattr(rules, field) for field in PRESET_FIELDS.split()] == expected
    # All presets:
    assert rules.voluntary_draw and rules.after_draw == "drawn_card"
    assert not rules.stacking and not rules.last_card_effects
    assert (rules.target, rules.max_turns) == (101, 5000)


@pytest.mark.parametrize(("last", "bonus"), [("9♦", 0), ("Q♥", -20), ("Q♠", -40)])
def test_classic_scoring_and_queen_bonuses(last, bonus):
    """§7, §9 classic: the others score their cards (A 11 + K 4); a last Q −20, Q♠ −40.
    A last queen orders nothing: the round ends on the play itself."""
    game = duel("classic", last)
    game.play("9♣")
    assert game.player == 0 and game.hand(1) == ["A♦", "K♥"]
    game.play(last)
    end = next(i for i, e in enumerate(game.events) if e["type"] == "round_end")
    assert game.events[end - 1]["action"] == card(last)  # no ORDER after a last queen
    assert game.events[end] == {
        "type": "round_end",
        "finisher": 0,
        "last_card": card(last),
        "points": [bonus, 15],
        "totals": [bonus, 15],
        "out": [],
    }
    assert game.events[end + 1]["type"] == "round" and game.events[end + 1]["round"] == 1


def test_classic_nine_scores_nothing():
    """§9 classic points: 9 = 0 (seat 1 ends holding 9♥ K♦: 0 + 4)."""
    game = Game(
        "classic",
        hand_size=2,
        dealer=1,
        hands={0: "J♣ J♠", 1: "9♥"},
        opening="10♣",
        stock="K♦",
    )
    game.play("J♣")  # seat 1 is forced to draw K♦ and pass
    game.play("J♠")
    assert round_end(game) == (0, card("J♠"), [0, 4], [0, 4], [])


def test_yard_king_of_spades_bonus_and_void_last_card_effect():
    """§7, §9 yard: a last K♠ scores −50 and its draw 5 is void; a 9 counts 9 points."""
    game = Game(
        "yard",
        hand_size=2,
        dealer=1,
        hands={0: "9♠ K♠", 1: "J♦"},
        opening="10♠",
        stock="9♥",
    )
    game.play("9♠")
    # Seat 1 was forced to draw 9♥, which follows 9♠: a real choice.
    assert (game.player, game.phase) == (1, "AFTER_DRAW")
    game.pass_()
    game.play("K♠")
    assert round_end(game) == (0, card("K♠"), [-50, 11], [-50, 11], [])


@pytest.mark.parametrize(("queen", "bonus"), [("Q♣", -20), ("Q♠", -40), ("Q♥", -60), ("Q♦", -80)])
def test_encyclopedia_queen_bonuses_double_the_others(queen, bonus):
    """§9 encyclopedia: each queen has its own bonus and doubles the others' points.

    Leader 0 opens 10♣; seat 1 (A♠ 7♥) draws until playable: J♣, and passes:
    (11 + 7 + 2) × 2 = 40."""
    game = Game(
        "encyclopedia",
        hand_size=2,
        dealer=0,
        hands={0: f"10♣ {queen}", 1: "A♠ 7♥"},
        stock="J♣",
    )
    game.play("10♣")
    assert (game.player, game.phase) == (1, "AFTER_DRAW")
    game.pass_()
    game.play(queen)
    assert round_end(game) == (0, card(queen), [bonus, 40], [bonus, 40], [])


def test_encyclopedia_eight_of_hearts_finishes_and_triples():
    """§7 cover_can_finish: yes, §9 encyclopedia: 8♥ may be the last card and triples:
    seat 1 holds A♠ 7♣ J♥ = 20, × 3 = 60; the finisher scores 0."""
    game = Game(
        "encyclopedia",
        hand_size=2,
        dealer=0,
        hands={0: "10♥ 8♥", 1: "A♠ 7♣"},
        stock="J♥",
    )
    game.play("10♥")
    game.pass_()
    game.play("8♥")
    assert round_end(game) == (0, card("8♥"), [0, 60], [0, 60], [])


def test_cover_card_cannot_finish_it_must_be_covered_first():
    """§7 cover_can_finish: false — a last 8 must be covered, by forced draws; the covering
    card is the last card (a Q♠ drawn and played: −40)."""
    game = Game(
        "classic",
        hand_size=2,
        dealer=1,
        hands={0: "J♥ 8♥", 1: "A♦"},
        opening="10♥",
        stock="K♣ Q♠",
    )
    game.play("J♥")
    mark = len(game.events)
    game.play("8♥")
    assert [(e["player"], e["action"], e["forced"]) for e in game.events[mark:][:3]] == [
        (0, card("8♥"), False),
        (0, DRAW, True),
        (0, card("Q♠"), True),
    ]
    assert round_end(game) == (0, card("Q♠"), [-40, 15], [-40, 15], [])


def test_nines_the_nine_is_the_cover_card_and_scores_nothing():
    """§9 nines: 9 must be covered (8 is a plain card); points 9 = 0, 8 = 8."""
    game = Game(
        "nines",
        hand_size=2,
        dealer=1,
        hands={0: "J♣ 9♣", 1: "8♦"},
        opening="10♣",
        stock="9♥ K♣",
    )
    game.play("J♣")  # seat 1 forced: draws 9♥ (cannot follow J♣), passes
    game.play("9♣")  # must be covered: forced draw K♣, forced play
    assert round_end(game) == (0, card("K♣"), [0, 8], [0, 8], [])


def test_ukrainian_six_to_nine_score_nothing():
    """§9 ukrainian points: 6 7 8 9 = 0, A = 11."""
    game = Game(
        "ukrainian",
        3,
        hand_size=2,
        dealer=2,
        hands={0: "J♣ J♦", 1: "6♥ 7♥", 2: "8♥"},
        opening="10♣",
        stock="9♥ A♥",
    )
    game.play("J♣")  # seats 1 and 2 are forced to draw (9♥, A♥) and pass
    game.play("J♦")
    assert round_end(game) == (0, card("J♦"), [0, 0, 11], [0, 0, 11], [])


# --- §7 last_card_effects ---------------------------------------------------------------------


@pytest.mark.parametrize(("effects", "points"), [(False, 15), (True, 15 + 2 + 6)])
def test_last_card_effects(effects, points):
    """§7 last_card_effects: a last 7 makes the next player draw 2 (J♥ 6♥) before counting;
    without the switch the effect is void."""
    game = duel("classic", "7♣", last_card_effects=effects)
    game.play("9♣")
    game.play("7♣")
    assert round_end(game)[2] == [0, points]


@pytest.mark.parametrize(("effects", "points"), [(False, 0), (True, 4 + 2)])
def test_last_card_effects_take_the_accumulated_stack(effects, points):
    """§7, §5.2: seat 1 stacks its last card 6♥ onto 6♣; with last_card_effects seat 0 takes
    the accumulated 1 + 1 = 2 cards (K♥ J♥) before counting."""
    game = Game(
        "classic",
        stacking=True,
        last_card_effects=effects,
        hand_size=2,
        dealer=1,
        hands={0: "6♣ 9♣", 1: "6♥"},
        opening="10♣",
        stock="K♥ J♥",
    )
    game.play("6♣")
    assert (game.player, game.phase) == (1, "RESPOND")
    game.play("6♥")
    assert round_end(game)[:3] == (1, card("6♥"), [points, 0])


# --- §7 reset at target, elimination, match end, ranking, rewards -----------------------------


def test_exact_target_resets_to_zero():
    """§7 reset_at_target (classic): 86 + 15 = 101 exactly becomes 0."""
    game = duel("classic", "9♦")
    preload(game, [30, 86])
    game.play("9♣")
    game.play("9♦")
    assert round_end(game)[2:] == ([0, 15], [30, 0], [])


def test_exact_target_without_reset_stays_and_is_not_out():
    """§7 reset_at_target: false — 101 stays 101, which is not above the target."""
    game = duel("classic", "9♦", reset_at_target=False)
    preload(game, [30, 86])
    game.play("9♣")
    game.play("9♦")
    assert round_end(game)[2:] == ([0, 15], [30, 101], [])
    assert not game.done


def three_player_yard(totals: list[int], **changes) -> Game:
    """Yard, three players: seat 0 plays 9♠ onto 10♠ and later 9♦; seat 1 (J♥ A♦ + K♥)
    scores 17, seat 2 (A♥ + 10♦) scores 21."""
    game = Game(
        "yard",
        3,
        hand_size=2,
        dealer=2,
        hands={0: "9♠ 9♦", 1: "J♥ A♦", 2: "A♥"},
        opening="10♠",
        stock="K♥ 10♦",
        **changes,
    )
    preload(game, totals)
    game.play("9♠")  # seats 1 and 2 are forced to draw and pass
    return game


def test_reset_is_applied_before_anyone_goes_out_first_loser():
    """§7: 84 + 17 = 101 resets to 0 and 81 + 21 = 102 is out; under first_loser (yard) the
    match ends, ranked by the totals after the reset: seat 1 (0), seat 0 (50), seat 2."""
    game = three_player_yard([50, 84, 81])
    rewards = step(game, "9♦")
    assert round_end(game)[2:] == ([0, 17, 21], [50, 0, 102], [2])
    assert game.last("match_end") == {
        "type": "match_end",
        "ranking": [1, 0, 2],
        "totals": [50, 0, 102],
        "truncated": False,
    }
    assert game.done and game.phase == "DONE"
    assert rewards == [0.0, 1.0, -1.0]  # three players: +1, 0, −1 by place


def test_rewards_ties_share():
    """Rewards: seats 1 and 2 both end on 107 and share places 2 and 3: (0 + −1) / 2 each."""
    game = three_player_yard([50, 90, 86])
    rewards = step(game, "9♦")
    assert round_end(game)[3] == [50, 107, 107]
    assert game.last("match_end")["ranking"][0] == 0
    assert rewards == [1.0, -0.5, -0.5]


def test_first_loser_duel_rewards_plus_minus_one():
    """§7 match_end: first_loser (nines): one player over 101 ends the match; two players
    get +1 and −1."""
    game = Game(
        "nines",
        hand_size=2,
        dealer=1,
        hands={0: "J♣ J♠", 1: "A♦"},
        opening="10♣",
        stock="K♥",
    )
    preload(game, [100, 90])
    game.play("J♣")  # seat 1 is forced to draw K♥ and pass
    rewards = step(game, "J♠")
    assert round_end(game)[2:] == ([0, 15], [100, 105], [1])
    assert game.last("match_end") == {
        "type": "match_end",
        "ranking": [0, 1],
        "totals": [100, 105],
        "truncated": False,
    }
    assert game.done and rewards == [1.0, -1.0]


def test_last_survivor_all_remaining_out_together_lowest_total_wins():
    """§7 last_survivor: if all remaining players go out together, the lowest total wins.
    Only reachable with a positive finish bonus (here a contrived +200 for Q♥)."""
    game = duel("classic", "Q♥", finish_bonus={"Q♥": {"points": 200}})
    preload(game, [0, 90])
    game.play("9♣")
    rewards = step(game, "Q♥")
    assert round_end(game)[2:] == ([200, 15], [200, 105], [0, 1])
    assert game.last("match_end")["ranking"] == [1, 0]
    assert game.done and rewards == [-1.0, 1.0]


def test_elimination_under_last_survivor_the_match_goes_on():
    """§7 last_survivor: a player over 101 is out and the match goes on without them; §3 the
    next dealer skips the eliminated seat; later round_end points are null for them."""
    rules = Rules.preset("classic").replace(hand_size=2)
    round_1 = deck_for(
        rules, 3, 0, {1: "9♥ 9♠", 0: "J♦"}, opening="10♥", stock="K♣", seats_in=[0, 1]
    )
    game = Game(
        rules,
        3,
        dealer=1,
        hands={2: "10♦ A♥", 0: "9♦ 9♣", 1: "J♠"},
        opening="10♣",
        stock="K♥ J♥",
        decks=[round_1],
    )
    preload(game, [0, 0, 95])
    assert game.player == 2
    game.play("10♦")
    game.play("9♦")  # seat 1 draws K♥ and passes; seat 2 draws J♥ and passes (forced)
    game.play("9♣")
    # seat 1: J♠ K♥ = 6; seat 2: A♥ J♥ = 13, 95 + 13 = 108 > 101
    assert round_end(game) == (0, card("9♣"), [0, 6, 13], [0, 6, 108], [2])
    assert not game.done
    assert game.last("round")["dealer"] == 0  # after dealer 1 comes seat 2, who is out
    assert game.hand(2) == [] and game.player == 1
    game.play("9♥")  # seat 0 draws K♣ and passes (forced)
    game.play("9♠")
    assert round_end(game) == (1, card("9♠"), [6, 0, None], [6, 6, 108], [2])


def test_last_survivor_ranking_and_four_player_rewards():
    """§7 ranking under last_survivor: the survivor, then those eliminated later ahead of
    those eliminated earlier, within one round by total. Target 20 keeps hands small.

    Round 0: seat 3 goes out with 22. Round 1: seats 1 (32) and 2 (27) go out together;
    seat 0 survives. Ranking 0, 2, 1, 3 — seat 3's 22 is lower but it went out earlier.
    Four players get +1, +1/3, −1/3, −1 by place; each reward comes once (the engine pays
    a player eliminated under last_survivor as it goes out), so the steps' rewards add up.
    """
    rules = Rules.preset("classic").replace(hand_size=2, target=20)
    round_1 = deck_for(
        rules,
        4,
        0,
        {1: "A♥ A♣", 2: "K♥ A♠", 0: "10♠"},
        opening="10♦",
        stock="J♠ J♣",
        seats_in=[0, 1, 2],
    )
    game = Game(
        rules,
        4,
        dealer=3,
        hands={0: "9♣ 9♦", 1: "J♦ K♦", 2: "J♠ K♥", 3: "A♥"},
        opening="10♣",
        stock="J♥ K♠ A♠",
        decks=[round_1],
    )
    game.play("9♣")  # seats 1, 2, 3 draw J♥, K♠, A♠ and pass, all forced
    rewards_0 = step(game, "9♦")
    assert round_end(game)[2:] == ([0, 8, 10, 22], [0, 8, 10, 22], [3])
    assert game.last("round")["dealer"] == 0
    # Round 1: seats 1 and 2 cannot follow 10♦ and draw J♠, J♣ (forced); seat 0 plays out.
    assert game.player == 0
    rewards_1 = step(game, "10♠")
    assert round_end(game)[2:] == ([0, 24, 17, None], [0, 32, 27, 22], [1, 2, 3])
    assert game.last("match_end") == {
        "type": "match_end",
        "ranking": [0, 2, 1, 3],
        "totals": [0, 32, 27, 22],
        "truncated": False,
    }
    rewards = [round(a + b, 6) for a, b in zip(rewards_0, rewards_1, strict=True)]
    assert rewards == [1.0, round(-1 / 3, 6), round(1 / 3, 6), -1.0]


# --- §8 truncation ----------------------------------------------------------------------------


def test_truncation_at_max_turns():
    """§8: the max_turns-th decision of a round truncates the match: no round_end, totals as
    before the round, match_end truncated; forced decisions count (here decision 3 is seat 1's
    forced PASS)."""
    game = duel("classic", "9♦", max_turns=3)
    preload(game, [40, 30])
    rewards = step(game, "9♣")
    assert [e["type"] for e in game.events[2:]] == ["action"] * 3 + ["match_end"]
    assert game.last("round_end") is None
    assert game.last("match_end") == {
        "type": "match_end",
        "ranking": [1, 0],
        "totals": [40, 30],
        "truncated": True,
    }
    assert game.totals == [40, 30]
    assert game.done and bool(game.state.truncated[0]) and not bool(game.state.terminated[0])
    assert rewards == [0.0, 0.0]


def test_round_ending_on_the_last_allowed_decision_is_not_truncated():
    """§8: a round that ends on exactly the max_turns-th decision is scored; the next round
    starts its own count and is truncated (all its decisions forced), totals as after round 0.
    Round 0: play 9♣, forced draw, forced pass, play 9♦ = 4 decisions."""
    rules = Rules.preset("classic").replace(hand_size=2, max_turns=4)
    round_1 = deck_for(rules, 2, 0, {1: "J♥ A♦", 0: "J♠"}, opening="10♣", stock="K♥ K♦")
    game = duel(rules, "9♦", decks=[round_1])
    game.play("9♣")
    game.play("9♦")
    assert round_end(game)[2:] == ([0, 15], [0, 15], [])
    # Round 1: seat 1 draws K♥ and passes, seat 0 draws K♦ and passes: 4 forced decisions.
    start = game.events.index(game.last("round"))
    assert game.events[start]["round"] == 1
    assert [(e["type"], e.get("forced")) for e in game.events[start + 1 :]] == [
        ("action", True)
    ] * 4 + [("match_end", None)]
    assert game.last("match_end") == {
        "type": "match_end",
        "ranking": [0, 1],
        "totals": [0, 15],
        "truncated": True,
    }
    assert game.totals == [0, 15]


def test_truncation_ranks_players_in_by_total_then_the_eliminated():
    """§8: at truncation, players still in by total, then the eliminated (as in §7)."""
    rules = Rules.preset("classic").replace(hand_size=2, max_turns=7)
    round_1 = deck_for(
        rules,
        3,
        0,
        {1: "J♥ A♦", 0: "J♠"},
        opening="10♣",
        stock="K♥ K♦ J♦ A♥",
        seats_in=[0, 1],
    )
    game = Game(
        rules,
        3,
        dealer=1,
        hands={2: "10♦ A♥", 0: "9♦ 9♣", 1: "J♠"},
        opening="10♣",
        stock="K♥ J♥",
        decks=[round_1],
    )
    preload(game, [10, 0, 95])
    game.play("10♦")
    game.play("9♦")
    game.play("9♣")  # decision 7 ends round 0; round 1 is all forced and truncates
    assert round_end(game)[3:] == ([10, 6, 108], [2])
    assert game.last("match_end") == {
        "type": "match_end",
        "ranking": [1, 0, 2],
        "totals": [10, 6, 108],
        "truncated": True,
    }


# --- §4 forced decisions ----------------------------------------------------------------------


VARIANTS = [
    {},
    {"stacking": True, "last_card_effects": True},
    {"draw_rule": "until_playable", "after_draw": "any_card"},
    {"voluntary_draw": False},
    {"empty_stock": "steal", "reshuffle": "flip"},
    {"opening": "leader_plays", "cover_can_finish": True},
]


@pytest.mark.parametrize("changes", VARIANTS, ids=lambda c: ",".join(c) or "preset")
@pytest.mark.parametrize("preset", PRESETS)
def test_no_decision_with_fewer_than_two_actions_is_left_to_an_agent(preset, changes):
    """§4 Forced decisions: after every step, each live game waits on >= 2 legal actions, and
    the record marks forced actions (random play, several rule sets, 3 players, 2 at
    micro)."""
    rules = Rules.preset(preset).replace(**changes)
    players = min(3, rules.players[1])  # micro seats two
    trace = engine.Trace(16)
    state = engine.init(rules, players, batch=16, seed=7, trace=trace)
    rng = np.random.default_rng(0)
    for _ in range(150):
        live = ~state.done
        assert (np.bitwise_count(state.legal_bits[live]) >= 2).all()
        actions = engine.sample_actions(state.legal_bits, rng.random(16))
        engine.step(state, actions, trace=trace)
    events = [e for game in trace.current for e in game if e["type"] == "action"]
    assert any(e["forced"] for e in events) and any(not e["forced"] for e in events)
