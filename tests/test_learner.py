"""``ready_share``: a learner step returns once a share of the games is at the learner's
turn, and the stragglers' opponents play on in the next step.

What an episode contains must not change: with opponents that decide from the
observation (a trained policy, the bots) and a learner whose action is a function of its
observation, every game plays the same sequence of observations, masks, actions, rewards
and episode ends with and without the option; only the steps in which they arrive differ.
The tests compare those per-game trajectories, check that the option really carried
games over (and episode ends with them), and that a trainer's rollout of a fixed number
of decisions per game (holding the games that have theirs) collects the same data.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import torch

from sto_odno_env import Rules
from sto_odno_env.bots.heuristic import ExpertAgent, GreedyAgent
from sto_odno_env.bots.registry import load as load_agent
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
from sto_odno_env.envs.learner import LearnerGames
from sto_odno_env.envs.table_config import TableConfig
from sto_odno_env.game import engine


@pytest.fixture(autouse=True)
def one_torch_thread():
    """The policies' forward passes are a few dozen rows: one thread is fastest (more
    threads wait on each other on a loaded machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# Short matches (and rounds cut at 40 turns, so truncations too), the same game otherwise.
SHORT = Rules.preset("classic").replace(target=20, max_turns=40)


def choose(observation: np.ndarray, mask: np.ndarray, illegal_every: int = 0) -> int:
    """The learner's action: a function of the observation and mask only, so a game plays
    the same whatever else is batched with it. With ``illegal_every`` about one decision
    in that many is an illegal action (for ``illegal_action="penalize"``)."""
    crc = zlib.crc32(np.ascontiguousarray(observation).tobytes())
    if illegal_every and crc % illegal_every == 0 and not mask.all():
        return int(np.flatnonzero(mask == 0)[0])
    legal = np.flatnonzero(mask)
    return int(legal[crc % len(legal)])


def choose_all(observations, masks, rows, illegal_every: int = 0) -> np.ndarray:
    """Actions for the games ``rows`` (0 elsewhere: those games' actions are ignored)."""
    actions = np.zeros(len(observations), dtype=np.int64)
    for row in rows:
        actions[row] = choose(observations[row], masks[row], illegal_every)
    return actions


class Stats:
    """What a ready-share run went through (so a test can tell it was not vacuous)."""

    def __init__(self) -> None:
        self.partial_steps = 0  # steps that returned with games not ready
        self.carried_ends = 0  # episode ends that waited for their game to be ready
        self.ends = 0


def play_env(env: StoOdnoVectorEnv, decisions: int, seed: int, illegal_every: int = 0):
    """Per game, the list of its learner decisions, each ``(observation, mask, action,
    reward, terminated, truncated, final observation or None, illegal)``, until every game
    has ``decisions`` complete ones (the outcome is filled in when the game is next
    ready). Returns (trajectories, Stats)."""
    observations, infos = env.reset(seed=seed)
    batch = env.num_envs
    trajectories: list[list[list]] = [[] for _ in range(batch)]
    ready = np.ones(batch, dtype=bool)
    stats = Stats()
    next_step = env.autoreset_mode.name == "NEXT_STEP"
    resetting = np.zeros(batch, dtype=bool)  # next_step: this game's next step is its reset
    for _ in range(100_000):
        masks = infos["action_mask"]
        rows = np.flatnonzero(ready & ~resetting)
        actions = choose_all(observations, masks, rows, illegal_every)
        for row in rows:
            trajectories[row].append(
                [observations[row].copy(), masks[row].copy(), int(actions[row])]
            )
        observations, rewards, terminated, truncated, infos = env.step(actions)
        ready = infos.get("ready", np.ones(batch, dtype=bool))
        if not ready.all():
            stats.partial_steps += 1
        assert not (rewards[~ready].any() or terminated[~ready].any() or truncated[~ready].any())
        assert not observations[~ready].any()  # zeros: nothing to act on
        ended = terminated | truncated
        illegal = infos.get("illegal_action", np.zeros(batch, dtype=bool))
        for row in np.flatnonzero(ready & ~resetting):
            if next_step and ended[row]:
                final = observations[row].copy()  # next_step returns the last observation
            elif ended[row]:
                final = infos["final_obs"][row].copy()
            else:
                final = None
            trajectories[row][-1] += [
                float(rewards[row]),
                bool(terminated[row]),
                bool(truncated[row]),
                final,
                bool(illegal[row]),
            ]
        if next_step:
            resetting = ended.copy()
        stats.ends += int(ended.sum())
        games = env.games
        if hasattr(games, "_terminated"):  # one process (white-box: the pending path)
            # An episode end held for a game that is not ready.
            held = (games._terminated | games._truncated) & ~ready
            stats.carried_ends += int(held.sum())
        complete = min(sum(len(d) == 8 for d in t) for t in trajectories)
        if complete >= decisions:
            return [t[:decisions] for t in trajectories], stats
    raise AssertionError("the games did not reach the decisions asked for")


def assert_same_trajectories(expected, got) -> None:
    assert len(expected) == len(got)
    for game, (one, other) in enumerate(zip(expected, got, strict=True)):
        for index, (a, b) in enumerate(zip(one, other, strict=True)):
            where = f"game {game}, decision {index}"
            np.testing.assert_array_equal(a[0], b[0], err_msg=f"{where}: observation")
            np.testing.assert_array_equal(a[1], b[1], err_msg=f"{where}: mask")
            assert a[2:6] == b[2:6], f"{where}: action, reward, terminated, truncated"
            assert (a[6] is None) == (b[6] is None), f"{where}: final observation"
            if a[6] is not None:
                np.testing.assert_array_equal(a[6], b[6], err_msg=f"{where}: final")
            assert a[7] == b[7], f"{where}: illegal"


class BotTable:
    """A deterministic table of opponents: game ``g`` meets the expert at even places
    and the greedy bot at odd ones when ``g`` is even, the other way round when odd."""

    def __init__(self, rules: Rules, players: int):
        self.bots = [ExpertAgent(rules, players), GreedyAgent(rules, players)]
        self.started = 0

    def start_matches(self, games: np.ndarray) -> None:
        self.started += len(games)

    def act_games(self, games, positions, observations, masks) -> np.ndarray:
        member = (games + positions) % 2
        actions = np.empty(len(games), dtype=np.int64)
        for index, bot in enumerate(self.bots):
            rows = np.flatnonzero(member == index)
            if rows.size:
                actions[rows] = bot.act(observations[rows], masks[rows])
        return actions


def _policy(players: int):
    """The shipped policy of the player count (trained on classic; the short rules change
    only the target and the turn limit, which it plays as it is)."""
    return load_agent("ppo-classic", "classic", players)  # the catalog's policy for the count


CASES = {
    "2p-policy": dict(players=2, opponents=lambda: _policy(2)),
    "4p-policy-expert-greedy": dict(
        players=4,
        opponents=lambda: [_policy(4), ExpertAgent(SHORT, 4), GreedyAgent(SHORT, 4)],
        reward="round",
    ),
    "3p-table-penalize": dict(
        players=3,
        opponents=lambda: BotTable(SHORT, 3),
        illegal_action="penalize",
        illegal_every=40,
    ),
}


@pytest.mark.parametrize("share", [0.5, 0.9])
@pytest.mark.parametrize("case", list(CASES))
def test_episodes_are_the_same_with_and_without_ready_share(case, share):
    settings = dict(CASES[case])
    make_opponents = settings.pop("opponents")
    illegal_every = settings.pop("illegal_every", 0)
    runs = []
    for ready_share in (None, share):
        env = StoOdnoVectorEnv(
            24, SHORT, opponents=make_opponents(), ready_share=ready_share, **settings
        )
        runs.append(play_env(env, 60, seed=11, illegal_every=illegal_every))
    (expected, full), (got, stats) = runs
    assert full.partial_steps == 0 and full.carried_ends == 0
    assert stats.partial_steps > 50  # stragglers were carried over
    assert stats.carried_ends > 0  # and episode ends with them
    assert stats.ends >= 12
    if illegal_every:
        assert sum(d[7] for t in expected for d in t) >= 3  # penalized decisions compared
    assert_same_trajectories(expected, got)


@pytest.mark.parametrize(
    ("preset", "players", "changes"),
    [
        ("ukrainian", 3, {}),
        ("encyclopedia", 4, {}),
        ("nines", 2, {}),
        ("yard", 3, {}),
        ("classic", 3, {"deck": 52}),
        ("classic", 2, {"last_card_call": True}),
    ],
)
def test_other_rules_play_the_same_episodes(preset, players, changes):
    """Other effects, decks and the last-card call (their own chains of forced decisions),
    bots as opponents."""
    rules = Rules.preset(preset).replace(target=30, max_turns=60, **changes)
    runs = []
    for ready_share in (None, 0.6):
        bots = [ExpertAgent(rules, players), GreedyAgent(rules, players)]
        opponents = [bots[seat % 2] for seat in range(players - 1)]
        env = StoOdnoVectorEnv(
            16, rules, players, opponents=opponents, ready_share=ready_share, reward="round"
        )
        runs.append(play_env(env, 40, seed=21))
    (expected, _), (got, stats) = runs
    assert stats.partial_steps > 10 and stats.ends >= 4
    assert_same_trajectories(expected, got)


def test_next_step_autoreset_with_ready_share_plays_the_same_episodes():
    """Gymnasium's next-step auto-reset (the step after an end returns the reset, its
    action ignored) combined with stragglers: the same episodes."""
    runs = [
        play_env(
            StoOdnoVectorEnv(
                16, SHORT, 2, opponents=_policy(2), ready_share=share, autoreset_mode="next_step"
            ),
            100,
            seed=3,
        )
        for share in (None, 0.8)
    ]
    (expected, _), (got, stats) = runs
    assert stats.partial_steps > 30 and stats.ends >= 8
    assert_same_trajectories(expected, got)


def test_sharded_games_with_ready_share_play_the_same_episodes():
    """Each worker applies the share to its shard; the episodes stay those of one
    process without the option."""
    alone = StoOdnoVectorEnv(12, SHORT, 2, opponents=GreedyAgent(SHORT, 2))
    sharded = StoOdnoVectorEnv(
        12, SHORT, 2, opponents=GreedyAgent(SHORT, 2), workers=2, ready_share=0.75
    )
    try:
        expected, _ = play_env(alone, 80, seed=5)
        ready_seen = []
        step = sharded.games.step

        def watched(actions):
            result = step(actions)
            ready_seen.append(result["ready"].mean())
            return result

        sharded.games.step = watched
        got, _ = play_env(sharded, 80, seed=5)
    finally:
        sharded.close()
    assert min(ready_seen) < 1.0
    assert_same_trajectories(expected, got)


def collect(games: LearnerGames, steps: int, rounds: int, seed: int):
    """The trainer's recipe: ``rounds`` rollouts of ``steps`` decisions per game into
    (steps, B) arrays. With ``ready_share`` the learner acts in the ready games that still
    need decisions and holds the others (``skip``) until every game has its ``steps``
    decisions and is ready again (its last reward is in, its next observation is the
    bootstrap one). Returns every rollout's arrays and the bootstrap observations."""
    B = games.batch
    observations = games.reset(seed=seed)
    masks = games.masks()
    ready = np.ones(B, dtype=bool)
    out = []
    for _ in range(rounds):
        buffer = {
            "obs": np.zeros((steps, B, games.obs_size), np.float32),
            "action": np.zeros((steps, B), np.int64),
            "reward": np.zeros((steps, B), np.float32),
            "done": np.zeros((steps, B), bool),
        }
        taken = np.zeros(B, dtype=np.int64)  # decisions of this rollout per game
        awaiting = np.zeros(B, dtype=bool)  # the outcome of its last decision is not in
        while True:
            acting = ready & (taken < steps)
            rows = np.flatnonzero(acting)
            actions = choose_all(observations, masks, rows)
            buffer["obs"][taken[rows], rows] = observations[rows]
            buffer["action"][taken[rows], rows] = actions[rows]
            taken[rows] += 1
            awaiting |= acting
            result = games.step(actions, skip=ready & ~acting)
            observations, masks, ready = result["observation"], games.masks(), result["ready"]
            arrived = np.flatnonzero(ready & awaiting)
            buffer["reward"][taken[arrived] - 1, arrived] = result["reward"][arrived]
            ended = result["terminated"] | result["truncated"]
            buffer["done"][taken[arrived] - 1, arrived] = ended[arrived]
            awaiting[arrived] = False
            if (taken == steps).all() and ready.all():
                break
        out.append((buffer, observations.copy()))
    return out


def test_a_trainer_rollout_collects_the_same_data():
    """rollout_steps decisions per game, several rollouts in a row: the same (T, B)
    observations, actions, rewards and ends, and the same bootstrap observations."""

    def games(share):
        return LearnerGames(SHORT, 2, 20, opponents=_policy(2), ready_share=share)

    expected = collect(games(None), steps=16, rounds=4, seed=9)
    got = collect(games(0.8), steps=16, rounds=4, seed=9)
    assert sum(int(buffer["done"].sum()) for buffer, _ in expected) >= 5
    for (one, bootstrap_one), (other, bootstrap_other) in zip(expected, got, strict=True):
        for name in one:
            np.testing.assert_array_equal(one[name], other[name], err_msg=name)
        np.testing.assert_array_equal(bootstrap_one, bootstrap_other)


def test_a_saved_run_with_stragglers_resumes_exactly():
    """get_state between steps, with games not ready and episode ends held for them,
    restores into fresh games that then play on exactly as the original."""
    config = TableConfig(SHORT, 2, opponents=_policy(2), ready_share=0.6)
    original = LearnerGames(batch=16, config=config)
    observations = original.reset(seed=4)
    masks, ready = original.masks(), np.ones(16, dtype=bool)
    saved = None
    for _ in range(400):
        result = original.step(choose_all(observations, masks, np.flatnonzero(ready)))
        observations, masks, ready = result["observation"], original.masks(), result["ready"]
        held = (original._terminated | original._truncated) & ~ready
        if held.any() and (~ready).sum() >= 3:
            saved = (original.get_state(), observations.copy(), masks.copy(), ready.copy())
            break
    assert saved is not None, "no step held an episode end for a straggler"
    state, observations, masks, ready = saved
    resumed = LearnerGames(batch=16, config=config)
    resumed.reset(seed=123)  # other games, replaced by the saved ones
    resumed.set_state(state)
    for _ in range(60):
        actions = choose_all(observations, masks, np.flatnonzero(ready))
        one, other = original.step(actions), resumed.step(actions)
        for name in ("observation", "reward", "terminated", "truncated", "ready", "illegal"):
            np.testing.assert_array_equal(one[name], other[name], err_msg=name)
        assert (one["final_observation"] is None) == (other["final_observation"] is None)
        if one["final_observation"] is not None:
            np.testing.assert_array_equal(one["final_observation"], other["final_observation"])
        observations, masks, ready = one["observation"], original.masks(), one["ready"]


def test_an_illegal_action_of_a_ready_game_raises_and_others_are_ignored():
    """With ``illegal_action="raise"`` a ready game's illegal action raises; a straggler's
    action, whatever it is, is ignored."""
    games = LearnerGames(SHORT, 2, 32, opponents=_policy(2), ready_share=0.5)
    observations = games.reset(seed=2)
    masks, ready = games.masks(), np.ones(32, dtype=bool)
    for _ in range(50):
        actions = choose_all(observations, masks, np.flatnonzero(ready))
        if not ready.all():
            straggler = int(np.flatnonzero(~ready)[0])
            actions[straggler] = 10_000  # not an action at all: ignored
            break
        result = games.step(actions)
        observations, masks, ready = result["observation"], games.masks(), result["ready"]
    else:
        pytest.fail("every step returned with every game ready")
    games.step(actions)  # no error
    observations, masks = games.observe(), games.masks()
    ready = games.state.current_player == games.learner
    bad = int(np.flatnonzero(ready)[0])
    actions = choose_all(observations, masks, np.flatnonzero(ready))
    actions[bad] = int(np.flatnonzero(masks[bad] == 0)[0])
    with pytest.raises(engine.IllegalActionError):
        games.step(actions)


@pytest.mark.parametrize("share", [0, 1.5, -0.1, True, "0.9", float("nan")])
def test_a_bad_ready_share_is_refused(share):
    with pytest.raises(ValueError, match=r"ready_share=.*allowed: None \(off\) or a number"):
        TableConfig(ready_share=share)
    with pytest.raises(ValueError, match="ready_share"):
        StoOdnoVectorEnv(4, ready_share=share)


def test_without_ready_share_nothing_changes_in_the_infos():
    """Off by default: no ``ready`` key, every game ready in the result."""
    env = StoOdnoVectorEnv(8, SHORT, 2, opponents=GreedyAgent(SHORT, 2))
    _, infos = env.reset(seed=1)
    _, _, _, _, infos = env.step(choose_all(np.zeros((8, 1)), infos["action_mask"], range(8)))
    assert "ready" not in infos
    assert env.games.config.ready_share is None
    result = env.games.step(choose_all(np.zeros((8, 1)), env.games.masks(), range(8)))
    assert result["ready"].all()


def test_the_sb3_vec_env_refuses_ready_share():
    """SB3 keeps one transition per env per step: a game that sits a step out has none."""
    from tests.helpers import need

    need("stable_baselines3")
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    with pytest.raises(ValueError, match=r"ready_share=0\.7 is not allowed in StoOdnoVecEnv"):
        StoOdnoVecEnv(4, ready_share=0.7)
    assert StoOdnoVecEnv(4).num_envs == 4
