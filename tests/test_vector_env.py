"""The batched envs: Gymnasium's ``StoOdnoVectorEnv`` and stable-baselines3's
``StoOdnoVecEnv``: shapes, same-step auto-reset, seeding (whole batch and per game), masks
for MaskablePPO, terminal observations, and a short MaskablePPO run.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from sto_odno_env import Rules
from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
from sto_odno_env.game import engine, rng
from sto_odno_env.views.observation import ObservationView
from tests.helpers import CrcPolicy, crc_choice, needs

SHORT = Rules.preset("classic").replace(target=30)  # short matches, same game otherwise


def random_actions(env, generator):
    """A uniformly random legal action per game of a batched env."""
    return engine.sample_actions(env.games.state.legal_bits, generator.random(env.num_envs))


# --- StoOdnoVectorEnv -------------------------------------------------------------------------


def test_shapes_and_dtypes():
    env = StoOdnoVectorEnv(8, "classic", 3)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.num_envs == 8
    assert env.single_observation_space.shape == (189,)
    assert env.single_observation_space.dtype == np.float32
    assert env.single_action_space == spaces.Discrete(42)
    assert env.observation_space.shape == (8, 189)
    assert env.action_space == spaces.MultiDiscrete([42] * 8)
    obs, infos = env.reset(seed=0)
    assert obs.shape == (8, 189) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert infos["action_mask"].shape == (8, 42) and infos["action_mask"].dtype == np.int8
    assert infos["learner_seat"].shape == (8,)
    np.testing.assert_array_equal(env.action_masks(), infos["action_mask"].astype(bool))
    generator = np.random.default_rng(0)
    for _ in range(20):
        obs, reward, terminated, truncated, infos = env.step(random_actions(env, generator))
        assert obs.shape == (8, 189) and obs.dtype == np.float32
        assert env.observation_space.contains(obs)
        assert reward.shape == (8,) and np.issubdtype(reward.dtype, np.floating)
        assert terminated.shape == (8,) and terminated.dtype == bool
        assert truncated.shape == (8,) and truncated.dtype == bool
        assert (infos["action_mask"].sum(axis=1) >= 2).all()
        state = env.games.state
        np.testing.assert_array_equal(state.current_player, infos["learner_seat"])


@pytest.mark.parametrize("players", [2, 3])
def test_same_step_autoreset(players):
    env = StoOdnoVectorEnv(16, SHORT, players)
    obs, infos = env.reset(seed=1)
    generator = np.random.default_rng(1)
    ended_total = eliminated = 0
    while ended_total < 20:
        obs, reward, terminated, truncated, infos = env.step(random_actions(env, generator))
        ended = terminated | truncated
        if not ended.any():
            assert "final_obs" not in infos and "_final_obs" not in infos
            continue
        ended_total += int(ended.sum())
        np.testing.assert_array_equal(infos["_final_obs"], ended)
        assert infos["final_obs"].shape == (16, 189)
        final = ObservationView(infos["final_obs"][ended], target=30)
        fresh = ObservationView(obs[ended], target=30)
        # the last observation: the match is over, or the learner is out (last_survivor)
        learner_out = final.own_total > 30
        assert ((final.phase == -1) | learner_out).all()
        eliminated += int((learner_out & (final.phase != -1)).sum())
        # the returned observation starts the next episode
        assert (fresh.phase != -1).all()
        assert (fresh.own_total == 0).all() and (fresh.others_total == 0).all()
        assert (infos["action_mask"][ended].sum(axis=1) >= 2).all()
        if players == 2:
            assert set(np.abs(reward[ended]).tolist()) == {1.0}
    if players == 3:
        assert eliminated > 0  # some episodes ended with the learner out, match going on


def test_seeding_is_deterministic():
    def run(seed, steps=300):
        env = StoOdnoVectorEnv(8, "classic", 3)
        obs, _ = env.reset(seed=seed)
        generator = np.random.default_rng(seed)
        log = [obs.copy()]
        for _ in range(steps):
            obs, reward, terminated, truncated, _ = env.step(random_actions(env, generator))
            log += [obs.copy(), reward.copy(), terminated.copy(), truncated.copy()]
        return log

    first, second = run(5), run(5)
    assert len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(a.dtype == bool and a.any() for a in first)  # some episodes ended
    other = run(6, steps=0)
    assert not np.array_equal(first[0], other[0])


def test_list_seeds_are_deterministic_with_random_opponents():
    def run():
        env = StoOdnoVectorEnv(4, "classic", 2)
        obs, _ = env.reset(seed=[1, 2, 3, 4])
        generator = np.random.default_rng(0)
        log = [obs.copy()]
        for _ in range(100):
            log.append(env.step(random_actions(env, generator))[0].copy())
        return np.array(log)

    np.testing.assert_array_equal(run(), run())


def test_step_before_reset_is_an_error():
    with pytest.raises(gymnasium.error.ResetNeeded):
        StoOdnoVectorEnv(2).step(np.array([40, 40]))


def play_single(seed, players, steps, rules="classic"):
    """The single-agent env with seed ``seed``, everyone playing ``crc_choice``: its
    observations, masks and rewards until the episode ends (or ``steps`` steps)."""
    env = StoOdnoEnv(rules, players, opponents=crc_choice)
    obs, info = env.reset(seed=seed)
    log = [(obs, info["action_mask"], info["learner_seat"])]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(crc_choice(obs, info["action_mask"]))
        log.append((obs, reward, terminated, truncated))
        if terminated or truncated:
            break
        log.append((info["action_mask"], info["learner_seat"]))
    return log


def play_vector(env, obs, infos, steps):
    """Everyone plays ``crc_choice`` in a reset vector env: per game, the same log as
    play_single, until that game's first episode ends."""
    games = env.num_envs
    logs = [[(obs[b], infos["action_mask"][b], infos["learner_seat"][b])] for b in range(games)]
    live = np.ones(games, dtype=bool)
    for _ in range(steps):
        actions = [crc_choice(obs[b], infos["action_mask"][b]) for b in range(games)]
        obs, reward, terminated, truncated, infos = env.step(np.array(actions))
        for b in np.flatnonzero(live):
            if terminated[b] or truncated[b]:
                logs[b].append((infos["final_obs"][b], reward[b], terminated[b], truncated[b]))
                live[b] = False
            else:
                logs[b].append((obs[b], reward[b], terminated[b], truncated[b]))
                logs[b].append((infos["action_mask"][b], infos["learner_seat"][b]))
    return logs


def assert_logs_equal(one, two):
    assert len(one) == len(two)
    for a, b in zip(one, two, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize(("rules", "players", "steps"), [(SHORT, 2, 400), ("classic", 4, 120)])
def test_each_game_of_a_batch_is_the_single_env_with_its_seed(rules, players, steps):
    """``reset(seed=[...])`` gives game b the match seed of the single-agent env reset with
    ``seeds[b]`` (``rng.game_seeds(seed, 1)[0]``): same observations, masks, rewards."""
    single_seeds = [3, 10, 11, 2024]
    match_seeds = [int(rng.game_seeds(s, 1)[0]) for s in single_seeds]
    env = StoOdnoVectorEnv(len(single_seeds), rules, players, opponents=CrcPolicy())
    obs, infos = env.reset(seed=match_seeds)
    fresh = env.games.state.matches_played == 0  # else over before the learner's turn
    np.testing.assert_array_equal(env.games.state.seed[fresh], np.array(match_seeds)[fresh])
    logs = play_vector(env, obs, infos, steps)
    ended = 0
    for b, seed in enumerate(single_seeds):
        single = play_single(seed, players, steps, rules)
        assert_logs_equal(logs[b], single)
        ended += len(single[-1]) == 4 and bool(single[-1][2] or single[-1][3])
    if rules is SHORT:
        assert ended >= 2  # episode ends (final observation and reward) compared too


def test_game_zero_of_an_int_seeded_batch_is_the_single_env():
    """``reset(seed=S)`` gives game b the engine's game b of ``init(..., seed=S)``; game 0
    has the match seed of the single-agent env reset with S."""
    seed, games = 42, 5
    env = StoOdnoVectorEnv(games, "classic", 3, opponents=CrcPolicy())
    obs, infos = env.reset(seed=seed)
    np.testing.assert_array_equal(env.games.state.seed, rng.game_seeds(seed, games))
    logs = play_vector(env, obs, infos, 100)
    assert_logs_equal(logs[0], play_single(seed, 3, 100))


# --- StoOdnoVecEnv (stable-baselines3) ---------------------------------------------------------


@needs("stable_baselines3", "sb3_contrib")
def test_sb3_masks_for_maskable_ppo():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    vec_env = StoOdnoVecEnv(num_envs=8, players=3, seed=0)
    obs = vec_env.reset()
    assert obs.shape == (8, 189) and obs.dtype == np.float32
    assert is_masking_supported(vec_env)
    masks = vec_env.env_method("action_masks")
    assert len(masks) == 8 and all(m.shape == (42,) and m.dtype == bool for m in masks)
    stacked = get_action_masks(vec_env)
    assert stacked.shape == (8, 42)
    np.testing.assert_array_equal(stacked, engine.legal_mask(vec_env.games.state).astype(bool))
    assert len(vec_env.env_method("action_masks", indices=[1, 3])) == 2
    generator = np.random.default_rng(0)
    for _ in range(10):
        vec_env.step(random_actions(vec_env, generator))
        np.testing.assert_array_equal(
            get_action_masks(vec_env), engine.legal_mask(vec_env.games.state).astype(bool)
        )


@needs("stable_baselines3")
def test_sb3_seed_makes_reset_deterministic():
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    one, two = StoOdnoVecEnv(num_envs=4), StoOdnoVecEnv(num_envs=4)
    one.seed(9)
    two.seed(9)
    np.testing.assert_array_equal(one.reset(), two.reset())


@needs("stable_baselines3")
def test_sb3_terminal_observation_when_done():
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    vec_env = StoOdnoVecEnv(num_envs=16, rules=SHORT, players=2, seed=3)
    obs = vec_env.reset()
    generator = np.random.default_rng(3)
    done_seen = 0
    while done_seen < 10:
        obs, reward, dones, infos = vec_env.step(random_actions(vec_env, generator))
        assert len(infos) == 16
        for i in range(16):
            if dones[i]:
                done_seen += 1
                terminal = infos[i]["terminal_observation"]
                assert terminal.shape == (189,) and terminal.dtype == np.float32
                assert ObservationView(terminal).phase[0] == -1  # the match is over
                assert infos[i]["TimeLimit.truncated"] is False
                assert abs(reward[i]) == 1.0
                assert ObservationView(obs[i], target=30).own_total[0] == 0  # next episode
            else:
                assert "terminal_observation" not in infos[i]


@needs("torch", "stable_baselines3", "sb3_contrib")
def test_maskable_ppo_smoke():
    import torch
    from sb3_contrib import MaskablePPO

    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    torch.set_num_threads(1)
    vec_env = StoOdnoVecEnv(num_envs=64, rules="classic", players=2, seed=0)
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=32,
        batch_size=512,
        n_epochs=2,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [64, 64]},
    )
    model.learn(total_timesteps=4096)
    assert model.num_timesteps >= 4096
    obs = vec_env.reset()
    masks = vec_env.action_masks()
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[np.arange(64), actions].all()


class LowestLegal:
    """A deterministic opponent that reads only the legal actions (so the engine may
    auto-play it), and the same rule as a plain callable (which it may not)."""

    needs_observation = False

    def act_bits(self, legal_bits):
        bits = np.asarray(legal_bits, dtype=np.uint64)
        return np.bitwise_count((bits & (~bits + np.uint64(1))) - np.uint64(1)).astype(np.int64)

    def act(self, observations, masks):
        return np.argmax(np.asarray(masks) > 0, axis=1)


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        ("classic", 2),
        *(pytest.param(*c, marks=pytest.mark.slow) for c in [("yard", 3), ("ukrainian", 4)]),
    ],
)
def test_auto_played_opponents_match_the_round_by_round_loop(rules, players):
    """The engine's auto-play of bits-only opponents gives the very games that the loop of
    one engine step per round of opponent moves gives."""
    auto = StoOdnoVectorEnv(32, rules=rules, players=players, opponents=LowestLegal())
    manual = StoOdnoVectorEnv(
        32, rules=rules, players=players, opponents=lambda obs, mask: int(np.argmax(mask > 0))
    )
    assert auto.games._autoplay() is not None and manual.games._autoplay() is None
    obs_a, info_a = auto.reset(seed=7)
    obs_m, info_m = manual.reset(seed=7)
    generator = np.random.default_rng(0)
    for _ in range(300):
        np.testing.assert_array_equal(obs_a, obs_m)
        np.testing.assert_array_equal(info_a["action_mask"], info_m["action_mask"])
        mask = info_a["action_mask"]
        actions = np.argmax(generator.random(mask.shape) * mask, axis=1)
        obs_a, reward_a, term_a, trunc_a, info_a = auto.step(actions)
        obs_m, reward_m, term_m, trunc_m, info_m = manual.step(actions)
        np.testing.assert_array_equal(reward_a, reward_m)
        np.testing.assert_array_equal(term_a, term_m)
        np.testing.assert_array_equal(trunc_a, trunc_m)


@pytest.mark.parametrize("workers", [1, 2])
def test_returned_arrays_belong_to_the_caller(workers):
    """Observations, rewards and flags handed out by a step are not rewritten by the next
    step (the envs hand out new arrays rather than copies of a reused buffer)."""
    env = StoOdnoVectorEnv(num_envs=16, rules=SHORT, workers=workers)
    try:
        generator = np.random.default_rng(4)
        kept = [env.reset(seed=2)[0]]
        snapshots = [kept[0].copy()]
        for _ in range(30):
            actions = engine.sample_actions(env.games.legal_bits, generator.random(16))
            observations, rewards, terminated, truncated, _ = env.step(actions)
            for array in (observations, rewards, terminated, truncated):
                kept.append(array)
                snapshots.append(array.copy())
        for array, snapshot in zip(kept, snapshots, strict=True):
            np.testing.assert_array_equal(array, snapshot)
        assert any(not np.array_equal(kept[0], later) for later in kept[1::4])
    finally:
        env.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_copy_false_reuses_one_buffer_with_the_same_values(workers):
    """copy=False (as Gymnasium's SyncVectorEnv) hands out one observation buffer that each
    step rewrites, holding what the default env returns."""
    fresh = StoOdnoVectorEnv(num_envs=8, rules=SHORT, workers=workers)
    reused = StoOdnoVectorEnv(num_envs=8, rules=SHORT, workers=workers, copy=False)
    try:
        np.testing.assert_array_equal(fresh.reset(seed=6)[0], reused.reset(seed=6)[0])
        buffers = set()
        for _ in range(20):
            actions = np.argmax(fresh.action_masks(), axis=1)
            expected = fresh.step(actions)[0]
            got = reused.step(actions)[0]
            np.testing.assert_array_equal(expected, got)
            buffers.add(id(got))
        assert len(buffers) == 1
    finally:
        fresh.close()
        reused.close()


# --- autoreset_mode and observation_keys, against Gymnasium's own SyncVectorEnv ---------------


class Continuing(gymnasium.Wrapper):
    """The single-agent env whose seedless reset plays on with the match its table already
    dealt (as the vector env's games do), so that Gymnasium's SyncVectorEnv over it plays
    the same matches as StoOdnoVectorEnv."""

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            return self.env.reset(seed=seed, options=options)
        env = self.env.unwrapped
        env._started = True
        return env.games.observe()[0].copy(), env._info()


def crc_actions(obs, masks):
    return np.array([crc_choice(o, m) for o, m in zip(obs, masks, strict=True)])


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize(("rules", "players", "steps"), [(SHORT, 2, 300), (SHORT, 3, 150)])
def test_autoreset_modes_match_gymnasium_sync_vector_env(mode, rules, players, steps):
    """Step for step, the batched env in either mode returns what Gymnasium's SyncVectorEnv
    in that mode returns over single-agent envs playing the same matches: observations,
    rewards, terminated, truncated, masks, seats and (same-step) the final observations."""
    single_seeds = [3, 10, 11, 2024]
    match_seeds = [int(rng.game_seeds(s, 1)[0]) for s in single_seeds]
    ours = StoOdnoVectorEnv(
        len(single_seeds), rules, players, opponents=CrcPolicy(), autoreset_mode=mode.value
    )
    theirs = SyncVectorEnv(
        [
            lambda: Continuing(StoOdnoEnv(rules, players, opponents=crc_choice))
            for _ in single_seeds
        ],
        autoreset_mode=mode,
    )
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    obs, infos = ours.reset(seed=match_seeds)
    obs_g, infos_g = theirs.reset(seed=single_seeds)
    np.testing.assert_array_equal(obs, obs_g)
    ended_total = resets = 0
    previous_ended = np.zeros(len(single_seeds), dtype=bool)
    for _ in range(steps):
        np.testing.assert_array_equal(infos["action_mask"], infos_g["action_mask"])
        np.testing.assert_array_equal(infos["learner_seat"], infos_g["learner_seat"])
        actions = crc_actions(obs, infos["action_mask"])
        obs, reward, terminated, truncated, infos = ours.step(actions)
        obs_g, reward_g, terminated_g, truncated_g, infos_g = theirs.step(actions)
        np.testing.assert_array_equal(obs, obs_g)
        np.testing.assert_array_equal(reward, reward_g)
        np.testing.assert_array_equal(terminated, terminated_g)
        np.testing.assert_array_equal(truncated, truncated_g)
        ended = terminated | truncated
        if mode == AutoresetMode.SAME_STEP:
            np.testing.assert_array_equal(infos.get("_final_obs", ended), ended)
            np.testing.assert_array_equal(infos_g.get("_final_obs", ended), ended)
            for b in np.flatnonzero(ended):
                np.testing.assert_array_equal(infos["final_obs"][b], infos_g["final_obs"][b])
        else:
            assert "final_obs" not in infos
            # the step after an episode's end is its reset: reward 0, not done
            assert not ended[previous_ended].any() and not reward[previous_ended].any()
            resets += previous_ended.sum()
        previous_ended = ended
        ended_total += ended.sum()
    assert ended_total >= 4
    assert mode == AutoresetMode.SAME_STEP or resets >= 3


def test_next_step_ignores_the_action_of_a_game_being_reset():
    """The step after an episode's end ignores that game's action, even an illegal one
    (no error), and returns the next episode's first observation: the observation the
    same-step env returned at the end."""
    same = StoOdnoVectorEnv(8, SHORT, 2, opponents=CrcPolicy())
    nxt = StoOdnoVectorEnv(8, SHORT, 2, opponents=CrcPolicy(), autoreset_mode="next_step")
    obs_s, infos_s = same.reset(seed=5)
    obs_n, infos_n = nxt.reset(seed=5)
    for _ in range(300):
        actions = crc_actions(obs_s, infos_s["action_mask"])
        obs_s, reward_s, term_s, trunc_s, infos_s = same.step(actions)
        obs_n, reward_n, term_n, _trunc_n, infos_n = nxt.step(actions)
        np.testing.assert_array_equal(term_n, term_s)
        np.testing.assert_array_equal(reward_n, reward_s)
        ended = term_s | trunc_s
        if ended.any():
            break
    else:
        pytest.fail("no episode ended")
    np.testing.assert_array_equal(obs_n[ended], infos_s["final_obs"][ended])
    illegal = np.argmin(infos_n["action_mask"], axis=1)  # an illegal action of every game
    assert not infos_n["action_mask"][np.arange(8), illegal].any()
    actions = np.where(ended, illegal, crc_actions(obs_n, infos_n["action_mask"]))
    obs_r, reward_r, term_r, trunc_r, _ = nxt.step(actions)
    np.testing.assert_array_equal(obs_r[ended], obs_s[ended])
    assert not reward_r[ended].any() and not (term_r | trunc_r)[ended].any()


def test_dict_observation_keys_for_rllib_masking():
    keys = ("observations", "action_mask")
    for mode in ("same_step", "next_step"):
        env = StoOdnoVectorEnv(6, SHORT, 2, autoreset_mode=mode, observation_keys=keys)
        assert isinstance(env.single_observation_space, spaces.Dict)
        assert set(env.single_observation_space.spaces) == set(keys)
        assert env.single_observation_space["action_mask"].dtype == np.float32
        obs, infos = env.reset(seed=0)
        assert "action_mask" not in infos
        generator = np.random.default_rng(0)
        for _ in range(100):
            assert env.observation_space.contains(obs)
            np.testing.assert_array_equal(obs["action_mask"], env.action_masks())
            legal = obs["action_mask"] > 0
            actions = np.array([generator.choice(np.flatnonzero(row)) for row in legal])
            obs, _reward, _terminated, _truncated, infos = env.step(actions)
        assert obs["observations"].shape == (6, 189)


def test_bad_autoreset_mode_and_observation_keys_are_refused():
    with pytest.raises(ValueError, match="autoreset_mode='disabled' is not allowed"):
        StoOdnoVectorEnv(2, autoreset_mode="disabled")
    with pytest.raises(ValueError, match="observation_keys='obs' is not allowed"):
        StoOdnoVectorEnv(2, observation_keys="obs")
    with pytest.raises(ValueError, match=r"observation_keys=.* is not allowed"):
        StoOdnoVectorEnv(2, observation_keys=("a", "a"))
    with pytest.raises(ValueError, match="next_step' with workers=2 is not supported"):
        StoOdnoVectorEnv(4, autoreset_mode="next_step", workers=2)
    assert StoOdnoVectorEnv(2, autoreset_mode=AutoresetMode.NEXT_STEP).autoreset_mode == (
        AutoresetMode.NEXT_STEP
    )


@needs("stable_baselines3")
@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_the_sb3_vec_env_refuses_actions_outside_the_space(mode):
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv
    from sto_odno_env.envs.table_config import ActionSpaceError

    env = StoOdnoVecEnv(num_envs=3, illegal_action=mode)
    env.reset()
    for actions in (np.array([0, 42, 1]), np.array([0.0, 1.0, 2.0]), np.array([0, 1])):
        with pytest.raises(ActionSpaceError):
            env.step_async(actions)
    env.step(np.argmax(env.action_masks(), axis=1))  # legal integers play on
    env.close()


@needs("stable_baselines3")
def test_the_sb3_vec_env_names_an_illegal_action_as_the_aec_env_does():
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    env = StoOdnoVecEnv(num_envs=3, illegal_action="penalize")
    env.reset()
    masks = env.action_masks()
    actions = np.argmax(masks, axis=1)
    actions[1] = int(np.flatnonzero(masks[1] == 0)[0])  # game 1 plays a masked action
    _, rewards, dones, infos = env.step(actions)
    legal = ", ".join(str(a) for a in np.flatnonzero(masks[1]))
    message = infos[1]["illegal_action"]
    assert message.startswith(f"illegal action {actions[1]} (") and rewards[1] == -1 and dones[1]
    assert [a.split(" (")[0] for a in message.split("legal actions: ")[1].split(", ")] == (
        legal.split(", ")
    )
    assert "illegal_action" not in infos[0] and "illegal_action" not in infos[2]
    env.close()


def test_the_batched_games_take_integers_only():
    """Under the envs, LearnerGames treats any integer that is no legal action by
    illegal_action (as the engine does), but never turns a float or a bool into one."""
    from sto_odno_env.envs.learner import LearnerGames
    from sto_odno_env.envs.table_config import ActionSpaceError

    games = LearnerGames(batch=2, illegal_action="penalize")
    games.reset(seed=0)
    for actions in (np.array([1.5, 2.0]), np.array([True, False]), np.array(["1", "2"])):
        with pytest.raises(ActionSpaceError, match="are not actions"):
            games.step(actions)
    result = games.step(np.array([99, 99]))  # an integer outside the mask: penalized
    assert result["illegal"].all() and (result["reward"] == -1).all()
