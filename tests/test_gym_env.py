"""The single-agent Gymnasium env ``StoOdnoEnv`` (``gymnasium.make("StoOdno-v0")``).

Checkers of Gymnasium and stable-baselines3, masks, the learner's seat, opponent policies
(plain callables, batched policies, one per position), episode rewards of random play and
illegal actions. All randomness is seeded.
"""

from __future__ import annotations

import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from sto_odno_env import Rules
from sto_odno_env.bots.policy import BasePolicy
from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
from sto_odno_env.envs.table_config import ActionSpaceError
from sto_odno_env.game import engine
from sto_odno_env.game.cards import card_name
from sto_odno_env.game.engine import IllegalActionError
from sto_odno_env.views.observation import ObservationView, observe
from tests.helpers import need

CHECKED = [("classic", 2), ("yard", 3), ("nines", 4), ("encyclopedia", 5), ("ukrainian", 6)]


def masked_random(generator):
    def act(mask):
        return int(generator.choice(np.flatnonzero(mask)))

    return act


class LowestLegal(BasePolicy):
    """A batched policy: the lowest legal action in every row; counts its calls."""

    needs_observation = True

    def __init__(self):
        self.calls = []

    def act(self, observations, masks):
        self.calls.append((np.asarray(observations).shape, np.asarray(masks).shape))
        return np.argmax(np.asarray(masks) > 0, axis=1)


# --- checkers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), CHECKED)
def test_gymnasium_and_sb3_checkers(preset, players):
    sb3_check_env = need("stable_baselines3.common.env_checker").check_env
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the Box bounds are finite: no warning about them
        # built directly, the env has no spec for check_env to make its render modes from
        # (tests/test_checkers.py checks them through gymnasium.make)
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render")
        gymnasium_check_env(StoOdnoEnv(preset, players, illegal_action="penalize"))
        sb3_check_env(StoOdnoEnv(preset, players, illegal_action="penalize"), warn=False)


def test_vector_observations_lie_in_the_bounded_space():
    """The batched env's observations, ended episodes' last ones included, lie in the
    (finite) single observation space."""
    env = StoOdnoVectorEnv(16, "encyclopedia", 4, opponents="greedy")
    space = env.single_observation_space
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    observations, infos = env.reset(seed=2)
    generator = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        assert all(space.contains(row) for row in observations)
        masks = infos["action_mask"]
        actions = [int(generator.choice(np.flatnonzero(row))) for row in masks]
        observations, _, _, _, infos = env.step(actions)
        if "final_obs" in infos:
            for row in infos["final_obs"][infos["_final_obs"]]:
                assert space.contains(row)
                ended += 1
    assert ended > 0


@pytest.mark.parametrize(("preset", "players"), CHECKED)
def test_unmasked_random_actions_are_penalized_not_fatal(preset, players):
    env = StoOdnoEnv(preset, players, illegal_action="penalize")
    env.action_space.seed(players)
    obs, info = env.reset(seed=players)
    illegal = legal_steps = 0
    for _ in range(300):
        action = env.action_space.sample()
        was_legal = bool(info["action_mask"][action])
        legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        assert -1.0 <= reward <= 1.0
        if was_legal:
            legal_steps += 1
            assert "illegal_action" not in info
        else:
            illegal += 1
            # The AEC env's message: the action, then every legal action by id and name.
            message = info["illegal_action"]
            assert message.startswith(f"illegal action {action} (")
            assert re.findall(r"(\d+) \(", message.split("legal actions: ")[1]) == [
                str(a) for a in legal
            ]
            assert reward == -1.0
            assert terminated and not truncated
        if terminated or truncated:
            obs, info = env.reset()
    assert illegal > 100 and legal_steps > 0


def test_gymnasium_make():
    env = gymnasium.make("StoOdno-v0", rules="yard", players=3)
    obs, info = env.reset(seed=0)
    assert obs.shape == (189,) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert env.action_space == gymnasium.spaces.Discrete(42)
    action = int(np.flatnonzero(info["action_mask"])[0])
    obs, reward, *_ = env.step(action)
    assert env.observation_space.contains(obs)
    assert reward == 0.0
    env.close()
    default = gymnasium.make("StoOdno-v0")
    default.reset(seed=1)
    assert default.unwrapped.games.players == 2
    assert default.unwrapped.games.rules.name == "classic"


def test_gymnasium_make_vec_uses_the_batched_env():
    envs = gymnasium.make_vec("StoOdno-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, StoOdnoVectorEnv)
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (3, 189)
    assert infos["action_mask"].shape == (3, 42)
    envs.close()


def test_step_before_reset_is_an_error():
    with pytest.raises(gymnasium.error.ResetNeeded):
        StoOdnoEnv().step(40)


def test_step_after_the_episode_needs_a_reset():
    env = StoOdnoEnv("classic", 2, illegal_action="penalize")
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))  # penalized: episode over
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(40)


def test_reset_with_a_seed_is_deterministic():
    one, two = StoOdnoEnv("classic", 3), StoOdnoEnv("classic", 3)
    obs1, info1 = one.reset(seed=77)
    obs2, info2 = two.reset(seed=77)
    np.testing.assert_array_equal(obs1, obs2)
    generator1, generator2 = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(200):
        np.testing.assert_array_equal(info1["action_mask"], info2["action_mask"])
        step1 = one.step(masked_random(generator1)(info1["action_mask"]))
        step2 = two.step(masked_random(generator2)(info2["action_mask"]))
        np.testing.assert_array_equal(step1[0], step2[0])
        assert step1[1:4] == step2[1:4]
        info1, info2 = step1[4], step2[4]
        if step1[2] or step1[3]:
            info1 = one.reset()[1]
            info2 = two.reset()[1]


def test_render_ansi_shows_the_learners_hand():
    env = StoOdnoEnv("classic", 3, learner_seat=2, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str) and "top card:" in text
    hand = [c for c in range(36) if int(env.games.state.hand[0, 2]) >> c & 1]
    row = next(line for line in text.splitlines() if "player_2" in line and "to act" not in line)
    for card in hand:
        assert card_name(card) in row
    legal = next(line for line in text.splitlines() if line.startswith("legal actions"))
    for action in np.flatnonzero(env.action_masks()):
        assert f" {action} = " in legal


# --- masks and the learner's seat -------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("encyclopedia", 4)])
def test_action_masks_match_info_and_the_engine(preset, players):
    env = StoOdnoEnv(preset, players)
    generator = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    for _ in range(300):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (42,)
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        state = env.games.state
        assert int(state.current_player[0]) == info["learner_seat"]
        np.testing.assert_array_equal(mask, engine.legal_mask(state)[0].astype(bool))
        assert mask.sum() >= 2  # forced decisions never reach the learner
        np.testing.assert_array_equal(obs, observe(state, info["learner_seat"])[0])
        obs, _, terminated, truncated, info = env.step(masked_random(generator)(mask))
        if terminated or truncated:
            obs, info = env.reset()


def test_exactly_the_masked_in_actions_are_legal():
    """At a few points of a game, every masked-out action raises (and changes nothing) and
    every masked-in action is taken (on a fresh env replayed to the same point)."""

    def replayed(actions):
        env = StoOdnoEnv("classic", 3, illegal_action="raise")
        _, info = env.reset(seed=5)
        for action in actions:
            *_, terminated, truncated, info = env.step(action)
            assert not (terminated or truncated)
        return env, info

    generator = np.random.default_rng(5)
    history = []
    for checkpoint in (0, 10, 25):
        env, info = replayed(history)
        while len(history) < checkpoint:
            action = masked_random(generator)(info["action_mask"])
            history.append(action)
            *_, info = env.step(action)
        mask = env.action_masks()
        before = env.games.state.copy()
        for action in np.flatnonzero(~mask):
            with pytest.raises(IllegalActionError):
                env.step(int(action))
            np.testing.assert_array_equal(env.games.state.hand, before.hand)
            np.testing.assert_array_equal(env.games.state.legal_bits, before.legal_bits)
        for action in np.flatnonzero(mask):
            trial, _ = replayed(history)
            *_, trial_info = trial.step(int(action))
            assert "illegal_action" not in trial_info


@pytest.mark.parametrize("players", [2, 3, 6])
def test_fixed_learner_seat_is_respected(players):
    for seat in range(players):
        env = StoOdnoEnv("classic", players, learner_seat=seat)
        generator = np.random.default_rng(seat)
        obs, info = env.reset(seed=seat)
        episodes = 0
        for _ in range(150):
            assert info["learner_seat"] == seat
            assert int(env.games.state.current_player[0]) == seat
            assert ObservationView(obs).to_act[0] == 0  # the observer is to act
            obs, _, terminated, truncated, info = env.step(
                masked_random(generator)(info["action_mask"])
            )
            if terminated or truncated:
                episodes += 1
                obs, info = env.reset()


def test_random_learner_seat_varies_with_the_seed():
    seats = {StoOdnoEnv("classic", 4).reset(seed=seed)[1]["learner_seat"] for seed in range(40)}
    assert seats == {0, 1, 2, 3}


def test_learner_seat_out_of_range_is_rejected():
    with pytest.raises(ValueError, match="learner_seat"):
        StoOdnoEnv("classic", 3, learner_seat=3)


# --- opponents --------------------------------------------------------------------------------


def test_plain_callable_opponent():
    calls = []

    def lowest(observation, mask):
        calls.append((observation.shape, mask.shape))
        assert mask.sum() >= 2
        return int(np.flatnonzero(mask)[0])

    env = StoOdnoEnv("classic", 3, opponents=lowest, learner_seat=0)
    generator = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(50):
        *_, terminated, truncated, info = env.step(masked_random(generator)(info["action_mask"]))
        if terminated or truncated:
            _, info = env.reset()
    assert calls
    assert set(calls) == {((189,), (42,))}


def test_batched_policy_opponent_and_one_policy_per_position():
    players = 4
    positions = [LowestLegal() for _ in range(players - 1)]
    seen_seats = [set() for _ in positions]
    env = StoOdnoEnv("classic", players, learner_seat=1)

    def spy(index, policy):
        act = policy.act

        def wrapped(observations, masks):
            seen_seats[index].add(int(env.games.state.current_player[0]))
            return act(observations, masks)

        policy.act = wrapped
        return policy

    env.games.set_opponents([spy(i, p) for i, p in enumerate(positions)])
    generator = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(80):
        *_, terminated, truncated, info = env.step(masked_random(generator)(info["action_mask"]))
        if terminated or truncated:
            _, info = env.reset()
    for index, policy in enumerate(positions):
        assert policy.calls
        assert all(shape == ((1, 189), (1, 42)) for shape in policy.calls)
        # entry i plays the seat i + 1 places after the learner
        assert seen_seats[index] == {(1 + index + 1) % players}


def test_wrong_number_of_opponent_policies_is_rejected():
    with pytest.raises(ValueError, match="expected 2 policies"):
        StoOdnoEnv("classic", 3, opponents=[LowestLegal()])


# --- rewards ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("classic", 4), ("yard", 3)])
def test_full_episode_reward_is_within_minus_one_and_one(preset, players):
    env = StoOdnoEnv(preset, players)
    generator = np.random.default_rng(players)
    for episode in range(2):
        _, info = env.reset(seed=100 + episode)
        total, done, steps = 0.0, False, 0
        while not done:
            _, reward, terminated, truncated, info = env.step(
                masked_random(generator)(info["action_mask"])
            )
            total += reward
            done = terminated or truncated
            steps += 1
        assert -1.0 <= total <= 1.0
        if players == 2:
            assert total in (-1.0, 1.0)


@pytest.mark.parametrize(
    ("players", "episodes_per_game"), [pytest.param(2, 8, marks=pytest.mark.slow), (4, 3)]
)
def test_random_against_random_breaks_even(players, episodes_per_game):
    """A random learner against random opponents in a random seat wins as often as it
    loses: the mean episode reward is about 0. The batched env plays the episodes; every
    game slot contributes its first ``episodes_per_game`` episodes, whatever their length,
    so short episodes (early eliminations) are not over-represented. The symmetry holds
    under any rule set; a low target and no voluntary draws keep the matches short."""
    games = 128
    rules = Rules.preset("classic").replace(target=30, voluntary_draw=False)
    env = StoOdnoVectorEnv(games, rules, players)
    generator = np.random.default_rng(2024)
    env.reset(seed=2024)
    done_count = np.zeros(games, dtype=int)
    current = np.zeros(games)
    rewards = []
    while (done_count < episodes_per_game).any():
        uniforms = generator.random(games)
        actions = engine.sample_actions(env.games.state.legal_bits, uniforms)
        _, reward, terminated, truncated, _ = env.step(actions)
        current += reward
        for game in np.flatnonzero(terminated | truncated):
            if done_count[game] < episodes_per_game:
                rewards.append(current[game])
                done_count[game] += 1
            current[game] = 0.0
    rewards = np.array(rewards)
    assert len(rewards) == games * episodes_per_game
    assert (rewards >= -1.0 - 1e-6).all() and (rewards <= 1.0 + 1e-6).all()
    standard_error = rewards.std() / np.sqrt(len(rewards))
    assert 0.5 < rewards.std() <= 1.0  # the rewards do vary
    assert abs(rewards.mean()) < 5 * standard_error + 0.02


# --- illegal actions --------------------------------------------------------------------------


def test_illegal_action_raises():
    env = StoOdnoEnv("classic", 2, illegal_action="raise")
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"illegal action {bad}"):
        env.step(bad)
    with pytest.raises(ActionSpaceError, match="42 is outside the action space"):
        env.step(42)


@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_a_value_outside_the_action_space_raises_in_every_mode(mode):
    env = StoOdnoEnv("classic", 2, illegal_action=mode)
    _, info = env.reset(seed=0)
    for action in (42, 99, -1, 1.5, "3", True, np.float64(2.0), None):
        with pytest.raises(ActionSpaceError, match="allowed: an integer from 0 to 41"):
            env.step(action)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    _, reward, terminated, _, info = env.step(np.int64(legal))  # numpy integers are actions
    assert "illegal_action" not in info and reward >= -1
    if mode == "penalize" and not terminated:
        bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
        _, reward, terminated, _, info = env.step(bad)  # in the space, masked: penalized
        assert terminated and info["illegal_action"] and reward == -1.0


@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_the_vector_env_refuses_actions_outside_the_space(mode):
    env = StoOdnoVectorEnv(4, "classic", 2, illegal_action=mode)
    env.reset(seed=0)
    for actions, words in [
        (np.array([0, 1, 99, 2]), "action 99 in game 2 is outside"),
        (np.array([0, -1, 1, 2]), "action -1 in game 1 is outside"),
        (np.array([0.0, 1.5, 1.0, 2.0]), "dtype float64 are not actions"),
        (np.array([True, False, True, True]), "dtype bool are not actions"),
        (["0", "1", "2", "3"], "are not actions"),
        (np.array([0, 1, 2]), "3 actions (shape (3,)) for 4 games"),
    ]:
        with pytest.raises(ActionSpaceError, match=re.escape(words)):
            env.step(actions)
    legal = np.argmax(env.action_masks(), axis=1).astype(np.int32)  # any integer dtype
    _, _, _, _, infos = env.step(legal)
    assert "illegal_action" not in infos
