"""Bots and evaluation for sto-odno: batched heuristic bots, two search bots (``rollout``,
``search``), loaders for trained policies, an evaluation harness (``python -m
agents.evaluate``) and a learned best response (``python -m agents.exploit``).

Every agent has the interface of :mod:`sto_odno_env.policy`:
``agent.act(observations, masks) -> actions`` on batches and
``agent(observation, mask) -> int`` for one decision.
"""

from .checkpoint import CheckpointError, save_policy
from .heuristic import ExpertAgent, GreedyAgent, RandomAgent
from .registry import BOTS, AgentError, load
from .rollout import RolloutAgent
from .search import SearchAgent

__all__ = [
    "BOTS",
    "AgentError",
    "CheckpointError",
    "ExpertAgent",
    "GreedyAgent",
    "RandomAgent",
    "RolloutAgent",
    "SearchAgent",
    "load",
    "save_policy",
]
