"""The league games of a PPO run at one player count or at several at once.

With ``players_mix`` empty, a run's ``num_envs`` games all seat ``players``. With
``players_mix: [2, 3, 4, 6]`` they are split among those counts by ``players_weights``
(equal when empty), one :class:`~sto_odno_env.envs.learner.LearnerGames` and one
:class:`~train.ppo_parts.league.League` per count, and every rollout step steps them all: one batch
holds every count, so each update trains the one policy (and the one critic) on all of
them. That is possible because the observation and the actions of a rule set have the
same size at every count (``obs_size(rules)``); the observation says how many sit at the
table.

A group's games sit in a fixed slice of the batch, so the rollout storage, GAE and the
update do not change. One count gives the games, seeds and saved state of a run without a
mix, so checkpoints from before the mix resume as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sto_odno_env.envs.learner import LearnerGames
from sto_odno_env.game.rules import Rules
from train.config_keys import ConfigError, TrainConfig
from train.ppo_parts.league import League

GROUP_SEED_STRIDE = 1_000_003  # the games and league of group i > 0 play seed + i * this


def counts_and_sizes(config: TrainConfig) -> list[tuple[int, int]]:
    """(players, games) of each group: ``num_envs`` split by ``players_weights``, the
    rounding remainder going to the largest fractional shares first (the earlier count of
    equal ones); :class:`ConfigError` for weights that do not fit or a count left with no
    game."""
    counts = list(config.players_mix) or [config.players]
    weights = np.asarray(config.players_weights or [1.0] * len(counts), dtype=np.float64)
    if config.players_weights and not config.players_mix:
        raise ConfigError(
            f"players_weights={list(config.players_weights)} needs players_mix; allowed: "
            "[] without players_mix"
        )
    if len(weights) != len(counts):
        raise ConfigError(
            f"players_weights has {len(weights)} weights for the {len(counts)} counts of "
            f"players_mix {list(counts)}; allowed: one weight per count, or [] (equal)"
        )
    if weights.sum() <= 0:
        raise ConfigError(
            f"players_weights={list(config.players_weights)} is not allowed; allowed: "
            "weights >= 0 with at least one > 0"
        )
    exact = config.num_envs * weights / weights.sum()
    sizes = np.floor(exact).astype(int)
    for index in np.argsort(-(exact - sizes), kind="stable")[: config.num_envs - sizes.sum()]:
        sizes[index] += 1
    if (sizes == 0).any():
        raise ConfigError(
            f"num_envs={config.num_envs} split by players_weights gives no game to "
            f"{[c for c, s in zip(counts, sizes, strict=True) if s == 0]} players; allowed: "
            "more games, or a larger weight for each count"
        )
    return [(int(c), int(s)) for c, s in zip(counts, sizes, strict=True)]


@dataclass
class Group:
    """The games of one player count: their slice of the batch, the games, the league."""

    players: int
    rows: slice
    games: LearnerGames
    league: League


class Tables:
    """The run's league games, one :class:`Group` per player count, as one batch."""

    def __init__(self, config: TrainConfig, rules: Rules, actor: Any, device: Any):
        self.groups: list[Group] = []
        start = 0
        for index, (players, size) in enumerate(counts_and_sizes(config)):
            seed = config.seed + index * GROUP_SEED_STRIDE
            league = League(config.league, rules, players, size, actor, seed, device)
            games = LearnerGames(
                rules,
                players,
                size,
                opponents=league,
                reward=config.reward,
                illegal_action="raise",  # one illegal move anywhere stops the run
            )
            self.groups.append(Group(players, slice(start, start + size), games, league))
            start += size
        self.names: list[str] = self.groups[0].league.names  # pin renames in place
        self.counts = [group.players for group in self.groups]

    def _join(self, parts: list[np.ndarray]) -> np.ndarray:
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def reset(self, seed: int) -> np.ndarray:
        """Start a match in every game; the learner's observations."""
        return self._join(
            [g.games.reset(seed=seed + i * GROUP_SEED_STRIDE) for i, g in enumerate(self.groups)]
        )

    def observe(self) -> np.ndarray:
        return self._join([group.games.observe() for group in self.groups])

    def masks(self) -> np.ndarray:
        return self._join([group.games.masks() for group in self.groups])

    def step(self, actions: np.ndarray) -> dict[str, np.ndarray]:
        """The learner's ``actions`` in every game, then the opponents to its next turn:
        the observation, reward, terminated and truncated of every game."""
        results = [group.games.step(actions[group.rows]) for group in self.groups]
        return {
            key: self._join([result[key] for result in results])
            for key in ("observation", "reward", "terminated", "truncated")
        }

    def opponents(self) -> list[np.ndarray]:
        """Each group's league members in each game's opponent seats (copies)."""
        return [group.league.assign.copy() for group in self.groups]

    def credit(
        self,
        opponents: list[np.ndarray],
        done: np.ndarray,
        reward: np.ndarray,
        member_score: np.ndarray,
        member_games: np.ndarray,
    ) -> int:
        """Add each ended match's score, (reward + 1) / 2, to the members it was against
        (in place); returns how many ended."""
        ended = 0
        for group, seats in zip(self.groups, opponents, strict=True):
            games = np.flatnonzero(done[group.rows])
            if not games.size:
                continue
            score = (reward[group.rows][games] + 1.0) / 2.0
            for column in range(seats.shape[1]):
                members = seats[games, column]
                np.add.at(member_score, members, score)
                np.add.at(member_games, members, 1)
            ended += int(games.size)
        return ended

    def add_snapshot(self, update: int) -> None:
        """Freeze the current policy into every group's league (once per update)."""
        for group in self.groups:
            if update not in group.league.snapshot_updates:
                group.league.add_snapshot(update)

    def pin(self, agent: Any, name: str) -> None:
        """Seat ``agent`` in every opponent seat of every group (:meth:`League.pin`)."""
        for group in self.groups:
            group.league.pin(agent, name)

    def get_state(self) -> tuple[Any, Any]:
        """The leagues' and the games' state: one count's as a run without a mix saves
        them, several as lists."""
        leagues = [group.league.get_state() for group in self.groups]
        games = [group.games.get_state() for group in self.groups]
        return (leagues[0], games[0]) if len(self.groups) == 1 else (leagues, games)

    def set_state(self, leagues: Any, games: Any) -> None:
        if len(self.groups) == 1:
            leagues, games = [leagues], [games]
        if not isinstance(leagues, list) or len(leagues) != len(self.groups):
            held = len(leagues) if isinstance(leagues, list) else 1
            raise ValueError(
                f"the checkpoint holds the games of {held} player counts; this run has "
                f"{len(self.groups)} ({self.counts})"
            )
        for group, league, arrays in zip(self.groups, leagues, games, strict=True):
            group.league.set_state(league)
            group.games.set_state(arrays)
