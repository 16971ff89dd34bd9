"""Bots and evaluation for sto-odno: batched heuristic bots, a search bot, loaders for
trained policies, and an evaluation harness (``python -m agents.evaluate``).

Every agent has the interface of :mod:`sto_odno_env.policy`:
``agent.act(observations, masks) -> actions`` on batches and
``agent(observation, mask) -> int`` for one decision.
"""

from .checkpoint import CheckpointError, save_policy
from .heuristic import ExpertAgent, GreedyAgent, RandomAgent
from .registry import BOTS, AgentError, load
from .rollout import RolloutAgent

__all__ = [
    "BOTS",
    "AgentError",
    "CheckpointError",
    "ExpertAgent",
    "GreedyAgent",
    "RandomAgent",
    "RolloutAgent",
    "load",
    "save_policy",
]
