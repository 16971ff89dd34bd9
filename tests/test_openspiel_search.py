"""OpenSpiel's search on python_sto_odno: resample_from_infostate (ISMCTS), the ``rounds``
parameter, serialisation of parameters and actions, the game's bounds and names."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import need

pyspiel = need("pyspiel")
osp = pytest.importorskip("sto_odno_env.interop.openspiel")

from sto_odno_env.game.rules import PRESETS, Rules  # noqa: E402
from tests.support.openspiel import load, play_bots, random_step  # noqa: E402

COUNTS = [
    (name, players)
    for name in PRESETS
    for players in range(Rules.preset(name).players[0], Rules.preset(name).players[1] + 1)
]


def decision_states(game, seed: int, every: int = 7, limit: int = 400):
    """Decision nodes of one random match, every ``every``-th."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    found = []
    for step in range(limit):
        if state.is_terminal():
            break
        if not state.is_chance_node() and step % every == 0:
            found.append(state.clone())
        random_step(state, rng)
    return found


def test_the_default_game_is_two_players_and_the_whole_match():
    game = pyspiel.load_game(osp.GAME_NAME)
    assert game.num_players() == 2
    assert game.get_parameters()["rounds"] == 0
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


def test_action_to_string_of_the_game_names_the_move():
    game = load()
    names = {game.action_to_string(0, action) for action in range(game.num_distinct_actions())}
    assert len(names) == game.num_distinct_actions()
    assert "draw" in names and any(name.startswith("play ") for name in names)
    assert all("Action(" not in name for name in names)
    assert game.action_to_string(pyspiel.PlayerId.CHANCE, 0).startswith("card ")


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        ("classic", 2),
        pytest.param("yard", 4, marks=pytest.mark.slow),
        pytest.param("encyclopedia", 3, marks=pytest.mark.slow),
    ],
)
def test_resampled_states_keep_what_the_seat_knows(preset, players):
    """A resampled state shows the seat exactly what it saw (observation, information
    state), keeps every hand's size and the stock's, and plays on legally."""
    game = load(preset, players)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = np.random.default_rng(0)
    changed = 0
    for state in decision_states(game, seed=players):
        seat = state.current_player()
        before = state.view_state
        for _ in range(2):
            other = state.resample_from_infostate(seat, sampler)
            assert other.information_state_string(seat) == state.information_state_string(seat)
            assert other.observation_string(seat) == state.observation_string(seat)
            assert other.observation_tensor(seat) == state.observation_tensor(seat)
            assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
            assert other.legal_actions() == state.legal_actions()
            after = other.view_state
            assert after.hand[0, seat] == before.hand[0, seat]
            counts = [int(np.bitwise_count(after.hand[0, p])) for p in range(players)]
            assert counts == [int(np.bitwise_count(before.hand[0, p])) for p in range(players)]
            assert int(after.stock_size[0]) == int(before.stock_size[0])
            every = int(np.bitwise_or.reduce(after.hand[0])) | int(after.discard_bits[0])
            stock = after.stock[0, : int(after.stock_size[0])].tolist()
            cards = bin(every).count("1") + len(stock)
            assert cards == after.tables.deck.cards and not any(every >> c & 1 for c in stock)
            changed += any(after.hand[0, p] != before.hand[0, p] for p in range(players))
            for _ in range(30):  # plays on under the rules
                if other.is_terminal():
                    break
                random_step(other, rng)
    assert changed  # the other hands did move


def test_a_reshuffled_stock_is_resampled_from_the_reshuffled_cards():
    """After a reshuffle everybody knows the new stock's cards: a resample keeps the stock
    within them."""
    game = load("classic", 2)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < 5:
        random_step(state, rng)
        match = state._m
        if state.is_chance_node() or match.stack is None:
            continue
        event = match.events[match.stack]
        if event.kind != "shuffle":
            continue
        seat = state.current_player()
        other = state.resample_from_infostate(seat, sampler)
        view = other.view_state
        stock = set(view.stock[0, : int(view.stock_size[0])].tolist())
        assert stock <= set(event.pool)
        checked += 1
    assert checked


class FlatValues:
    """Leaf values of zero and a uniform prior: ISMCTS's tree and its resampling alone,
    without rollouts (a whole match's rollouts would take minutes)."""

    def __init__(self, players: int):
        self.players = players

    def evaluate(self, state):
        return np.zeros(self.players)

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


@pytest.mark.parametrize("players", [2, 4])
def test_openspiels_ismcts_plays_whole_matches_with_its_own_resampling(players):
    """OpenSpiel's ISMCTSBot in every seat of a whole match (rounds, reshuffles, and at four
    players eliminations), resampling with the game's own ``resample_from_infostate``;
    every resampled state keeps the deciding seat's information state."""
    from open_spiel.python.algorithms import ismcts

    game = load("classic", players)
    rng = np.random.RandomState(players)
    resampled = []
    sampler = pyspiel.UniformProbabilitySampler(players, 0.0, 1.0)

    def checked_resample(state, player):
        again = state.resample_from_infostate(player, sampler)
        assert again.information_state_string(player) == state.information_state_string(player)
        resampled.append(again)
        return again

    bots = []
    for _ in range(players):
        bot = ismcts.ISMCTSBot(game, FlatValues(players), 2.0, 4, random_state=rng)
        bot.set_resampler(checked_resample)
        bots.append(bot)
    state = play_bots(game, bots, rng)
    returns = state.returns()
    assert len(returns) == players
    if players == 2:  # zero-sum at two players
        assert np.isclose(sum(returns), 0.0)
    assert int(state.view_state.round[0]) >= 1 and resampled  # several rounds were searched


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_openspiels_ismcts_plays_rounds_with_random_rollouts(players):
    """ISMCTSBot with OpenSpiel's own random rollouts, its nodes keyed by the observation
    string, plays a round against the kit's expert in the other seats."""
    from open_spiel.python.algorithms import ismcts, mcts

    import agents

    game = load("classic", players, rounds=1)
    rng = np.random.RandomState(players)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    search = ismcts.ISMCTSBot(
        game, evaluator, 2.0, 4, random_state=rng, use_observation_string=True
    )
    expert = agents.load("expert", "classic", players)
    bots = [search, *(osp.PolicyBot(seat, expert) for seat in range(1, players))]
    state = play_bots(game, bots, rng)
    assert len(state.returns()) == players


def test_rounds_end_the_game_with_the_round_reward():
    """rounds=1 ends with the first round: each seat gets minus its round points over the
    target (the kit's reward="round"), and the totals are those points."""
    for seed in range(3):
        game = load("classic", 3, rounds=1)
        state = game.new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            random_step(state, rng)
        view = state.view_state
        assert int(view.round[0]) <= 1
        target = game.rules.target
        returns = np.asarray(state.returns())
        if not bool(view.truncated[0]):
            assert (returns <= 40 / target + 1e-9).all()
            np.testing.assert_allclose(returns, -view.totals[0] / target, atol=1e-6)
        assert game.min_utility() <= returns.min() and returns.max() <= game.max_utility()
    whole = load("classic", 3)
    assert whole.max_game_length() > game.max_game_length()


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players"), COUNTS)
def test_round_level_games_pass_openspiels_checks(preset, players):
    game = load(preset, players, rounds=1)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_serialisation_holds_the_parameters_and_the_actions():
    game = load("classic", 2)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    sizes = []
    while not state.is_terminal():
        random_step(state, rng)
        if len(state.history()) % 500 == 0:
            sizes.append(len(state.serialize()))
    text = state.serialize()
    assert len(text) < 50_000
    again = game.deserialize_state(text)
    assert again.history() == state.history() and str(again) == str(state)
    assert again.returns() == state.returns()
    assert again.information_state_string(0) == state.information_state_string(0)
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert again.returns() == state.returns()
    # Linear in the actions: a few bytes per action.
    assert len(text) < 12 * len(state.history()) + 1000


def test_max_game_length_bounds_the_round_and_follows_the_rules():
    for name in PRESETS:
        game = load(name, 2, rounds=1)
        rules = game.rules
        assert game.max_game_length() == osp.round_length(rules) + 1
        assert game.max_game_length() >= rules.max_turns
        shorter = load_variant(name, rules.max_turns // 2)
        assert shorter.max_game_length() < game.max_game_length()
    game = load("classic", 2, rounds=1)
    lengths = []
    for seed in range(5):
        state, rng = game.new_initial_state(), np.random.default_rng(seed)
        while not state.is_terminal():
            random_step(state, rng)
        lengths.append(len(state.history()))
    assert max(lengths) <= game.max_game_length()


def load_variant(preset: str, turns: int):
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / f"{preset}-turns.yaml"
    path.write_text(f"base: {preset}\nname: {preset}-turns\nmax_turns: {turns}\n", "utf-8")
    return pyspiel.load_game(osp.GAME_NAME, {"rules": str(path), "players": 2, "rounds": 1})


@pytest.mark.slow
def test_openspiels_mcts_and_evaluate_bots_run_at_round_level():
    from open_spiel.python.algorithms import evaluate_bots, mcts

    import agents

    game = load("classic", 2, rounds=1)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    # The kit's expert as an OpenSpiel bot keeps the round short (a random bot draws often).
    other = osp.PolicyBot(1, agents.load("expert", "classic", 2))
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, other], rng)
    assert len(returns) == 2
