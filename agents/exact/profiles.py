"""Kit agents as profiles of a :class:`~agents.exact.tree.GameTree`: each information set's
distribution over actions, read from what the agent plays at its observation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sto_odno_env.bots.policy import Policy, policy_probabilities

from .tree import ExactError, GameTree
from .values import observation_profile, seat_profile


def agent_profile(tree: GameTree, agent: Policy) -> np.ndarray:
    """(I, A) what ``agent`` plays at every information set of ``tree`` (it reads the
    observation only, so one row per distinct observation, spread to the sets)."""
    per_observation = policy_probabilities(agent, tree.observations, tree.masks)
    legal = tree.masks > 0
    if per_observation.shape != legal.shape or np.any(per_observation[~legal] > 0):
        raise ExactError(
            f"agent {getattr(agent, 'name', agent)!r} puts weight on an illegal action of "
            f"rules {tree.rules.name!r}"
        )
    return observation_profile(tree, per_observation)


def table_profile(tree: GameTree, agents: Sequence[Policy]) -> np.ndarray:
    """(I, A) seat ``s`` played by ``agents[s]`` (one agent for every seat: self-play)."""
    if len(agents) == 1:
        return agent_profile(tree, agents[0])
    if len(agents) != tree.players:
        raise ExactError(
            f"{len(agents)} agents for {tree.players} seats; allowed: 1 or {tree.players}"
        )
    return seat_profile(tree, [agent_profile(tree, agent) for agent in agents])
