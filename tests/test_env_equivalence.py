"""The three envs play exactly the engine's game.

Every seat plays a deterministic rule that depends on the observation and the mask only
(``crc_choice``: a legal action picked by a checksum of the observation), so the engine
played directly with the same seed and the same rule is the reference:

* the AEC env: every decision (seat, observation, mask, action), every step's rewards, the
  final state, and the whole game record (docs/rules.md §10);
* the single-agent env and the vector env: the learner's decisions (observation, mask, the
  full engine state at that moment), the rewards between them (both reward modes), the end
  of the episode and its final observation, and the next episode's first observation.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from sto_odno_env import Rules, sto_odno_v0
from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
from sto_odno_env.game import engine, rng
from sto_odno_env.records.replay import replay_lines
from sto_odno_env.views.observation import observe
from tests.helpers import CrcPolicy, crc_choice

SHORT = Rules.preset("classic").replace(target=30)  # shorter matches, same game otherwise

# Engine state fields that make up the game (the rest is per-step output or scratch).
GAME_FIELDS = (
    "current_player",
    "phase",
    "legal_bits",
    "terminated",
    "truncated",
    "totals",
    "in_match",
    "dealer",
    "round",
    "turn",
    "hand",
    "stock",
    "stock_size",
    "discard",
    "discard_size",
    "discard_bits",
    "top_card",
    "ordered_suit",
    "drawn_card",
    "pending",
    "eliminated_round",
    "seed",
    "rng_key",
    "rng_counter",
)


def game_fields(state: engine.State, game: int = 0) -> dict[str, np.ndarray]:
    return {name: getattr(state, name)[game].copy() for name in GAME_FIELDS}


def assert_fields_equal(one: dict, two: dict, where=""):
    if all(np.array_equal(one[name], two[name]) for name in GAME_FIELDS):
        return
    for name in GAME_FIELDS:
        np.testing.assert_array_equal(one[name], two[name], err_msg=f"{name} {where}")


# --- the AEC env --------------------------------------------------------------------------------


def engine_match(rules, players, seed):
    """The engine, everyone playing crc_choice: decisions, per-step rewards, the record."""
    trace = engine.Trace(1)
    state = engine.init(rules, players, 1, seed=seed, trace=trace)
    decisions, rewards = [], []
    while not state.done[0]:
        seat = int(state.current_player[0])
        obs = observe(state, seat)[0]
        mask = engine.legal_mask(state)[0]
        action = crc_choice(obs, mask)
        decisions.append((seat, obs.copy(), mask.copy(), action))
        _, step_rewards, _ = engine.step(state, np.array([action]), trace=trace)
        rewards.append(step_rewards[0].astype(np.float64))
    return decisions, rewards, state, trace.current[0]


def aec_match(rules, players, seed, record=None):
    env = sto_odno_v0.env(rules=rules, players=players, illegal_action="raise")
    if record is not None:
        # No public hook attaches a trace; the env keeps its trace in ``_moves`` and hands
        # it to engine.init/step, so a Trace put there before reset() records the match.
        env.unwrapped._moves = record
    env.reset(seed=seed)
    seat_of = env.unwrapped.agent_seat
    decisions, rewards = [], []
    while env.agents:
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = crc_choice(obs["observation"], obs["action_mask"])
        decisions.append((seat_of[agent], obs["observation"], obs["action_mask"], action))
        env.step(action)
        step = np.zeros(players)
        for other, value in env.rewards.items():
            step[seat_of[other]] = value
        rewards.append(step)
    return decisions, rewards, env.unwrapped.engine_state()


AEC_CASES = [
    ("classic", 2, 0),
    *(
        pytest.param(*case, marks=pytest.mark.slow)
        for case in [("yard", 3, 1), ("nines", 4, 2), ("encyclopedia", 5, 3)]
    ),
]


@pytest.mark.parametrize(("preset", "players", "seed"), AEC_CASES)
def test_aec_env_plays_the_engines_game(preset, players, seed):
    reference, reference_rewards, final, events = engine_match(preset, players, seed)
    decisions, rewards, state = aec_match(preset, players, seed)
    assert len(decisions) == len(reference)
    for i, (mine, theirs) in enumerate(zip(decisions, reference, strict=True)):
        assert mine[0] == theirs[0] and mine[3] == theirs[3], i
        np.testing.assert_array_equal(mine[1], theirs[1], err_msg=f"observation {i}")
        np.testing.assert_array_equal(mine[2], theirs[2], err_msg=f"mask {i}")
    np.testing.assert_allclose(np.array(rewards), np.array(reference_rewards), atol=1e-6)
    assert_fields_equal(game_fields(state), game_fields(final))
    # the engine's record: its chosen (not forced) actions are the AEC env's decisions
    chosen = [
        (e["player"], e["action"]) for e in events if e["type"] == "action" and not e["forced"]
    ]
    assert chosen == [(seat, action) for seat, _, _, action in decisions]
    assert events[-1]["type"] == "match_end"


@pytest.mark.parametrize(("preset", "players", "seed"), AEC_CASES[:2])
def test_aec_env_writes_the_engines_record(preset, players, seed):
    *_, events = engine_match(preset, players, seed)
    record = engine.Trace(1)
    aec_match(preset, players, seed, record=record)
    assert record.current[0] == events
    lines = [json.dumps(event, ensure_ascii=False) for event in events]
    assert replay_lines("aec", lines) == 1  # one match, and it replays


# --- the learner's view: single-agent and vector env --------------------------------------------


def engine_episode(rules, players, match_seed, learner, reward="match"):
    """The engine, everyone playing crc_choice, seen from ``learner`` until its episode ends
    (the match ends or the learner is out): the learner's decisions as (observation, mask,
    game fields, reward gained since the previous decision), then ("end", reward since the
    last decision, truncated, final observation)."""
    state = engine.init(rules, players, 1, seeds=[match_seed])
    target = state.rules.target
    log, pending = [], 0.0
    while True:
        if state.done[0] or not int(state.in_match[0]) >> learner & 1:
            final = observe(state, learner)[0]
            log.append(("end", pending, bool(state.truncated[0]), final))
            return log
        seat = int(state.current_player[0])
        obs = observe(state, seat)[0]
        mask = engine.legal_mask(state)[0]
        if seat == learner:
            log.append((obs, mask, game_fields(state), pending))
            pending = 0.0
        was_in = bool(int(state.in_match[0]) >> learner & 1)
        _, step_rewards, _ = engine.step(state, np.array([crc_choice(obs, mask)]))
        gained = float(step_rewards[0, learner])
        if reward == "round" and state.rounds_ended[0] and was_in:
            gained -= state.round_points[0, learner] / target
        pending += gained


def expected_rewards(log):
    """The env's step rewards: step k reports what came after decision k-1 (the first also
    what came before the learner's first decision)."""
    gains = [entry[1] if isinstance(entry[0], str) else entry[3] for entry in log]
    return [gains[0] + gains[1], *gains[2:]]


@pytest.mark.parametrize(
    ("rules", "players", "seed", "reward"),
    [
        ("classic", 2, 5, "match"),
        (SHORT, 3, 6, "round"),
        (Rules.preset("ukrainian").replace(target=40), 4, 7, "match"),
    ],
)
def test_single_agent_env_plays_the_engines_game(rules, players, seed, reward):
    env = StoOdnoEnv(rules, players, opponents=crc_choice, reward=reward)
    obs, info = env.reset(seed=seed)
    learner = info["learner_seat"]
    match_seed = int(rng.game_seeds(seed, 1)[0])
    assert env.games.state.seed[0] == match_seed
    log = engine_episode(rules, players, match_seed, learner, reward)
    rewards = expected_rewards(log)
    assert len(log) >= 2
    for k, (ref_obs, ref_mask, ref_fields, _) in enumerate(log[:-1]):
        np.testing.assert_array_equal(obs, ref_obs, err_msg=f"observation {k}")
        np.testing.assert_array_equal(info["action_mask"], ref_mask, err_msg=f"mask {k}")
        assert_fields_equal(game_fields(env.games.state), ref_fields, f"decision {k}")
        assert info["learner_seat"] == learner
        obs, got, terminated, truncated, info = env.step(crc_choice(obs, info["action_mask"]))
        assert got == pytest.approx(rewards[k], abs=1e-5), k
        if k < len(log) - 2:
            assert not (terminated or truncated)
    _, _, was_truncated, final = log[-1]
    assert (terminated, truncated) == (not was_truncated, was_truncated)
    np.testing.assert_array_equal(obs, final)  # the final observation


def test_vector_env_plays_the_engines_games():
    games, players, seed = 4, 3, 8
    env = StoOdnoVectorEnv(games, SHORT, players, opponents=CrcPolicy())
    obs, infos = env.reset(seed=seed)
    match_seeds = rng.game_seeds(seed, games)
    assert (env.games.state.matches_played == 0).all()
    np.testing.assert_array_equal(env.games.state.seed, match_seeds)
    logs = [
        engine_episode(SHORT, players, int(match_seeds[b]), int(env.games.learner[b]))
        for b in range(games)
    ]
    rewards = [expected_rewards(log) for log in logs]
    decision = np.zeros(games, dtype=int)
    live = np.ones(games, dtype=bool)
    next_episodes = 0
    while live.any():
        for b in np.flatnonzero(live):
            ref_obs, ref_mask, ref_fields, _ = logs[b][decision[b]]
            np.testing.assert_array_equal(obs[b], ref_obs, err_msg=f"game {b} {decision[b]}")
            np.testing.assert_array_equal(infos["action_mask"][b], ref_mask)
            fields = game_fields(env.games.state, b)
            assert_fields_equal(fields, ref_fields, f"game {b} decision {decision[b]}")
        actions = np.array([crc_choice(obs[b], infos["action_mask"][b]) for b in range(games)])
        obs, reward, terminated, truncated, infos = env.step(actions)
        for b in np.flatnonzero(live):
            assert reward[b] == pytest.approx(rewards[b][decision[b]], abs=1e-5)
            decision[b] += 1
            if decision[b] < len(logs[b]) - 1:
                assert not (terminated[b] or truncated[b])
                continue
            _, _, was_truncated, final = logs[b][-1]
            assert (terminated[b], truncated[b]) == (not was_truncated, was_truncated)
            np.testing.assert_array_equal(infos["final_obs"][b], final)
            live[b] = False
            # same-step reset: the slot's next match is the engine's next seed
            next_seed = int(rng.next_seeds(np.array([match_seeds[b]]))[0])
            if env.games.state.seed[b] == next_seed:
                following = engine_episode(SHORT, players, next_seed, int(env.games.learner[b]))
                np.testing.assert_array_equal(obs[b], following[0][0])
                next_episodes += 1
    assert next_episodes >= games - 1
