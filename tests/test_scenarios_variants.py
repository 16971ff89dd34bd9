"""Scenario tests for the variant switches of docs/rules.md §12 (docs/rules.md "Variant
switches"). Each test plays one hand-made deal with the switch on and with it off.

Rounds are kept short with ``hand_size=2`` as in test_scenarios_scoring.py: seat 0 plays
9♣ onto 10♣, seat 1 cannot follow and is forced to draw and pass, seat 0 plays its last card.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sto_odno_env.game.rules import PRESETS, SWITCH_DEFAULTS, Rules, RulesError
from sto_odno_env.records.record import play_random_matches, write_records
from sto_odno_env.records.replay import replay
from sto_odno_env.records.scenario import Game
from tests.helpers import needs
from tests.scenario_helpers import card, duel, preload, round_end


def with_points(preset: str, **pairs) -> dict:
    """The preset's points with some ranks replaced (``A=[1, 11]``)."""
    points = {
        rank: list(v) if isinstance(v, tuple) else v
        for rank, v in Rules.preset(preset).points.items()
    }
    points.update(pairs)
    return points


def finish(game: Game, last: str, totals: list[int] | None = None) -> tuple:
    if totals is not None:
        preload(game, totals)
    game.play("9♣")
    game.play(last)
    return round_end(game)[2:]


# --- points pairs [low, high] (ace 1/11) --------------------------------------------------


ACE = {"A": [1, 11]}


@pytest.mark.parametrize(
    ("before", "on", "off"),
    [
        (80, ([0, 15], [0, 95], []), ([0, 15], [0, 95], [])),  # high fits
        (90, ([0, 5], [0, 95], []), ([0, 15], [0, 105], [1])),  # the ace counts 1
        (100, ([0, 5], [0, 105], [1]), ([0, 15], [0, 115], [1])),  # all low still passes
        (86, ([0, 15], [0, 0], []), ([0, 15], [0, 0], [])),  # high lands on 101: reset
    ],
)
def test_ace_counts_low_only_when_high_would_pass_the_target(before, on, off):
    """§12 points pairs: seat 1 ends with A♦ K♥ (A [1, 11], K 4)."""
    switched = duel("classic", "9♦", points=with_points("classic", **ACE))
    plain = duel("classic", "9♦")
    assert finish(switched, "9♦", [0, before]) == on
    assert finish(plain, "9♦", [0, before]) == off


def test_pair_choice_landing_on_the_target_comes_first_under_reset_at_target():
    """§12: K [1, 4] and A [1, 11]; seat 1 at 89 holds A♦ K♥ (15 at high: 104 passes).
    The largest saving first (the ace low) gives 94; but the king low alone lands on 101,
    and under reset_at_target that choice comes first: the total resets to 0."""
    points = with_points("classic", K=[1, 4], **ACE)
    reset = duel("classic", "9♦", points=points)
    assert finish(reset, "9♦", [0, 89]) == ([0, 12], [0, 0], [])
    no_reset = duel("classic", "9♦", points=points, reset_at_target=False)
    assert finish(no_reset, "9♦", [0, 89]) == ([0, 5], [0, 94], [])


def test_pair_choice_is_made_before_the_multiplier():
    """§12: the choice uses the hand's points before a last card's multiplier: seat 1 at 90
    with A♦ K♥ counts the ace 1 (90 + 5 <= 101), then 5 × 2 = 10 join its total."""
    encyclopedia = Rules.preset("encyclopedia")
    rules = encyclopedia.replace(
        points=with_points("encyclopedia", **ACE), opening="dealer_blind", draw_rule="one"
    )
    game = duel(rules, "Q♣")  # encyclopedia: Q♣ −20, multiplier 2
    assert finish(game, "Q♣", [0, 90]) == ([-20, 10], [-20, 100], [])
    plain = duel(rules.replace(points=with_points("encyclopedia")), "Q♣")
    assert finish(plain, "Q♣", [0, 90]) == ([-20, 30], [-20, 120], [1])


def test_points_pair_round_trips_and_validates():
    rules = Rules.preset("classic").replace(points=with_points("classic", **ACE))
    assert rules.points["A"] == (1, 11)
    assert rules.to_dict()["points"]["A"] == [1, 11]
    assert Rules.from_dict(rules.to_dict()) == rules
    assert rules.points_of(card("A♠")) == 11 and rules.points_range(card("A♠")) == (1, 11)


@pytest.mark.parametrize(
    ("points_a", "message"),
    [
        ([11, 1], "points.A: [11, 1] has low > high; allowed: a pair [low, high] with low <= h"),
        ([1, 11, 12], "points.A: [1, 11, 12] is not allowed; allowed: an integer or a pair"),
        ([1, "x"], "points.A: [1, 'x'] is not allowed; allowed: an integer or a pair"),
        ("x", "points.A: 'x' is not an integer; allowed: an integer or a pair [low, high]"),
    ],
)
def test_points_pair_errors_name_key_value_and_allowed(points_a, message):
    with pytest.raises(RulesError) as error:
        Rules.from_dict({"base": "classic", "points": {"A": points_a}})
    assert message in str(error.value)


# --- holder_wins ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("held", "last", "on", "off"),
    [
        ("Q♥", "9♦", [0, 0], [0, 7]),  # the holder of Q♥ scores 0
        ("Q♥", "Q♣", [-20, 0], [-20, 7]),  # the finisher keeps its bonus
        ("Q♦", "9♦", [0, 7], [0, 7]),  # another queen is no holder card
    ],
)
def test_holder_of_a_listed_card_scores_zero(held, last, on, off):
    """§12 holder_wins [Q♥] (yard: queens are not wild, so seat 1 cannot follow 9♣ and
    ends with ``held`` and K♥; the finisher's 9♦ scores 0, Q♣ −20)."""
    switched = duel("yard", last, held=held, holder_wins=["Q♥"])
    plain = duel("yard", last, held=held)
    assert finish(switched, last, [0, 50])[0] == on
    assert finish(plain, last, [0, 50])[0] == off
    assert switched.totals[1] == 50 + on[1]


def test_holder_wins_takes_ranks_and_card_forms():
    rules = Rules.from_dict({"base": "yard", "holder_wins": ["qh", "K"]})
    assert rules.holder_wins == ("Q♥", "K")
    assert rules.to_dict()["holder_wins"] == ["Q♥", "K"]
    assert rules.holds_to_win(card("K♣")) and not rules.holds_to_win(card("Q♠"))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Q♥", "holder_wins: 'Q♥' is not a list; allowed: a list of cards or ranks"),
        (["Z9"], "holder_wins: unknown key 'Z9'; allowed: a rank (6, 7, 8, 9, 10, J, Q, K, A)"),
        (["QH", "Q♥"], "holder_wins: 'Q♥' repeats 'Q♥'"),
    ],
)
def test_holder_wins_errors(value, message):
    with pytest.raises(RulesError) as error:
        Rules.from_dict({"base": "yard", "holder_wins": value})
    assert message in str(error.value)


# --- multiplier_scope --------------------------------------------------------------------


def encyclopedia_duel(**changes) -> Game:
    """Encyclopedia's bonuses (Q♣ −20 ×2) on the short dealer_blind round of ``duel``."""
    rules = Rules.preset("encyclopedia").replace(opening="dealer_blind", draw_rule="one")
    return duel(rules, "Q♣", **changes)


@pytest.mark.parametrize(
    ("before", "total", "round_"),
    [
        (30, ([-20, 60], [-20, 90]), ([-20, 30], [-20, 60])),  # (30 + 15) × 2 vs 30 + 15 × 2
        (-50, ([-20, 15], [-20, -35]), ([-20, 30], [-20, -20])),  # a sum <= 0: no multiplier
    ],
)
def test_multiplier_scope_total_multiplies_the_new_total(before, total, round_):
    """§12 multiplier_scope: seat 0 ends on Q♣ (−20, multiplier 2), seat 1 holds A♦ K♥ (15).
    Under ``total`` the round's points are the change of seat 1's total."""
    switched = encyclopedia_duel(multiplier_scope="total")
    plain = encyclopedia_duel()
    assert finish(switched, "Q♣", [0, before])[:2] == total
    assert finish(plain, "Q♣", [0, before])[:2] == round_


def test_holder_is_not_multiplied_under_scope_total():
    game = encyclopedia_duel(multiplier_scope="total", holder_wins=["K♥"])
    assert finish(game, "Q♣", [0, 30])[:2] == ([-20, 0], [-20, 30])


def test_multiplier_scope_error():
    with pytest.raises(RulesError) as error:
        Rules.from_dict({"base": "encyclopedia", "multiplier_scope": "all"})
    assert "multiplier_scope: 'all' is not allowed; allowed: round, total" in str(error.value)


# --- bonus_combo ----------------------------------------------------------------------------


def four_queens_and_the_king(**changes) -> Game:
    """Yard, 5 cards: seat 0 plays Q♣ (orders ♦), Q♦ (♥), Q♥ (♠), Q♠ (♠) and K♠; seat 1
    holds clubs only and is forced to draw a card it cannot play after each queen."""
    game = Game(
        "yard",
        hand_size=5,
        dealer=1,
        hands={0: "Q♣ Q♦ Q♥ Q♠ K♠", 1: "A♣ J♣ 9♣ 8♣"},
        opening="10♣",
        stock="6♣ 7♣ K♣ 10♦ J♥",
        **changes,
    )
    for queen, suit in (("Q♣", "♦"), ("Q♦", "♥"), ("Q♥", "♠"), ("Q♠", "♠")):
        game.play(queen)
        game.order(suit)
    game.play("K♠")
    return game


def test_bonus_combo_adds_the_final_run_of_bonus_cards():
    """§12 bonus_combo, the issue's example: four queens and then K♠ give
    −20 × 3 − 40 − 50 = −150; without the switch only the last card counts (K♠ −50).
    Seat 1 holds A♣ J♣ 9♣ 8♣ 6♣ 7♣ K♣ 10♦ (57)."""
    assert round_end(four_queens_and_the_king(bonus_combo=True))[2] == [-150, 57]
    assert round_end(four_queens_and_the_king())[2] == [-50, 57]


def test_bonus_combo_run_is_broken_by_a_plain_card():
    """A card without a bonus entry ends the run: 9♣ then Q♣ scores only Q♣'s −20."""
    switched = duel("yard", "Q♣", bonus_combo=True)
    assert finish(switched, "Q♣")[0] == [-20, 15]
    assert finish(duel("yard", "Q♣"), "Q♣")[0] == [-20, 15]


def test_bonus_combo_takes_the_largest_multiplier_of_the_run():
    """Encyclopedia bonuses (Q♣ −20 ×2, Q♦ −80 ×2): the run Q♣, Q♦ scores −100 and the
    others' points are doubled once (seat 1: A♦ K♣, 15 × 2); without the switch −80."""
    rules = Rules.preset("encyclopedia").replace(opening="dealer_blind", draw_rule="one")
    ends = []
    for combo in (True, False):
        game = Game(
            rules.replace(bonus_combo=combo),
            hand_size=2,
            dealer=1,
            hands={0: "Q♣ Q♦", 1: "A♦"},
            opening="10♣",
            stock="K♣ J♥ 6♥",
        )
        game.play("Q♣")
        if game.phase == "ORDER":
            game.order("♠")
        game.play("Q♦")
        ends.append(round_end(game)[2])
    assert ends == [[-100, 30], [-80, 30]]


def test_bonus_combo_error():
    with pytest.raises(RulesError) as error:
        Rules.from_dict({"base": "yard", "bonus_combo": "yes"})
    assert "bonus_combo: 'yes' is not a boolean; allowed: true, false" in str(error.value)


# --- leftover_bonus -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("held", "drawn", "subtract", "single_adds", "ordinary"),
    [
        ("Q♥", "Q♦", -40, 6, 6),  # bonus cards only: their bonuses; two: ordinary
        ("Q♥", "K♥", 7, 24, 7),  # one bonus card: |−20| in place of its 3 points
        ("K♠", "J♦", 6, 52, 6),  # K♠ alone: |−50| + J 2
    ],
)
def test_leftover_bonus(held, drawn, subtract, single_adds, ordinary):
    """§12 leftover_bonus (yard: Q −20, Q♠ −40, K♠ −50; seat 1 ends with ``held`` and
    ``drawn``, seat 0 finishes on 9♦)."""
    scores = [
        finish(duel("yard", "9♦", held=held, drawn=drawn, **changes), "9♦")[0][1]
        for changes in ({"leftover_bonus": "subtract"}, {"leftover_bonus": "single_adds"}, {})
    ]
    assert scores == [subtract, single_adds, ordinary]


def test_negative_leftover_is_never_multiplied():
    """A last Q♣ with multiplier 2: seat 1's −40 (Q♥ Q♦ under subtract) stays −40; its
    ordinary 6 doubles."""
    bonuses = {k: vars(v) for k, v in Rules.preset("yard").finish_bonus.items()}
    bonuses["Q♣"] = {"points": -20, "multiplier": 2}
    rules = Rules.preset("yard").replace(finish_bonus=bonuses)
    switched = duel(rules, "Q♣", held="Q♥", drawn="Q♦", leftover_bonus="subtract")
    assert finish(switched, "Q♣")[0] == [-20, -40]
    assert finish(duel(rules, "Q♣", held="Q♥", drawn="Q♦"), "Q♣")[0] == [-20, 12]


def test_leftover_bonus_error():
    with pytest.raises(RulesError) as error:
        Rules.from_dict({"base": "yard", "leftover_bonus": "add"})
    message = "leftover_bonus: 'add' is not allowed; allowed: ordinary, subtract, single_adds"
    assert message in str(error.value)


# --- examples and records -------------------------------------------------------------------


EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "configs/rules/examples").glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_rule_files_load_and_play(path):
    """Each example YAML is a valid rule set whose switch is on, and a match plays."""
    rules = Rules.from_yaml(path)
    assert rules.to_dict() != Rules.preset(rules.name).to_dict()
    records = play_random_matches(rules, 3, 2, seed=5)
    assert all(any(e["type"] == "match_end" for e in match) for match in records)


def test_presets_write_no_switch_keys():
    """Records of the presets keep their form: no §12 key is written at its default (micro
    writes its small deck, the one switch it sets)."""
    for name in PRESETS:
        written = set(Rules.preset(name).to_dict()) & set(SWITCH_DEFAULTS)
        assert written == ({"deck"} if name == "micro" else set())


VARIANT_RECORDS = sorted(
    (Path(__file__).resolve().parent / "data/records/variants").glob("*.jsonl")
)


@pytest.mark.parametrize("path", VARIANT_RECORDS, ids=lambda p: p.stem)
def test_variant_golden_records_replay(path):
    """The independent implementation's records of the §12 switches replay line by line."""
    assert replay(path) >= 1


# The quick tier writes and replays records of a few switches; the scenario tests above cover
# each switch, the whole suite records them all.
QUICK_RECORDS = {
    "classic-3p-deck52",
    "classic-2p-last-card-call-penalty2",
    "yard-3p-leftover-single-adds",
}


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=[] if p.stem in QUICK_RECORDS else [pytest.mark.slow])
        for p in VARIANT_RECORDS
    ],
    ids=lambda p: p.stem,
)
def test_own_records_of_a_switch_replay(path, tmp_path):
    """Our records of the same rules carry the switch and replay."""
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    rules = Rules.from_dict(header["rules"])
    out = tmp_path / "own.jsonl"
    write_records(out, play_random_matches(rules, header["players"], 3, seed=11))
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["rules"] == header["rules"]
    assert replay(out) == 3


# --- last_card_call ---------------------------------------------------------------------------


def called(hands: dict, opening: str = "10♣", stock: str = "6♥ 7♥ J♥ 6♦", **changes) -> Game:
    """Two players, two cards each, seat 1 deals. The opening leaves the dealer one card:
    with the switch on it calls first (see test_the_opening_card_gives_the_dealer_a_call)."""
    game = Game(
        "classic", hand_size=2, dealer=1, hands=hands, opening=opening, stock=stock, **changes
    )
    if game.phase == "CALL":
        game.call()
    return game


def test_last_card_call_after_a_play_that_leaves_one_card():
    """§12: 9♣ leaves seat 0 one card: CALL (call or pass) before the turn passes; off, the
    turn passes at once. The call action (42) exists only with the switch on."""
    on = called({0: "9♣ J♠", 1: "K♣"}, last_card_call=True).play("9♣")
    assert (on.phase, on.player, on.legal()) == ("CALL", 0, {"call", "pass"})
    assert on.state.legal.shape == (1, 43)
    on.call()
    assert (on.phase, on.player, on.hand(0)) == ("PLAY", 1, ["J♠"])
    off = called({0: "9♣ J♠", 1: "K♣"}).play("9♣")
    assert (off.phase, off.player, off.hand(0)) == ("PLAY", 1, ["J♠"])
    assert off.state.legal.shape == (1, 42)
    with pytest.raises(ValueError, match="illegal action 42"):
        off.act(42)


@pytest.mark.parametrize(("penalty", "drawn"), [(1, ["6♥"]), (2, ["6♥", "7♥"])])
def test_not_calling_draws_the_call_penalty_at_once(penalty, drawn):
    game = called({0: "9♣ J♠", 1: "K♣"}, last_card_call=True, call_penalty=penalty)
    game.play("9♣").pass_()
    assert sorted(game.hand(0)) == sorted(["J♠", *drawn])
    assert (game.phase, game.player) == ("PLAY", 1)


def test_call_comes_after_the_suit_order():
    """A queen that leaves one card: ORDER first, then CALL, then the next player."""
    game = called({0: "Q♦ J♠", 1: "K♣"}, last_card_call=True).play("Q♦")
    assert game.phase == "ORDER"
    game.order("♣")
    assert (game.phase, game.player, game.ordered_suit) == ("CALL", 0, "♣")
    game.call()
    assert (game.phase, game.player) == ("PLAY", 1)


def test_call_comes_before_the_cover_and_the_cover_may_call_again():
    """8♣ (a cover card) leaves one card: CALL before COVER. Called: the cover 9♣ is forced
    and finishes. Not called: 6♥ is drawn, the forced cover 9♣ leaves 6♥, so CALL again."""
    on = called({0: "8♣ 9♣", 1: "K♣"}, last_card_call=True).play("8♣")
    assert (on.phase, on.player) == ("CALL", 0)
    on.call()
    assert on.last("round_end")["finisher"] == 0
    passed = called({0: "8♣ 9♣", 1: "K♣"}, last_card_call=True).play("8♣").pass_()
    assert (passed.phase, passed.player, passed.hand(0)) == ("CALL", 0, ["6♥"])
    assert passed.top == "9♣"
    off = called({0: "8♣ 9♣", 1: "K♣"}).play("8♣")
    assert off.last("round_end")["finisher"] == 0


def test_call_comes_before_the_cards_effect_on_the_next_player():
    """7♣ (draw 2, skip) leaves one card: during CALL seat 1 has not drawn yet."""
    game = called({0: "7♣ J♠", 1: "K♣"}, last_card_call=True).play("7♣")
    assert (game.phase, game.hand_size(1)) == ("CALL", 1)
    game.call()
    assert {"6♥", "7♥"} <= set(game.hand(1))  # drew 2 (and was skipped)


def test_a_stacking_answer_calls_before_its_penalty_passes_on():
    """Stacking: 7♦ answers 7♣ and leaves one card: CALL with 2 pending; then seat 0 takes
    all 4 and is skipped. Off: the 4 pass on at once."""
    deal = {"hand_size": 3, "dealer": 1, "hands": {0: "7♣ J♠ 9♥", 1: "7♦ K♥"}}
    deal |= {"opening": "10♣", "stock": "6♥ 6♦ J♥ 8♦ 9♦", "stacking": True}
    on = Game("classic", **deal, last_card_call=True).play("7♣").play("7♦")
    assert (on.phase, on.player, int(on.state.pending[0]), on.hand_size(0)) == ("CALL", 1, 2, 2)
    on.call()
    assert (on.hand_size(0), int(on.state.pending[0])) == (6, 0)
    off = Game("classic", **deal).play("7♣").play("7♦")
    assert (off.hand_size(0), int(off.state.pending[0])) == (6, 0)


def test_the_opening_card_gives_the_dealer_a_call():
    """Under dealer_blind the opening is the dealer's play: two cards dealt, one left."""
    deal = {"hand_size": 2, "dealer": 1, "hands": {0: "9♣ J♠", 1: "K♣"}, "opening": "10♣"}
    on = Game("classic", **deal, last_card_call=True)
    assert (on.phase, on.player, on.legal()) == ("CALL", 1, {"call", "pass"})
    on.pass_()
    assert (on.phase, on.player, on.hand_size(1)) == ("PLAY", 0, 2)
    off = Game("classic", **deal)
    assert (off.phase, off.player, off.hand_size(1)) == ("PLAY", 0, 1)


def test_call_penalty_error():
    with pytest.raises(RulesError, match="call_penalty: 0 is too small"):
        Rules.from_dict({"base": "classic", "last_card_call": True, "call_penalty": 0})
    with pytest.raises(RulesError, match="last_card_call: 'yes' is not a boolean"):
        Rules.from_dict({"base": "classic", "last_card_call": "yes"})


@needs("stable_baselines3")  # the SB3 VecEnv too
def test_last_card_call_in_the_envs_and_bots():
    """Spaces and masks follow the rules (43 actions, one more observation entry that marks
    CALL); the bots always call; the classic sizes are unchanged without the switch."""
    import numpy as np

    from sto_odno_env import sto_odno_v0
    from sto_odno_env.bots.heuristic import ExpertAgent, GreedyAgent
    from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv
    from sto_odno_env.views.observation import OBS_SIZE, layout, obs_size

    rules = Rules.preset("classic").replace(last_card_call=True)
    assert (obs_size(rules), obs_size("classic"), OBS_SIZE) == (190, 189, 189)
    assert layout(rules)["call"] == slice(189, 190) and "call" not in layout("classic")
    assert StoOdnoEnv("classic", 2).action_space.n == 42
    env = StoOdnoEnv(rules, 3, opponents="expert")
    assert env.action_space.n == 43 and env.observation_space.shape == (190,)
    vector = StoOdnoVectorEnv(4, rules, 3, observation_keys=("obs", "mask"))
    assert vector.single_observation_space["mask"].shape == (43,)
    assert StoOdnoVecEnv(2, rules, 2).action_space.n == 43
    aec = sto_odno_v0.env(rules=rules, players=2, illegal_action="raise")
    aec.reset(seed=3)
    assert aec.action_space("player_0").n == 43
    calls, generator = 0, np.random.default_rng(0)
    for _ in aec.agent_iter(max_iter=3000):
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        mask = observation["action_mask"]
        assert mask.shape == (43,) and observation["observation"].shape == (190,)
        assert bool(mask[42]) == bool(observation["observation"][189])
        if mask[42]:
            calls += 1
            for bot in (GreedyAgent(rules), ExpertAgent(rules)):
                assert bot.act(observation["observation"][None], mask[None])[0] == 42
        aec.step(int(generator.choice(np.flatnonzero(mask))))
    assert calls > 0


def test_a_bot_refuses_masks_of_another_action_space():
    import numpy as np

    from sto_odno_env.bots.heuristic import ExpertAgent

    with pytest.raises(
        ValueError, match=r"bot .expert. is set up for rules .classic. with the 36-card deck"
    ):
        ExpertAgent("classic").act(np.zeros((1, 189), np.float32), np.ones((1, 58), np.int8))


def sharded_trail(rules: Rules, workers: int) -> list:
    """Observations, rewards and masks of 40 random steps of a 3-player vector env (4
    games, greedy opponents) stepped in ``workers`` processes."""
    import numpy as np

    from sto_odno_env.bots.heuristic import GreedyAgent
    from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
    from sto_odno_env.game import engine

    env = StoOdnoVectorEnv(4, rules, 3, opponents=GreedyAgent(rules), workers=workers)
    observations, infos = env.reset(seed=7)
    generator = np.random.default_rng(7)
    trail = [observations, infos["action_mask"]]
    for _ in range(40):
        actions = engine.sample_actions(env.games.legal_bits, generator.random(4))
        observations, rewards, *_, infos = env.step(actions)
        trail += [observations, rewards, infos["action_mask"]]
    env.close()
    return trail


def test_last_card_call_sharded_and_determinised():
    """Worker processes publish the longer observations and 43-wide masks exactly as one
    process does; a state rebuilt from a CALL observation is in CALL."""
    import numpy as np

    from sto_odno_env.game import engine
    from sto_odno_env.views.determinise import from_observations
    from sto_odno_env.views.observation import observe

    rules = Rules.preset("classic").replace(last_card_call=True)
    trails = [sharded_trail(rules, workers) for workers in (1, 2)]
    assert trails[0][0].shape == (4, 190) and trails[0][1].shape == (4, 43)
    assert all(np.array_equal(a, b) for a, b in zip(*trails, strict=True))

    state = engine.init(rules, 3, batch=64, seed=2)
    generator = np.random.default_rng(2)
    while not (state.phase == engine.PHASE_CALL).any():
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(64)))
    game = int(np.flatnonzero(state.phase == engine.PHASE_CALL)[0])
    world = from_observations(rules, observe(state, games=np.array([game])), samples=2)
    assert (world.phase == engine.PHASE_CALL).all()
    assert (engine.legal_mask(world)[:, [41, 42]] == 1).all()


# --- deck: 52 ---------------------------------------------------------------------------------


def classic(deck: int) -> Rules:
    return Rules.preset("classic").replace(deck=deck)


def deck_duel(deck: int) -> Game:
    """The duel deal, stock not named: seat 0 plays 9♣ onto 10♣, seat 1 (A♦) is forced to
    draw the stock's top card and pass; seat 0 can finish on 9♥. The unnamed cards follow in
    id order, so the stock's top card is the deck's first card: 6♠, or 2♠ with 52 cards."""
    game = Game(classic(deck), hand_size=2, dealer=1, hands={0: "9♣ 9♥", 1: "A♦"}, opening="10♣")
    game.play("9♣")
    return game


def test_deck_52_same_deal_other_ids_and_the_low_cards_in_the_stock():
    """The same deal with 36 and 52 cards: the same moves under other ids (9♣ is 12 or 20,
    draw 40 or 56, pass 41 or 57, 9♥ 30 or 46), a longer stock, and a low card drawn (2♠
    scores 2)."""
    off, on = deck_duel(36), deck_duel(52)
    assert (off.hand(1), on.hand(1)) == (["6♠", "A♦"], ["2♠", "A♦"])
    assert (len(off.stock), len(on.stock)) == (36 - 5, 52 - 5)  # 4 dealt (+ opening), 1 drawn
    off.play("9♥")
    on.play("9♥")
    assert [e["action"] for e in off.actions()] == [12, 40, 41, 30]
    assert [e["action"] for e in on.actions()] == [20, 56, 57, 46]
    assert [e["forced"] for e in on.actions()] == [e["forced"] for e in off.actions()]
    assert len(off.events[1]["deck"]) == 36 and len(on.events[1]["deck"]) == 52
    assert sorted(on.events[1]["deck"]) == list(range(52))
    assert round_end(off)[2:] == ([0, 17], [0, 17], [])  # A 11 + 6 6
    assert round_end(on)[2:] == ([0, 13], [0, 13], [])  # A 11 + 2 2: face value


def test_deck_52_names_parse_and_show_low_cards():
    game = Game(
        classic(52),
        2,
        hand_size=3,
        dealer=1,
        hands={0: "2♣ 5♥ Q♠", 1: "3d 4h"},
        opening="10♣",
        stock="5♠",
    )
    assert game.hand(0) == ["Q♠", "2♣", "5♥"]  # id order: suit by suit from the 2
    assert game.legal() == {"play 2♣", "play Q♠", "draw"}
    game.play("2♣")  # seat 1 cannot follow 2♣: forced to draw 5♠ and pass
    assert game.top == "2♣" and game.player == 0
    assert game.hand(1) == ["5♠", "3♦", "4♥"]
    assert [e["action"] for e in game.actions()] == [13, 56, 57]


def test_deck_52_low_ranks_take_effects_bonuses_and_points():
    """Rank keys 2 to 5 work in effects, finish_bonus, holder_wins and points."""
    game = Game(
        classic(52),
        hand_size=2,
        dealer=1,
        effects={"2": {"draw": 2, "skip": True}},
        finish_bonus={"5♣": {"points": -30}},
        points={**classic(52).to_dict()["points"], "3": 30},
        hands={0: "2♣ 5♣", 1: "3♦"},
        opening="10♣",
        stock="K♥ J♥ 6♥",
    )
    game.play("2♣")  # seat 1 takes K♥ J♥ and is skipped: seat 0 again
    assert game.hand(1) == ["3♦", "J♥", "K♥"] and game.player == 0
    game.play("5♣")
    assert round_end(game)[2:] == ([-30, 36], [-30, 36], [])  # 3 counts 30; J 2, K 4


def test_deck_52_lets_six_players_hold_six_cards():
    """hand_size × max players ≤ deck − 1: 6 × 6 = 36 needs the 52-card deck."""
    with pytest.raises(RulesError, match=r"hand_size \* players <= 35\) \(or deck: 52\)"):
        Rules.preset("classic").replace(hand_size=6)
    with pytest.raises(RulesError, match=r"hand_size \* players <= 51\)"):
        Rules.preset("classic").replace(deck=52, hand_size=9)
    rules = Rules.preset("classic").replace(deck=52, hand_size=6)
    game = Game(rules, 6, seed=4)
    assert [game.hand_size(p) for p in range(6)].count(6) == 5  # the dealer opened a card
    assert len(game.stock) + len(game.discard) + sum(game.hand_size(p) for p in range(6)) == 52


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"deck": 40}, "deck: 40 is not allowed; allowed: 36 (6 to ace), 52 (2 to ace), or a"),
        ({"deck": "52"}, "deck: '52' is not allowed"),
        ({"deck": True}, "deck: True is not allowed"),
        ({"points": {"2": 2}}, "points: unknown key '2' (ranks 2 to 5 exist only with deck: 52)"),
        ({"effects": {"5♥": {"draw": 1}}}, "effects: unknown key '5♥' (ranks 2 to 5"),
        ({"holder_wins": ["4"]}, "holder_wins: unknown key '4' (ranks 2 to 5"),
    ],
)
def test_deck_errors_name_key_value_and_allowed(changes, message):
    with pytest.raises(RulesError) as error:
        Rules.from_dict({"base": "classic", **changes})
    assert message in str(error.value)


def test_deck_52_points_default_to_face_value_and_records_carry_the_key():
    rules = Rules.preset("classic").replace(deck=52)
    assert dict(rules.points) == {"2": 2, "3": 3, "4": 4, "5": 5, **Rules.preset("classic").points}
    assert rules.num_actions == 58 and rules.replace(last_card_call=True).num_actions == 59
    data = rules.to_dict()
    assert data["deck"] == 52 and "deck" not in Rules.preset("classic").to_dict()
    assert list(data["points"]) == list(Rules.preset("classic").to_dict()["points"])  # 2–5 left
    assert Rules.from_dict(data) == rules  # out at face value, their default
    other = rules.replace(points={**data["points"], "2": 20})
    assert other.to_dict()["points"]["2"] == 20 and Rules.from_dict(other.to_dict()) == other
    assert rules.replace(deck=36) == Rules.preset("classic")  # the low ranks' points go
    text = Path(__file__).resolve().parents[1] / "configs/rules/examples/deck-52.yaml"
    assert Rules.from_yaml(text).deck.cards == 52


@needs("stable_baselines3")  # the SB3 VecEnv too
def test_deck_52_in_the_envs_and_bots():
    """Spaces follow the rules (58 actions, 253 observation entries); the heuristic bots know
    the deck and play legal moves; observe and observe_one agree; a policy trained on 36
    cards is refused with the deck named."""
    import numpy as np

    from agents import load
    from sto_odno_env import sto_odno_v0
    from sto_odno_env.bots.heuristic import ExpertAgent, GreedyAgent
    from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv
    from sto_odno_env.views.observation import (
        OBS_SIZE,
        ObservationView,
        layout,
        obs_size,
        observe,
        observe_one,
    )

    rules = Rules.preset("classic").replace(deck=52)
    assert (obs_size(rules), OBS_SIZE, obs_size(rules.replace(last_card_call=True))) == (
        253,
        189,
        254,
    )
    parts = layout(rules)
    assert parts["hand"] == slice(0, 52) and parts["discard"] == slice(52, 104)
    assert parts["top_card"].stop - parts["top_card"].start == 53
    assert StoOdnoEnv(rules, 3, opponents="expert").action_space.n == 58
    vector = StoOdnoVectorEnv(4, rules, 3, observation_keys=("obs", "mask"))
    assert vector.single_observation_space["mask"].shape == (58,)
    assert vector.single_observation_space["obs"].shape == (253,)
    assert StoOdnoVecEnv(2, rules, 2).action_space.n == 58
    aec = sto_odno_v0.env(rules=rules, players=3, illegal_action="raise")
    aec.reset(seed=3)
    assert aec.action_space("player_0").n == 58
    bots = (GreedyAgent(rules), ExpertAgent(rules))
    generator = np.random.default_rng(0)
    for _ in aec.agent_iter(max_iter=600):
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        mask, obs = observation["action_mask"], observation["observation"]
        assert mask.shape == (58,) and obs.shape == (253,)
        view = ObservationView(obs, rules.target, 52)
        state = aec.unwrapped.engine_state()
        assert view.hand.sum() == int(state.hand[0, state.current_player[0]]).bit_count()
        for bot in bots:
            assert mask[bot.act(obs[None], mask[None])[0]]
        aec.step(int(generator.choice(np.flatnonzero(mask))))
    state = aec.unwrapped.engine_state()
    for seat in range(3):
        assert np.array_equal(observe(state, seat)[0], observe_one(state, seat))
    with pytest.raises(ValueError, match="bot 'greedy' is set up for rules 'classic' with the 52"):
        GreedyAgent(rules).act(np.zeros((1, 253), np.float32), np.ones((1, 42), np.int8))
    with pytest.raises(ValueError, match="differ in deck"):
        load("ppo-classic-2p-long", rules=rules, players=2)


@needs("openskill")  # the report rates every agent
def test_deck_52_evaluation_rollout_and_determinise():
    """The evaluation harness, the rollout bot and determinised states work on 52 cards."""
    import numpy as np

    from agents.evaluate import evaluate
    from sto_odno_env.game import engine
    from sto_odno_env.views.determinise import from_observations
    from sto_odno_env.views.observation import observe

    rules = Rules.preset("classic").replace(deck=52)
    path = Path(__file__).resolve().parents[1] / "configs/rules/examples/deck-52.yaml"
    report = evaluate(["greedy", "rollout:samples=2,horizon=4"], str(path), 2, 4, 0, progress=False)
    assert report
    state = engine.init(rules, 4, batch=8, seed=1)
    generator = np.random.default_rng(1)
    for _ in range(30):
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(8)))
    live = np.flatnonzero(~state.done)
    observations = observe(state, games=live)
    worlds = from_observations(rules, observations, samples=3, seed=0)
    assert worlds.stock.shape[1] == 52
    for row in range(worlds.batch):
        cards = sum(int(h).bit_count() for h in worlds.hand[row])
        assert cards + worlds.stock_size[row] + worlds.discard_size[row] == 52
    assert np.array_equal(observe(worlds, 0)[::3], observations)


def test_deck_52_sharded_equals_one_process():
    """Worker processes publish the 253-entry observations and 58-wide masks exactly as one
    process does."""
    import numpy as np

    trails = [sharded_trail(classic(52), workers) for workers in (1, 2)]
    assert trails[0][0].shape == (4, 253) and trails[0][1].shape == (4, 58)
    assert all(np.array_equal(a, b) for a, b in zip(*trails, strict=True))


@pytest.mark.parametrize(
    "players", [2, *(pytest.param(p, marks=pytest.mark.slow) for p in (3, 4, 5, 6))]
)
def test_deck_52_engine_api_and_record_cli_at_every_player_count(players, tmp_path):
    """The engine's API test (masks, determinism, the 52 cards in one place each, records
    that replay) and the record CLI, with ``deck: 52`` at 2 to 6 players."""
    from sto_odno_env.records import record
    from sto_odno_env.records.testing import api_test

    api_test(classic(52), players, batch=4, steps=80)
    out = tmp_path / "deck52.jsonl"
    argv = ["--rules", "classic", "--set", "deck=52", "--players", str(players)]
    assert record.main([*argv, "--matches", "1", "--out", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["rules"]["deck"] == 52
    assert len(json.loads(lines[1])["deck"]) == 52
    assert replay(out) == 1
