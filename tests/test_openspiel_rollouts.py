"""EngineRollouts: OpenSpiel's evaluator interface with rollouts the kit's engine plays.

Its leaf values must be what OpenSpiel's own random rollouts estimate (same chance, same
policy, same utility), only cheaper; and OpenSpiel's MCTS and ISMCTS take it."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import need

pyspiel = need("pyspiel")
osp = pytest.importorskip("sto_odno_env.interop.openspiel")

from sto_odno_env.game.rules import PRESETS  # noqa: E402
from sto_odno_env.interop.openspiel.rollouts import (  # noqa: E402
    EngineRollouts,
    rollout_values,
    settle_chance,
)
from sto_odno_env.tools.errors import StoOdnoError  # noqa: E402
from tests.support.openspiel import load, play_bots, random_step  # noqa: E402


def states_of(game, seed: int, count: int, chance: bool) -> list:
    """``count`` non-terminal states of one random game: decision nodes, or chance nodes."""
    rng = np.random.default_rng(seed)
    state, found = game.new_initial_state(), []
    while not state.is_terminal() and len(found) < count:
        if state.is_chance_node() == chance and rng.random() < 0.3:
            found.append(state.clone())
        random_step(state, rng)
    return found


def openspiel_values(state, rollouts: int, seed: int) -> np.ndarray:
    """(rollouts, players) returns of OpenSpiel's own random play-outs from ``state``."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(rollouts):
        work = state.clone()
        while not work.is_terminal():
            random_step(work, rng)
        values.append(work.returns())
    return np.asarray(values)


def assert_same_mean(ours: np.ndarray, theirs: np.ndarray) -> None:
    """Each seat's mean return agrees within 4.5 standard errors of the difference."""
    error = np.sqrt(ours.var(axis=0) / len(ours) + theirs.var(axis=0) / len(theirs))
    gap = np.abs(ours.mean(axis=0) - theirs.mean(axis=0))
    assert (gap <= 4.5 * error + 1e-9).all(), (ours.mean(axis=0), theirs.mean(axis=0), error)


@pytest.mark.parametrize(
    ("rounds", "chance", "seed"), [(1, False, 2), (1, True, 3), (0, False, 2), (0, True, 3)]
)
def test_engine_rollouts_estimate_what_openspiels_random_rollouts_do(rounds, chance, seed):
    """From decision and chance nodes (the first dealer, a deal under way), uniform engine
    rollouts give the returns OpenSpiel's random play-outs through the State API give."""
    game = load("micro", 2, rounds)
    states = states_of(game, seed=seed, count=3, chance=chance)
    assert len(states) >= 2
    for index, state in enumerate(states):
        ours = rollout_values(state._m, 3000, np.random.RandomState(index))
        theirs = openspiel_values(state, 1500, seed=index)
        assert ours.shape == (3000, 2)
        assert ours.std(axis=0).max() > 0  # the rollouts differ: chance and play are drawn
        assert_same_mean(ours, theirs)


@pytest.mark.slow
def test_engine_rollouts_of_classic_rounds_agree_with_openspiels():
    """A 2-round classic game past its first round: the first round's reward is counted
    once, and the rollouts end with the second round."""
    game = load("classic", 2, rounds=2)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    while not state.is_terminal() and (
        state.view_state is None or int(state.view_state.round[0]) < 1
    ):
        random_step(state, rng)
    assert not state.is_terminal(), "the match ended in its first round; pick another seed"
    assert any(value != 0 for value in state._m.returns)
    while state.is_chance_node():
        random_step(state, rng)
    ours = rollout_values(state._m, 400, np.random.RandomState(0))
    theirs = openspiel_values(state, 200, seed=1)
    assert_same_mean(ours, theirs)


def test_a_policy_plays_every_seat_of_the_rollouts():
    """With a kit policy the rollouts are that policy's games: the same returns as the
    policy playing every seat through the State API, from its own observations."""
    import agents
    from sto_odno_env.views.observation import observe_one

    greedy = agents.load("greedy", "micro", 2)

    def greedy_step(work, rng):
        if work.is_chance_node():
            random_step(work, rng)
            return
        view, seat = work.engine_state, work.current_player()
        mask = np.zeros((1, view.tables.num_actions), dtype=np.int8)
        mask[0, work.legal_actions()] = 1
        work.apply_action(int(greedy.act(observe_one(view, seat)[None], mask)[0]))

    game = load("micro", 2, 1)
    for index, state in enumerate(states_of(game, seed=2, count=3, chance=False)):
        ours = rollout_values(state._m, 2000, np.random.RandomState(index), greedy)
        rng, theirs = np.random.default_rng(index), []
        for _ in range(1000):
            work = state.clone()
            while not work.is_terminal():
                greedy_step(work, rng)
            theirs.append(work.returns())
        assert_same_mean(ours, np.asarray(theirs))
        uniform = rollout_values(state._m, 2000, np.random.RandomState(index))
        assert not np.allclose(ours.mean(axis=0), uniform.mean(axis=0))


def test_settle_chance_leaves_the_state_as_it_was():
    game = load("classic", 2, 1)
    state = states_of(game, seed=0, count=1, chance=True)[0]
    history = state.history()
    settled = settle_chance(state._m, np.random.RandomState(0))
    assert settled.need is None and settled is not state._m
    assert state.history() == history and state.is_chance_node()
    values = EngineRollouts(4, np.random.RandomState(0)).evaluate(state)
    assert values.shape == (2,) and state.history() == history


def test_prior_is_uniform_over_the_legal_actions_and_the_chance_outcomes():
    game = load("classic", 2, 1)
    evaluator = EngineRollouts(1, np.random.RandomState(0))
    decision = states_of(game, seed=0, count=1, chance=False)[0]
    prior = evaluator.prior(decision)
    assert [action for action, _ in prior] == decision.legal_actions()
    assert np.isclose(sum(p for _, p in prior), 1.0)
    chance = states_of(game, seed=0, count=1, chance=True)[0]
    assert evaluator.prior(chance) == chance.chance_outcomes()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "8"])
def test_n_rollouts_must_be_a_positive_integer(bad):
    with pytest.raises(StoOdnoError, match="n_rollouts must be a positive integer"):
        EngineRollouts(bad)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_openspiels_searches_play_a_round_with_engine_rollouts(preset):
    """MCTSBot and ISMCTSBot (with the game's resampling), both with the expert's rollouts,
    each play a whole round of every preset at two players against the kit's expert,
    seated as an OpenSpiel bot (which keeps the rounds short; uniform rollouts are checked
    against OpenSpiel's above)."""
    from open_spiel.python.algorithms import ismcts, mcts

    import agents

    game = load(preset, 2, rounds=1)
    rng = np.random.RandomState(1)
    expert = agents.load("expert", preset, 2)
    searches = [
        mcts.MCTSBot(game, 2.0, 8, EngineRollouts(2, rng, expert), random_state=rng),
        ismcts.ISMCTSBot(game, EngineRollouts(2, rng, expert), 2.0, 8, random_state=rng),
    ]
    for search in searches:
        state = play_bots(game, [search, osp.PolicyBot(1, expert)], rng)
        returns = state.returns()
        assert game.min_utility() <= min(returns) <= max(returns) <= game.max_utility()


def test_only_python_sto_odno_states_are_evaluated():
    other = pyspiel.load_game("kuhn_poker").new_initial_state()
    with pytest.raises(StoOdnoError, match="EngineRollouts plays python_sto_odno states"):
        EngineRollouts(1).evaluate(other)


def test_a_policy_bot_plays_the_policy_from_its_seat_in_evaluate_bots():
    """PolicyBot seats a kit agent in OpenSpiel's evaluate_bots: each of its moves is the
    agent's own choice from the seat's observation; it refuses another seat's turn."""
    from open_spiel.python.algorithms import evaluate_bots

    import agents
    from sto_odno_env.views.observation import observe_one

    game = load("classic", 2, 1)
    expert = agents.load("expert", "classic", 2)
    bots = [osp.PolicyBot(0, expert), osp.PolicyBot(1, agents.load("greedy", "classic", 2))]
    state, rng, moves = game.new_initial_state(), np.random.default_rng(0), 0
    while not state.is_terminal():
        if state.is_chance_node():
            random_step(state, rng)
            continue
        seat = state.current_player()
        action = bots[seat].step(state)
        if seat == 0:
            mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)
            mask[state.legal_actions()] = 1
            assert action == expert(observe_one(state.engine_state, 0), mask)
            moves += 1
        with pytest.raises(StoOdnoError, match="asked to act for seat"):
            bots[1 - seat].step(state)
        state.apply_action(action)
    assert moves > 3
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == 2 and game.min_utility() <= min(returns)
