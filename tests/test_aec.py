"""The PettingZoo AEC env ``sto_odno_v0`` against its contract (the module docstring of
``sto_odno_env.envs.aec``): PettingZoo's own API, seed and render tests for every preset and
player count, then masks, the queen's ORDER decision, illegal actions, eliminations through
the dead-step convention, both reward modes, truncation, snapshots and rendering.

Everything is seeded: ``reset(seed=S)`` fixes the match (and later ``reset()`` calls follow
deterministically from it), the shared action space is seeded before PettingZoo samples from
it, and the test's own actions come from ``numpy.random.default_rng``.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from sto_odno_env import PRESETS, Rules, sto_odno_v0
from sto_odno_env.envs.table_config import ActionSpaceError
from sto_odno_env.game import engine
from sto_odno_env.game.cards import action_name, card_name, parse_card
from sto_odno_env.game.engine import IllegalActionError
from sto_odno_env.records.scenario import Game
from sto_odno_env.views import observation
from sto_odno_env.views.observation import LAYOUT, observe
from tests.helpers import needs
from tests.preset_combos import COMBO_PARAMS, COMBOS

ORDER_ACTIONS = [36, 37, 38, 39]
DRAW = 40


def test_every_preset_and_player_count_is_covered():
    assert set(PRESETS) == {"classic", "yard", "nines", "encyclopedia", "ukrainian", "micro"}
    assert len(COMBOS) == 4 * 5 + 3 + 1  # nines: 2–4 players, micro 2, the others 2–6


# --- helpers ----------------------------------------------------------------------------------


def make_env(rules="classic", players=2, seed=0, **kwargs):
    """A wrapped env, reset with ``seed`` and with its (shared) action space seeded. Illegal
    actions raise unless asked otherwise, so that a wrong mask fails a test instead of
    quietly ending its match (the env's default is to penalize)."""
    kwargs.setdefault("illegal_action", "raise")
    env = sto_odno_v0.env(rules=rules, players=players, **kwargs)
    env.reset(seed=seed)
    env.action_space(env.possible_agents[0]).seed(seed)
    return env


def legal_actions(env, agent):
    return np.flatnonzero(env.observe(agent)["action_mask"])


def random_action(env, agent, generator):
    return int(generator.choice(legal_actions(env, agent)))


def play(env, generator, on_step=None, max_steps=None):
    """Play uniformly random legal actions (None for dead agents) until the match ends or
    ``max_steps`` live steps were taken; ``on_step(env, agent, action)`` runs after each
    live step. Returns the live steps taken."""
    steps = 0
    while env.agents:
        agent = env.agent_selection
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if max_steps is not None and steps >= max_steps:
            break
        action = random_action(env, agent, generator)
        env.step(action)
        steps += 1
        if on_step is not None:
            on_step(env, agent, action)
    return steps


def load_game(env, state: engine.State) -> None:
    """Put a hand-made engine state (``scenario.Game(...).state``) into a reset env.

    There is no public hook for this; the env's own snapshot/restore pair is used: take a
    snapshot, swap its engine state, its legal mask and the agent to act, restore it.
    """
    raw = env.unwrapped
    snapshot = raw.get_state()
    snapshot["game"] = state
    snapshot["mask"] = engine.legal_mask(state)[0]
    snapshot["agent_selection"] = raw.possible_agents[int(state.current_player[0])]
    raw.set_state(snapshot)


def assert_states_equal(a: engine.State, b: engine.State) -> None:
    for name, value in vars(a).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(value, getattr(b, name), err_msg=name)


# --- PettingZoo's own tests -------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("preset", "players"), COMBO_PARAMS)
def test_api(preset, players):
    api_test(make_env(preset, players, seed=players), num_cycles=100)


@pytest.mark.parametrize(("preset", "players"), COMBO_PARAMS)
def test_seed(preset, players):
    seed_test(
        lambda: sto_odno_v0.env(rules=preset, players=players, illegal_action="raise"),
        num_cycles=100,
    )


@needs("PIL")  # render_test draws rgb_array frames too
@pytest.mark.parametrize(("preset", "players"), COMBO_PARAMS)
def test_render(preset, players, capsys):
    def env_fn(render_mode=None):
        return make_env(preset, players, seed=5, render_mode=render_mode)

    render_test(env_fn, custom_tests={"ansi": lambda text: "top card:" in text})
    assert "top card:" in capsys.readouterr().out  # "human" printed the table


# --- registration, spaces, masks --------------------------------------------------------------


def test_registered_with_pettingzoo():
    env = pettingzoo.make("aec", "sto_odno_v0", players=3)
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.unwrapped.metadata["name"] == "sto_odno_v0"
    assert env.observe(env.agent_selection)["observation"].shape == (189,)


def test_reset_without_seed_continues_deterministically():
    one, two = make_env("classic", 3, seed=21), make_env("classic", 3, seed=21)
    first = one.unwrapped.engine_state()
    one.reset()
    two.reset()
    assert_states_equal(one.unwrapped.engine_state(), two.unwrapped.engine_state())
    assert one.unwrapped.engine_state().seed[0] != first.seed[0]  # a new match


def test_spaces_are_the_same_objects_on_every_call():
    env = make_env("classic", 4)
    obs_space = env.observation_space("player_0")
    act_space = env.action_space("player_0")
    for agent in env.possible_agents:
        assert env.observation_space(agent) is obs_space
        assert env.action_space(agent) is act_space
    play(env, np.random.default_rng(0), max_steps=50)
    env.reset(seed=3)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is obs_space
        assert env.action_space(agent) is act_space
    assert act_space.n == 42
    assert obs_space["observation"].shape == (189,)
    assert obs_space["action_mask"].shape == (42,)
    assert obs_space["action_mask"].dtype == np.int8


@pytest.mark.parametrize(("preset", "players"), [("classic", 3), ("yard", 4), ("nines", 2)])
def test_only_the_acting_agent_has_a_mask(preset, players):
    env = make_env(preset, players, seed=11)
    generator = np.random.default_rng(11)
    for _ in range(300):
        if not env.agents:
            env.reset()
        acting = env.agent_selection
        if env.terminations[acting] or env.truncations[acting]:
            env.step(None)  # dead steps are checked in test_masks_agree_during_dead_steps
            continue
        full = env.unwrapped.engine_state()
        legal = engine.legal_mask(full)[0]
        assert int(full.current_player[0]) == env.unwrapped.agent_seat[acting]
        assert legal.sum() >= 2  # forced decisions are never shown
        for agent in env.agents:
            observed = env.observe(agent)["action_mask"]
            assert observed.dtype == np.int8
            np.testing.assert_array_equal(observed, env.infos[agent]["action_mask"])
            if agent == acting:
                np.testing.assert_array_equal(observed, legal)
            else:
                assert not observed.any()
        obs, _, _, _, info = env.last()
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        env.step(random_action(env, acting, generator))


def test_masks_agree_during_dead_steps():
    """After an elimination PettingZoo hands the turn to the dead agent first; the agent
    that acts after it is not to act at that moment, so its mask must be all zero, and
    the same in observe() and infos."""
    for seed in range(2, 12):
        env = make_env("classic", 3, seed=seed)
        generator = np.random.default_rng(seed)
        while env.agents:
            agent = env.agent_selection
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            env.step(random_action(env, agent, generator))
        if not all(env.terminations.values()):
            break  # an elimination, and the match goes on
    else:
        pytest.fail("no seed gave an elimination in mid-match")  # not the expected failure
    for other in env.agents:
        observed = env.observe(other)["action_mask"]
        np.testing.assert_array_equal(observed, env.infos[other]["action_mask"], err_msg=other)
        assert not observed.any()


# --- the queen's ORDER decision ---------------------------------------------------------------


def test_queen_play_is_followed_by_the_same_agents_order_decision():
    env = make_env("classic", 2)
    game = Game(
        "classic",
        players=2,
        dealer=1,
        hands={0: "Q♥ 9♣ J♠ 6♥ K♥", 1: "6♠ 7♠ 8♦ A♠"},
        opening="9♦",
        stock="J♣ A♥",
    )
    load_game(env, game.state)
    assert env.agent_selection == "player_0"
    assert set(legal_actions(env, "player_0")) == {
        parse_card("Q♥"),
        parse_card("9♣"),
        DRAW,
    }

    env.step(parse_card("Q♥"))
    assert env.agent_selection == "player_0"
    assert legal_actions(env, "player_0").tolist() == ORDER_ACTIONS
    assert env.infos["player_0"]["action_mask"][ORDER_ACTIONS].all()
    assert not env.observe("player_1")["action_mask"].any()
    view = env.observe("player_0")["observation"]
    assert view[LAYOUT["phase"]].argmax() == engine.ORDER

    env.step(38)  # order ♦
    assert env.agent_selection == "player_1"
    obs = env.observe("player_1")["observation"]
    assert obs[LAYOUT["ordered_suit"]].argmax() == 2
    # ♦ ordered: 8♦ by suit (no queen in hand), or draw.
    assert set(legal_actions(env, "player_1")) == {parse_card("8♦"), DRAW}


def test_queen_as_the_opening_card_gives_the_dealer_an_order_decision():
    env = make_env("classic", 3)
    game = Game(
        "classic",
        players=3,
        dealer=2,
        hands={0: "6♦ 9♣ J♠ 6♥ K♥", 1: "7♦ 10♣ 7♠ 9♥ 8♣", 2: "6♠ 7♣ 8♠ A♠"},
        opening="Q♣",
    )
    load_game(env, game.state)
    assert env.agent_selection == "player_2"
    assert legal_actions(env, "player_2").tolist() == ORDER_ACTIONS


# --- illegal actions --------------------------------------------------------------------------


def test_illegal_action_raises_naming_action_phase_and_legal_actions():
    env = make_env("classic", 3, seed=1, illegal_action="raise")
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"].copy()
    before = env.unwrapped.engine_state()
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError) as raised:
        env.step(bad)
    assert isinstance(raised.value, ValueError)
    message = str(raised.value)
    assert f"illegal action {bad}" in message
    assert card_name(bad) in message  # the action's name
    assert "phase PLAY" in message
    assert "legal actions:" in message
    for action in np.flatnonzero(mask):
        assert f"{action} (" in message.split("legal actions:")[1]
    # nothing changed: the same agent acts with the same mask
    assert env.agent_selection == agent
    np.testing.assert_array_equal(env.observe(agent)["action_mask"], mask)
    assert_states_equal(before, env.unwrapped.engine_state())
    env.step(int(np.flatnonzero(mask)[0]))  # and the env goes on


NOT_ACTIONS = [42, 99, -1, 1.5, 2.0, "3", True, np.float64(3.0), np.bool_(True), None, [3]]


@pytest.mark.parametrize("mode", ["raise", "penalize"])
@pytest.mark.parametrize("action", NOT_ACTIONS, ids=repr)
def test_a_value_outside_the_action_space_raises_in_every_mode(mode, action):
    """99 or 1.5 is no action at all: an error naming it and the space, in either mode,
    and nothing changes (no penalty, no end, the same agent to act)."""
    env = make_env("classic", 3, seed=1, illegal_action=mode)
    agent = env.agent_selection
    before = env.unwrapped.engine_state()
    with pytest.raises(ActionSpaceError) as raised:
        env.step(action)
    assert isinstance(raised.value, ValueError)
    assert "allowed: an integer from 0 to 41" in str(raised.value)
    assert env.agent_selection == agent
    assert not any(env.terminations.values()) and set(env.rewards.values()) == {0}
    assert_states_equal(before, env.unwrapped.engine_state())


@pytest.mark.parametrize("mode", ["raise", "penalize"])
@pytest.mark.parametrize("kind", [int, np.int64, np.int32, np.uint8, np.array])
def test_python_and_numpy_integers_are_actions(mode, kind):
    env = make_env("classic", 2, seed=3, illegal_action=mode)
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = int(np.flatnonzero(mask)[0])
    turn = int(env.unwrapped.engine_state().turn[0])
    env.step(kind(legal))
    assert not any(env.terminations.values())
    assert int(env.unwrapped.engine_state().turn[0]) > turn  # played


def test_illegal_action_in_order_phase_names_the_order_phase():
    env = make_env("classic", 2, illegal_action="raise")
    game = Game(
        "classic", players=2, dealer=1, hands={0: "Q♥ 9♣ J♠ 6♥ K♥", 1: "6♠ 7♠ 8♦ A♠"}, opening="9♦"
    )
    load_game(env, game.state)
    env.step(parse_card("Q♥"))
    with pytest.raises(IllegalActionError) as raised:
        env.step(DRAW)
    message = str(raised.value)
    assert "phase ORDER" in message and "draw" in message
    for action in ORDER_ACTIONS:
        assert f"{action} (order" in message


@pytest.mark.parametrize("players", [2, 4])
def test_illegal_action_penalized_ends_the_match(players):
    env = make_env("classic", players, seed=4, illegal_action="penalize")
    generator = np.random.default_rng(4)
    play(env, generator, max_steps=20)
    offender = env.agent_selection
    bad = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    env.step(bad)
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert all(env.terminations.values())
    assert not any(env.truncations.values())
    assert "illegal_action" in env.infos[offender]
    seen = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        assert not env.observe(agent)["action_mask"].any()
        seen[agent] = reward
        env.step(None)
    assert seen == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.agents == []


# --- eliminations and rewards -----------------------------------------------------------------


def elimination_match(rules, players, seed):
    """Play a random match, checking every elimination as it happens; returns the number
    of eliminations in mid-match, each agent's total reward, the rewards paid at exit."""
    env = make_env(rules, players, seed=seed)
    generator = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    paid_at_exit = {}
    gone = []
    eliminations = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            assert agent not in env.agents
            gone.append(agent)
            continue
        assert agent not in gone
        before = {a for a in env.agents if not env.terminations[a]}
        env.step(random_action(env, agent, generator))
        for other, value in env.rewards.items():
            totals[other] += value
        out = {a for a in before if env.terminations[a]}
        if out and not all(env.terminations.values()):
            eliminations += 1
            state = env.unwrapped.engine_state()
            assert not state.done[0]  # the match goes on
            for seat_name in out:
                seat = env.unwrapped.agent_seat[seat_name]
                assert state.totals[0, seat] > state.rules.target
                assert not state.in_match[0] >> seat & 1
                assert env.rewards[seat_name] < 0
                paid_at_exit[seat_name] = env.rewards[seat_name]
            # the dead agents act first, then the player to act in the engine
            assert env.agent_selection in out
            for a in set(env.agents) - out:
                assert not env.terminations[a]
    assert env.agents == []
    return env, eliminations, totals, paid_at_exit


@pytest.mark.parametrize(("preset", "players", "seed"), [("classic", 3, 2), ("encyclopedia", 4, 3)])
def test_eliminated_players_leave_through_dead_steps(preset, players, seed):
    """last_survivor: an eliminated agent is paid as it goes out, gets the next turn as a
    dead step, leaves ``agents``, and the match goes on without it. (Seeds are tried in
    turn until a match with an elimination ends by the rules.)"""
    for attempt in range(seed, seed + 6):
        env, eliminations, totals, paid_at_exit = elimination_match(preset, players, attempt)
        if eliminations and env.unwrapped.engine_state().terminated[0]:
            break
    assert eliminations >= 1
    state = env.unwrapped.engine_state()
    assert state.terminated[0]
    expected = engine.match_rewards(engine.ranking_keys(state, np.array([0])))[0]
    for agent, seat in env.unwrapped.agent_seat.items():
        assert totals[agent] == pytest.approx(float(expected[seat]), abs=1e-6)
    for agent, value in paid_at_exit.items():
        assert totals[agent] == pytest.approx(value, abs=1e-6)  # nothing after going out
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-5)


@pytest.mark.parametrize(
    ("preset", "players", "seed"),
    [("classic", 2, 0), ("yard", 3, 1), ("nines", 2, 2), ("encyclopedia", 3, 3), ("classic", 4, 4)],
)
def test_match_rewards_are_zero_sum(preset, players, seed):
    """A terminated match pays +1 … −1 by place (the engine's ranking), zero-sum. Random
    play can run into the turn limit (a truncated match): such seeds are skipped. A lower
    target keeps the matches short (the payout does not depend on it)."""
    rules = Rules.preset(preset).replace(target=60)
    for attempt in range(seed, seed + 5):
        env = make_env(rules, players, seed=attempt)
        totals = dict.fromkeys(env.possible_agents, 0.0)

        def collect(env, agent, action, totals=totals):
            for other, value in env.rewards.items():
                totals[other] += value
                if not all(env.terminations.values()):
                    assert value == 0.0 or env.terminations[other]  # paid only when finished

        play(env, np.random.default_rng(attempt), on_step=collect)
        if env.unwrapped.engine_state().terminated[0]:
            break
    state = env.unwrapped.engine_state()
    assert state.terminated[0]
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-5)
    assert all(-1.0 <= value <= 1.0 for value in totals.values())
    if players == 2:
        assert sorted(totals.values()) == [-1.0, 1.0]
    expected = engine.match_rewards(engine.ranking_keys(state, np.array([0])))[0]
    best = env.possible_agents[int(state.final_ranking[0, 0])]
    assert totals[best] == max(totals.values())
    for agent, seat in env.unwrapped.agent_seat.items():
        assert totals[agent] == pytest.approx(float(expected[seat]), abs=1e-6)


@pytest.mark.parametrize(("preset", "players", "seed"), [("classic", 3, 11), ("yard", 2, 8)])
def test_round_rewards(preset, players, seed):
    """reward="round": at each round end −points/target to the players in that round, on
    top of the match reward; checked step by step against the engine's own record. (Seeds
    are tried in turn until a match has at least two round ends.)"""
    for attempt in range(seed, seed + 6):
        round_ends = round_reward_match(preset, players, attempt)
        if round_ends >= 2:
            break
    assert round_ends >= 2


def round_reward_match(preset, players, seed):
    env = make_env(preset, players, seed=seed, reward="round")
    rules = env.unwrapped.rules
    trace = engine.Trace(1)
    twin = engine.init(rules, players, 1, seed=seed, trace=trace)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    match_totals = np.zeros(players)
    points = np.zeros(players)
    round_ends = 0

    def check(env, agent, action):
        nonlocal round_ends
        seen = len(trace.current[0])
        _, match_rewards, _ = engine.step(twin, np.array([action]), trace=trace)
        expected = match_rewards[0].astype(float)
        for event in trace.current[0][seen:]:
            if event["type"] == "round_end":
                round_ends += 1
                scored = np.array([p or 0 for p in event["points"]], dtype=float)
                points[:] += scored
                expected -= scored / rules.target
        match_totals[:] += match_rewards[0]
        for other, value in env.rewards.items():
            seat = env.unwrapped.agent_seat[other]
            assert value == pytest.approx(expected[seat], abs=1e-6), (other, action)
            totals[other] += value

    play(env, np.random.default_rng(seed), on_step=check)
    assert twin.done[0]
    for agent, seat in env.unwrapped.agent_seat.items():
        assert totals[agent] == pytest.approx(
            match_totals[seat] - points[seat] / rules.target, abs=1e-5
        )
    return round_ends


def test_truncation_gives_no_terminal_reward():
    rules = Rules.preset("classic").replace(max_turns=30)
    for players in (2, 3):
        for seed in range(3):
            env = make_env(rules, players, seed=seed)
            totals = dict.fromkeys(env.possible_agents, 0.0)
            finished = []

            def collect(env, agent, action, totals=totals, finished=finished):
                for other, value in env.rewards.items():
                    totals[other] += value
                if any(env.truncations.values()) or any(env.terminations.values()):
                    finished.append((dict(env.truncations), dict(env.terminations)))

            play(env, np.random.default_rng(seed), on_step=collect)
            truncations, terminations = finished[0]
            assert all(truncations.values()) and len(truncations) == players
            assert not any(terminations.values())
            assert env.unwrapped.engine_state().truncated[0]
            assert not env.unwrapped.engine_state().terminated[0]
            assert all(value == 0.0 for value in totals.values())


def test_truncation_keeps_earlier_round_rewards():
    """reward="round" with a short turn limit: rounds that ended before the truncation paid
    their points, the truncating step pays nothing."""
    rules = Rules.preset("classic").replace(max_turns=120)
    checked = 0
    for seed in range(40):
        env = make_env(rules, 2, seed=seed, reward="round")
        paid = []

        def collect(env, agent, action, paid=paid):
            paid.append(dict(env.rewards))

        play(env, np.random.default_rng(seed), on_step=collect)
        state = env.unwrapped.engine_state()
        if not state.truncated[0] or state.round[0] == 0:
            continue
        assert all(value == 0.0 for value in paid[-1].values())
        assert any(value < 0 for step in paid[:-1] for value in step.values())
        checked += 1
        if checked == 3:
            break
    assert checked == 3


# --- snapshots, clone, state ------------------------------------------------------------------


def record_steps(env, actions=None, generator=None, limit=400):
    """Play (given ``actions`` or random ones) and record everything an agent can see."""
    log, taken = [], []
    while env.agents and len(taken) < limit:
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            action = None
        elif actions is not None:
            action = actions[len(taken)]
        else:
            action = random_action(env, agent, generator)
        log.append((agent, obs["observation"].tolist(), obs["action_mask"].tolist(), reward))
        log.append((terminated, truncated, sorted(env.agents)))
        env.step(action)
        taken.append(action)
        log.append({a: round(v, 6) for a, v in env.rewards.items()})
    return log, taken


@pytest.mark.parametrize(("preset", "players"), [("classic", 3), ("encyclopedia", 2)])
def test_get_state_set_state_restores_exactly(preset, players):
    env = make_env(preset, players, seed=9)
    generator = np.random.default_rng(9)
    play(env, generator, max_steps=60)
    snapshot = env.unwrapped.get_state()
    saved = env.unwrapped.engine_state()
    first, actions = record_steps(env, generator=generator, limit=500)
    env.unwrapped.set_state(snapshot)
    assert_states_equal(saved, env.unwrapped.engine_state())
    second, _ = record_steps(env, actions=actions, limit=500)
    assert first == second
    # the snapshot stays reusable
    env.unwrapped.set_state(snapshot)
    third, _ = record_steps(env, actions=actions, limit=500)
    assert first == third


def test_clone_is_an_independent_exact_copy():
    env = make_env("yard", 3, seed=12)
    generator = np.random.default_rng(12)
    play(env, generator, max_steps=40)
    saved = env.unwrapped.engine_state()
    twin = env.unwrapped.clone()
    assert twin is not env.unwrapped
    assert_states_equal(saved, twin.engine_state())
    first, actions = record_steps(twin, generator=generator, limit=300)
    assert_states_equal(saved, env.unwrapped.engine_state())  # playing the clone left env alone
    second, _ = record_steps(env, actions=actions, limit=300)
    assert first == second


def test_engine_state_is_a_copy_of_the_full_engine_state():
    env = make_env("classic", 4, seed=13)
    play(env, np.random.default_rng(13), max_steps=25)
    state = env.unwrapped.engine_state()
    assert isinstance(state, engine.State)
    assert state.hand.shape == (1, 4) and state.stock.shape == (1, 36)
    held = sum(int(state.hand[0, p]).bit_count() for p in range(4))
    assert held + int(state.stock_size[0]) + int(state.discard_size[0]) == 36
    stock = set(state.stock[0, : state.stock_size[0]].tolist())
    hands = {c for p in range(4) for c in range(36) if int(state.hand[0, p]) >> c & 1}
    discard = set(state.discard[0, : state.discard_size[0]].tolist())
    assert stock | hands | discard == set(range(36))
    for agent, seat in env.unwrapped.agent_seat.items():
        np.testing.assert_array_equal(observe(state, seat)[0], env.observe(agent)["observation"])
    state.hand[0] = 0  # a copy: the env's game is untouched
    assert int(env.unwrapped.engine_state().hand[0].astype(bool).sum()) > 0


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        ("classic", 4),
        ("ukrainian", 6),
        (Rules.preset("classic").replace(deck=52), 3),
        (Rules.preset("classic").replace(last_card_call=True, stacking=True), 2),
    ],
)
def test_state_is_the_global_state_with_every_hand(rules, players):
    """PettingZoo's state(): one float32 array in state_space, the same whoever is to act,
    holding every seat's hand, the pile and the totals (what a centralised critic needs)."""
    env = make_env(rules, players, seed=17)
    raw = env.unwrapped
    space = raw.state_space
    assert space is env.state_space  # through the wrapper too
    assert isinstance(space, gymnasium.spaces.Box) and space.dtype == np.float32
    assert space.shape == (observation.state_size(raw.rules),)
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    layout = observation.state_layout(raw.rules)
    cards = raw.rules.deck.cards
    generator = np.random.default_rng(17)

    def check(env, *_):
        state = env.state()
        assert state.dtype == np.float32 and state.shape == space.shape
        assert space.contains(state)
        game = raw.engine_state()
        np.testing.assert_array_equal(state, observation.global_state(game)[0])
        hands = state[layout["hands"]].reshape(-1, cards)
        for seat in range(6):
            held = (
                {c for c in range(cards) if int(game.hand[0, seat]) >> c & 1}
                if seat < players
                else set()
            )
            assert set(np.flatnonzero(hands[seat]).tolist()) == held
        pile = set(game.discard[0, : game.discard_size[0]].tolist())
        assert set(np.flatnonzero(state[layout["discard"]]).tolist()) == pile
        totals = state[layout["total"]][:players] * raw.rules.target
        np.testing.assert_allclose(totals, game.totals[0], atol=1e-3)
        acting = int(game.current_player[0])
        assert int(np.argmax(state[layout["to_act"]])) == (acting if acting >= 0 else 6)

    check(env)
    play(env, generator, on_step=check, max_steps=150)
    state = env.state()
    assert state is not env.state()  # a new array each call


def test_state_before_reset_says_reset():
    raw = sto_odno_v0.raw_env()
    for read in (raw.state, raw.engine_state):
        with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
            read()


def test_illegal_action_is_penalized_by_default():
    """As PettingZoo's classic games: the offender gets −1, the others 0, the match ends."""
    env = sto_odno_v0.env(players=3)
    env.reset(seed=8)
    offender = env.agent_selection
    bad = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    env.step(bad)
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert all(env.terminations.values())
    assert "illegal" in env.infos[offender]["illegal_action"]
    with pytest.raises(ValueError, match="illegal_action='ignore' is not allowed"):
        sto_odno_v0.env(illegal_action="ignore")


def stay_match(players, seed, parallel=False):
    """Play a random ``eliminated="stay"`` match of classic (last_survivor), as a plain AEC
    loop or through PettingZoo's turn-based-to-parallel converter. Returns the env, the
    agents at each live step, each agent's total reward, and the eliminations: agent -> (step it
    went out, its reward in that step)."""
    env = make_env("classic", players, seed=seed, eliminated="stay")
    generator = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    seen_agents, out = [], {}
    step = 0
    if parallel:
        par = pettingzoo.utils.turn_based_aec_to_parallel(env)
        observations, _ = par.reset(seed=seed)
        while par.agents:
            seen_agents.append(list(par.agents))
            actions = {}
            for agent in par.agents:
                legal = np.flatnonzero(observations[agent]["action_mask"])
                # a player not to act (eliminated ones included) has no legal action
                actions[agent] = int(generator.choice(legal)) if legal.size else 0
            acting = env.unwrapped.agent_selection
            assert not env.unwrapped.infos[acting].get("eliminated")
            observations, rewards, terminations, truncations, infos = par.step(actions)
            step += 1
            for agent, reward in rewards.items():
                totals[agent] += reward
                if infos[agent].get("eliminated") and agent not in out:
                    out[agent] = (step, reward)
            if par.agents:
                assert not any(terminations.values()) and not any(truncations.values())
        return env, seen_agents, totals, out
    while env.agents:
        agent = env.agent_selection
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:  # only at the match end: everyone at once
            assert all(env.terminations[a] or env.truncations[a] for a in env.agents)
            env.step(None)
            continue
        assert not env.infos[agent].get("eliminated")  # never selected once out
        seen_agents.append(list(env.agents))
        env.step(random_action(env, agent, generator))
        step += 1
        for other, reward in env.rewards.items():
            totals[other] += reward
            if env.infos[other].get("eliminated") and other not in out:
                out[other] = (step, reward)
                assert not env.terminations[other] or all(env.terminations.values())
                assert not env.observe(other)["action_mask"].any()
    return env, seen_agents, totals, out


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
@pytest.mark.parametrize("players", [3, 4])
def test_eliminated_players_can_stay_until_the_match_ends(players, parallel):
    """eliminated="stay": an eliminated player stays in ``agents`` (never selected, all-zero
    mask), is paid as it goes out and nothing after, and is terminated with everyone at the
    end; the rewards are those of the dead-step default."""
    for seed in range(20):
        env, seen_agents, totals, out = stay_match(players, seed, parallel)
        state = env.unwrapped.engine_state()
        if out and state.terminated[0] and len(out) < players - 1:
            break  # an elimination in mid-match, and a match ended by the rules
    else:
        pytest.fail("no seed gave a mid-match elimination")
    assert all(agents == env.possible_agents for agents in seen_agents)
    assert all(env.unwrapped.terminations.values())
    expected = engine.match_rewards(engine.ranking_keys(state, np.array([0])))[0]
    for agent, seat in env.unwrapped.agent_seat.items():
        assert totals[agent] == pytest.approx(float(expected[seat]), abs=1e-6)
    for agent, (_, reward) in out.items():
        assert reward < 0 and totals[agent] == pytest.approx(reward, abs=1e-6)
    # the same match under the default: the same rewards, through dead steps
    _, _, leave_totals, _ = elimination_match("classic", players, seed)
    assert leave_totals == pytest.approx(totals, abs=1e-6)


def test_a_truncated_match_terminates_the_players_who_stayed_after_going_out():
    """eliminated="stay" and the turn limit: those out earlier are terminated (their match
    ended by the rules), those still in are truncated and paid nothing."""
    rules = Rules.preset("classic").replace(target=20, max_turns=40)
    for seed in range(60):
        env = make_env(rules, 4, seed=seed, eliminated="stay")
        totals = dict.fromkeys(env.possible_agents, 0.0)
        generator = np.random.default_rng(seed)
        # up to the match end (the dead steps after it drop the agents' entries)
        while not any(env.terminations[a] or env.truncations[a] for a in env.agents):
            env.step(random_action(env, env.agent_selection, generator))
            for other, value in env.rewards.items():
                totals[other] += value
        out = {a for a in env.possible_agents if env.infos[a].get("eliminated")}
        if env.unwrapped.engine_state().truncated[0] and out:
            break
    else:
        pytest.fail("no seed gave a truncated match after an elimination")
    for agent in env.possible_agents:
        assert env.terminations[agent] == (agent in out)
        assert env.truncations[agent] == (agent not in out)
        assert (totals[agent] < 0) == (agent in out)  # paid as they went out, only them


def test_eliminated_option_is_checked():
    with pytest.raises(ValueError, match=r"eliminated='gone' is not allowed; allowed: leave, stay"):
        sto_odno_v0.env(eliminated="gone")


# --- rendering --------------------------------------------------------------------------------


def rendered_deal(render_mode):
    """Seat 0 plays 10♦; seat 1 holds nothing that follows, so its draw (J♥) and pass are
    forced; seat 0 is to act again, with J♦ to play."""
    env = make_env("classic", 2, render_mode=render_mode)
    game = Game(
        "classic",
        players=2,
        dealer=1,
        hands={0: "10♦ J♦ K♥ A♣ 7♣", 1: "6♠ 7♠ 8♠ A♠"},
        opening="9♦",
        stock="J♥",
    )
    game.state.totals[0] = [37, 12]
    load_game(env, game.state)
    env.step(parse_card("10♦"))
    assert env.agent_selection == "player_0"
    return env


def test_render_ansi_shows_the_table():
    env = rendered_deal("ansi")
    text = env.render()
    assert isinstance(text, str)
    assert "top card: 10♦" in text
    assert "player_0 to act (PLAY)" in text
    own = next(line for line in text.splitlines() if line.startswith("*") and "player_0" in line)
    for card in ("J♦", "7♣", "A♣", "K♥"):
        assert card in own
    assert own.split()[2:4] == ["4", "37"]  # cards, total
    other = next(
        line for line in text.splitlines() if "player_1" in line and line.split()[-1] == "12"
    )
    assert other.split()[-2:] == ["5", "12"]  # count and total, no cards shown
    assert "J♥" not in other and "6♠" not in other
    assert "player_1: draw (forced)" in text
    assert "player_1: pass (forced)" in text
    assert "player_0: play 10♦" in text and "player_0: play 10♦ (forced)" not in text


def test_render_ansi_numbers_the_legal_actions():
    env = rendered_deal("ansi")
    text = env.render()
    mask = env.observe("player_0")["action_mask"]
    line = next(line for line in text.splitlines() if line.startswith("legal actions"))
    for action in np.flatnonzero(mask):
        assert f"{action} = {action_name(action)}" in line
    assert line.count("=") == 1 + int(mask.sum())  # "(id = move)" and one per action


@pytest.mark.parametrize("players", [2, 3])
def test_render_says_when_the_opening_card_skipped_a_player(players):
    """Classic has no stacking: an opening card that skips always skips the player after the
    dealer, and the first round line says so; singular counts read "1 card"."""
    env = make_env("classic", players, seed=0, render_mode="ansi")
    rules = env.unwrapped.rules
    skips = 0
    for seed in range(30):
        env.reset(seed=seed)
        state = env.unwrapped.engine_state()
        opening = int(state.discard[0, 0])
        text = env.render()
        round_line = next(line for line in text.splitlines() if "dealt by" in line)
        assert f"opening card {card_name(opening)}" in round_line
        skipped = rules.effect_of(opening).skip
        if "skipped" in round_line:
            skips += 1
            dealer = int(state.dealer[0])
            assert f"player_{(dealer + 1) % players}" in round_line.split(":")[1]
        assert ("skipped" in round_line) == skipped
        if state.discard_size[0] == 1:
            assert "discard pile: 1 card\n" in text
        assert " 1 cards" not in text
    assert skips > 0


def test_render_human_prints(capsys):
    env = rendered_deal("human")
    capsys.readouterr()
    assert env.render() is None
    out = capsys.readouterr().out
    assert "top card: 10♦" in out and "J♦" in out and "(forced)" in out


def test_render_without_mode_warns():
    env = make_env("classic", 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env.render() is None
    assert caught


def test_reset_from_a_hand_made_state_and_record_the_match():
    """``reset(options={"state": ...})`` starts from a given deal; ``record=True`` keeps the
    match's events, which replay through the engine."""
    import json

    from sto_odno_env.records.replay import replay_lines
    from sto_odno_env.records.scenario import Game

    game = Game(
        "classic",
        2,
        dealer=1,
        hands={0: "J♠ 8♣ 6♦ 8♥ 6♥", 1: "Q♥ 7♣ 10♦ 9♥"},
        opening="9♦",
        stock="A♥ J♥",
    )
    env = sto_odno_v0.env(players=2, record=True)
    env.reset(options={"state": game.state})
    observation, *_ = env.last()
    assert env.agent_selection == "player_0"
    assert np.flatnonzero(observation["action_mask"]).tolist() == [18, 40]  # 6♦ or draw
    env.step(18)  # 6♦: player 1 draws the A♥ and is skipped, player 0 moves again
    assert env.agent_selection == "player_0"
    with pytest.raises(ValueError, match="rules"):
        env.reset(options={"state": Game("yard", 2, dealer=0, seed=1).state})
    env.reset(seed=5)
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        legal = np.flatnonzero(observation["action_mask"])
        env.step(None if terminated or truncated else int(legal[-1]))
    events = env.unwrapped.record()
    assert events[0]["type"] == "match" and events[-1]["type"] == "match_end"
    assert replay_lines("aec", [json.dumps(event) for event in events]) == 1
    with pytest.raises(ValueError, match="record=True"):
        sto_odno_v0.raw_env().record()


def test_order_is_enforced_before_reset():
    """The wrapper's direct reads keep PettingZoo's checks: nothing is read before reset."""
    wrapped = sto_odno_v0.env()
    assert isinstance(wrapped, pettingzoo.utils.wrappers.OrderEnforcingWrapper)
    for read in (lambda: wrapped.last(), lambda: wrapped.agents, lambda: wrapped.agent_selection):
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            read()
    wrapped.reset(seed=3)
    assert wrapped.agent_selection in wrapped.agents
    observation, reward, terminated, truncated, info = wrapped.last()
    assert observation["action_mask"].any() and reward == 0.0
    assert not terminated and not truncated and info["action_mask"].any()
