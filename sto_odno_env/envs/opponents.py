"""Who plays the seats beside the learner's in :class:`~sto_odno_env.envs.learner.LearnerGames`:
one policy per position after the learner, or a table of opponents that changes from game
to game (a self-play league), and their moves for a batch of games.

Policies follow :mod:`sto_odno_env.bots.policy` (plain ``(observation, mask) -> action``
callables work). A *table of opponents* is one object with ``start_matches(games)``,
called whenever those games start a match (to draw their opponents), and
``act_games(games, positions, observations, masks) -> actions``, called once per round of
moves for every game waiting on an opponent (``positions``: places after the learner,
1..P-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..bots.policy import RandomPolicy, as_policy
from ..game import engine, rng
from ..views.observation import observe, policy_actions


class Opponents:
    """The opponents of a checked config: ``policies[i]`` plays the seat ``i + 1`` places
    after the learner (the same object P-1 times for one policy or a table); ``table`` is
    the table of opponents, or None."""

    def __init__(self, opponents: Any, players: int):
        self.players = players
        self.table = opponents if hasattr(opponents, "act_games") else None
        if self.table is not None:
            self.policies = [opponents] * (players - 1)
            return
        if opponents is None:
            opponents = RandomPolicy()
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            self.policies = [as_policy(policy) for policy in opponents]
        else:
            self.policies = [as_policy(opponents)] * (players - 1)

    def seed(self, seed: int) -> None:
        """Reseed the policies that have a ``seed`` method (each its own stream)."""
        seen: set[int] = set()
        for position, policy in enumerate(self.policies):
            if id(policy) in seen or not callable(getattr(policy, "seed", None)):
                continue
            seen.add(id(policy))
            policy.seed(int(rng.game_seeds(seed, position + 2)[-1]))

    def start_matches(self, games: np.ndarray) -> None:
        """Tell a table of opponents that ``games`` start a match."""
        if self.table is not None:
            self.table.start_matches(games)

    def autoplay(self, learner: np.ndarray) -> engine.Autoplay | None:
        """With one policy that reads only the legal actions (random play), the engine's
        :class:`~sto_odno_env.game.engine.Autoplay` of every seat but the learner's (the
        engine then applies the opponents' decisions in its own loop), else None."""
        policy = self.policies[0]
        if not hasattr(policy, "act_bits") or any(p is not policy for p in self.policies):
            return None
        everyone = (1 << self.players) - 1
        seats = (everyone & ~(1 << learner.astype(np.intp))).astype(np.uint8)
        return engine.Autoplay(seats, policy.act_bits)

    def moves(self, state: engine.State, waiting: np.ndarray, learner: np.ndarray) -> np.ndarray:
        """The opponents' choices in the games ``waiting`` (none at a forced decision): one
        policy call per opponent position, or one call of the table of opponents."""
        P = self.players
        seats = state.current_player[waiting].astype(np.intp)
        relative = (seats - learner[waiting]) % P
        actions = np.empty(waiting.size, dtype=np.int64)
        if self.table is not None:
            observations = observe(state, seats, games=waiting)
            masks = engine.unpack_actions(state.legal_bits[waiting], state.tables.num_actions)
            actions[:] = self.table.act_games(waiting, relative, observations, masks)
            return actions
        for position in range(1, P):
            rows = np.flatnonzero(relative == position) if P > 2 else slice(None)
            games = waiting[rows]
            if not games.size:
                continue
            policy = self.policies[position - 1]
            actions[rows] = _policy_actions(policy, state, games, seats[rows])
        return actions


def _policy_actions(
    policy: Any, state: engine.State, games: np.ndarray, seats: np.ndarray
) -> np.ndarray:
    if hasattr(policy, "act_bits"):  # acts on the legal-action bits alone (random play)
        return policy.act_bits(state.legal_bits[games])
    return policy_actions(policy, state, games, seats)
