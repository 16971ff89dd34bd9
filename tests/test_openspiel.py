"""The OpenSpiel game ``python_sto_odno`` (sto_odno_env.interop.openspiel, docs/openspiel.md).

OpenSpiel's own random-simulation checks for every preset at every player count it allows
(on a copy with a low target in the quick tier, the presets as shipped in the slow one,
both at every count);
the chance nodes' exact distributions; what an observation may not show; and the record
round trips: a match played here replays in the kit, and every golden kit record replays
here to the same end.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.helpers import need

pyspiel = need("pyspiel")
osp = pytest.importorskip("sto_odno_env.interop.openspiel")

from sto_odno_env.game import engine  # noqa: E402
from sto_odno_env.game.rules import PRESETS, Rules, RulesError  # noqa: E402
from sto_odno_env.records.replay import replay  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RECORDS = sorted((REPO / "tests" / "data" / "records").rglob("*.jsonl"))
COUNTS = [
    (name, players)
    for name in PRESETS
    for players in range(Rules.preset(name).players[0], Rules.preset(name).players[1] + 1)
]


def short_variant(tmp_path: Path, preset: str, target: int = 25, turns: int = 60) -> str:
    """A YAML variant of ``preset`` whose matches end sooner (a low target, and a round
    truncated after ``turns`` decisions)."""
    path = tmp_path / f"{preset}-short.yaml"
    text = f"base: {preset}\nname: {preset}-short\ntarget: {target}\nmax_turns: {turns}\n"
    path.write_text(text, "utf-8")
    return str(path)


def play_random(state, seed: int = 0, limit: int = 100_000):
    """Play a state to its end: chance from its distribution, decisions at random."""
    rng = np.random.default_rng(seed)
    for _ in range(limit):
        if state.is_terminal():
            return state
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    raise AssertionError("the match did not end")


def test_the_game_is_registered_with_every_preset_and_count():
    assert osp.GAME_NAME in pyspiel.registered_names()
    for name in PRESETS:
        low, high = Rules.preset(name).players
        for players in range(low, high + 1):
            game = pyspiel.load_game(osp.GAME_NAME, {"rules": name, "players": players})
            assert game.num_players() == players
            assert game.num_distinct_actions() == engine.num_actions(name)
            zero_sum = pyspiel.GameType.Utility.ZERO_SUM
            assert (game.get_type().utility == zero_sum) == (players == 2)


def test_a_bad_parameter_is_one_clear_error():
    with pytest.raises(RulesError, match=r"allowed: 2\.\.4"):
        pyspiel.load_game(osp.GAME_NAME, {"rules": "nines", "players": 6})
    with pytest.raises(RulesError, match="neither a preset"):
        pyspiel.load_game(osp.GAME_NAME, {"rules": "no-such-rules", "players": 2})


@pytest.mark.parametrize(("preset", "players"), COUNTS)
def test_openspiel_random_simulation_checks_pass_on_short_matches(tmp_path, preset, players):
    game = pyspiel.load_game(
        osp.GAME_NAME, {"rules": short_variant(tmp_path, preset), "players": players}
    )
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players"), COUNTS)
def test_openspiel_random_simulation_checks_pass_on_the_presets(preset, players):
    """Whole matches of the presets as shipped, at every count each allows (OpenSpiel's
    simulation is seeded, so this takes the same time each run: seconds a table here)."""
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": preset, "players": players})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_chance_nodes_place_each_card_uniformly_among_the_cards_left():
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": "classic", "players": 3})
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    state.apply_action(1)  # seat 1 deals
    placed = []
    while state.is_chance_node():  # the deal: 3 hands of 5 cards, the opening card last
        outcomes = dict(state.chance_outcomes())
        assert sorted(outcomes) == sorted(set(range(36)) - set(placed))
        assert np.isclose(sum(outcomes.values()), 1.0)
        assert len(set(outcomes.values())) == 1
        card = max(outcomes)
        placed.append(card)
        state.apply_action(card)
    # 15 dealt, then the stock's top cards, placed ahead of the draws that take them
    assert len(placed) == 15 + osp.match.PLACED_AHEAD
    view = state.view_state
    dealt = [int(view.hand[0, p]) for p in range(3)] + [int(view.discard_bits[0])]
    assert sum(bin(h).count("1") for h in dealt) == 15
    assert all(sum(h >> c & 1 for h in dealt) == 1 for c in placed[:15])
    assert int(view.top_card[0]) == placed[14]  # the dealer's last card opens
    # A draw takes the top card placed first, and the next one is placed then, among the
    # cards nobody holds.
    while not state.is_chance_node():
        legal = state.legal_actions()
        state.apply_action(engine.DRAW if engine.DRAW in legal else legal[0])
    view = state.view_state
    assert any(int(view.hand[0, p]) >> placed[15] & 1 for p in range(3))
    assert sorted(dict(state.chance_outcomes())) == sorted(set(range(36)) - set(placed))


def first_decision(game, deal: list[int]):
    state = game.new_initial_state()
    state.apply_action(0)
    for card in deal:
        state.apply_action(card)
    while state.is_chance_node():  # the stock's top card
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def test_an_observation_shows_nothing_hidden_and_the_information_state_has_perfect_recall():
    # Seat 1 holds the same cards in two deals where seat 0's cards differ.
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": "classic", "players": 2})
    # Dealer 0 deals seat 1 first: positions 0, 2, 4, 6, 8 go to seat 1, the rest to seat 0,
    # whose last card (J♠, which seat 1 can follow with a spade) opens.
    ones = [0, 1, 2, 3, 4]
    deal_a = [c for pair in zip(ones, [10, 11, 12, 13, 5], strict=True) for c in pair]
    deal_b = [c for pair in zip(ones, [20, 21, 22, 23, 5], strict=True) for c in pair]
    a, b = first_decision(game, deal_a), first_decision(game, deal_b)
    assert a.current_player() == b.current_player() == 1
    assert a.observation_string(1) == b.observation_string(1)
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.observation_tensor(1) == b.observation_tensor(1)
    assert a.information_state_tensor(1) == b.information_state_tensor(1)
    assert a.observation_string(0) != b.observation_string(0)
    # The same decision in both: still the same for seat 1, and its history grew.
    before = a.information_state_string(1)
    action = a.legal_actions()[0]
    for state in (a, b):
        state.apply_action(action)
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
    after = a.information_state_string(1)
    assert after == b.information_state_string(1) and after != before
    assert "history" in after


def test_the_observation_tensor_is_the_kits_observation():
    from sto_odno_env.views.observation import observe_one

    game = pyspiel.load_game(osp.GAME_NAME, {"rules": "yard", "players": 4})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[-1][0])
    for seat in range(4):
        np.testing.assert_array_equal(
            np.asarray(state.observation_tensor(seat), np.float32),
            observe_one(state.engine_state, seat),
        )
    assert "hand" in state.observation_string(0) and "top" in state.observation_string(0)


def test_clone_and_serialisation_keep_the_match():
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": "classic", "players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(200):
        if state.is_chance_node():
            state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    copy = state.clone()
    again = game.deserialize_state(state.serialize())
    for other in (copy, again):
        assert str(other) == str(state) and other.history() == state.history()
    tail = play_random(copy, seed=5)
    play_random(state, seed=5)
    assert tail.returns() == state.returns()


def split_matches(path: Path) -> list[list[dict]]:
    matches = []
    for text in path.read_text(encoding="utf-8").splitlines():
        if text.strip():
            event = json.loads(text)
            if event["type"] == "match":
                matches.append([])
            matches[-1].append(event)
    return matches


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_kit_records_replay_through_openspiel_to_the_same_end(tmp_path, path):
    for events in split_matches(path):
        head = events[0]
        rules = tmp_path / "rules.yaml"
        rules.write_text(yaml.safe_dump(head["rules"], allow_unicode=True), "utf-8")
        game = pyspiel.load_game(osp.GAME_NAME, {"rules": str(rules), "players": head["players"]})
        state = osp.state_from_record(game, events)
        end = next(e for e in events if e["type"] == "match_end")
        assert state.is_terminal()
        view = state.view_state
        assert view.totals[0].tolist() == end["totals"]
        rewards = np.zeros(head["players"])
        for place, seat in enumerate(end["ranking"]):
            rewards[seat] = np.linspace(1, -1, head["players"])[place]
        if not end["truncated"] and len(set(end["totals"])) == len(end["totals"]):
            np.testing.assert_allclose(state.returns(), rewards, atol=1e-6)
        # And back: the record this state writes replays in the kit.
        out = tmp_path / "back.jsonl"
        osp.write_record(state, out)
        assert replay(out) == 1


@pytest.mark.parametrize(("preset", "players"), [("classic", 4), ("yard", 2), ("encyclopedia", 3)])
def test_a_match_played_through_openspiel_writes_a_record_the_kit_replays(
    tmp_path, preset, players
):
    game = pyspiel.load_game(
        osp.GAME_NAME, {"rules": short_variant(tmp_path, preset, 60, 400), "players": players}
    )
    state = play_random(game.new_initial_state(), seed=3)
    out = tmp_path / "match.jsonl"
    osp.write_record(state, out)
    assert replay(out) == 1
    lines = [json.loads(t) for t in out.read_text("utf-8").splitlines()]
    assert lines[-1]["totals"] == state.view_state.totals[0].tolist()
    # A match stopped half way is written with its 'unfinished' line and replays too.
    half = game.new_initial_state()
    for action in state.history()[: len(state.history()) // 2]:
        half.apply_action(action)
    osp.write_record(half, tmp_path / "half.jsonl")
    assert replay(tmp_path / "half.jsonl") == 1


def test_the_same_deal_gives_the_same_match_as_the_engine():
    """Chance answered with the kit's own random deal of a seed reproduces that match."""
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": "classic", "players": 2})
    trace = engine.Trace(1)
    kit = engine.init("classic", 2, seeds=[7], trace=trace)
    rng = np.random.default_rng(0)
    returns = np.zeros(2)
    while not kit.done[0]:
        action = int(engine.sample_actions(kit.legal_bits, rng.random(1))[0])
        returns += engine.step(kit, [action], trace=trace)[1][0]
    state = osp.state_from_record(game, trace.matches[0])
    assert state.is_terminal()
    assert state.view_state.totals[0].tolist() == kit.totals[0].tolist()
    assert state.returns() == pytest.approx(returns.tolist())
    assert len(state.decisions) == sum(
        e["type"] == "action" and not e["forced"] for e in trace.matches[0]
    )


@pytest.mark.slow
def test_101_runs_as_a_kaggle_environments_openspiel_env(tmp_path):
    """kaggle-environments builds its OpenSpiel envs from a game string; 101 is one more.
    (It pins other versions of gymnasium and open-spiel than the kit's dev install: run this
    in a virtual environment of its own, docs/openspiel.md.)"""
    kaggle = pytest.importorskip("kaggle_environments")
    from kaggle_environments.envs.open_spiel_env import open_spiel_env

    rules = short_variant(tmp_path, "classic", 20, 40)
    spec = open_spiel_env._build_env(f"{osp.GAME_NAME}(players=2,rules={rules})")
    kaggle.environments[spec["specification"]["name"]] = spec
    env = kaggle.make(
        "open_spiel_python_sto_odno", configuration={"includeLegalActions": True}, debug=True
    )
    steps = env.run(["random", "random"])
    last = steps[-1]
    assert [seat["status"] for seat in last] == ["DONE", "DONE"]
    assert sum(seat["reward"] for seat in last) == 0
    assert any("hand" in s[0]["observation"].get("observationString", "") for s in steps)


def test_openspiels_bots_play_the_game(tmp_path):
    """MCTS, and ISMCTS keyed by observation strings with a resampler, pick legal moves
    and play a match against each other."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(
        osp.GAME_NAME, {"rules": short_variant(tmp_path, "classic", 20, 30), "players": 2}
    )
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    search = mcts.MCTSBot(game, 2.0, 4, evaluator, random_state=rng)
    sampled = ismcts.ISMCTSBot(
        game, evaluator, 2.0, 4, random_state=rng, use_observation_string=True
    )
    sampled.set_resampler(lambda state, seat: state.clone())
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert search.step(state) in state.legal_actions()
    assert sampled.step(state) in state.legal_actions()
    state = game.new_initial_state()
    bots = [search, sampled]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.slow
def test_openspiels_exact_best_response_walks_the_smallest_rule_set():
    """lab/openspiel/micro.yaml, the smallest 101 the schema allows (one card each): the
    whole tree walks, and nobody ever has a choice, so every policy's NashConv is 0."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    micro = str(REPO / "lab" / "openspiel" / "micro.yaml")
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": micro, "players": 2})
    assert exploitability.nash_conv(game, policy.UniformRandomPolicy(game)) == 0.0
