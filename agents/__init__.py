"""Bots and evaluation for sto-odno: batched heuristic bots, two search bots (``rollout``,
``search``), loaders for trained policies, an evaluation harness (``python -m
agents.evaluate``) and a learned best response (``python train/exploit.py``).

Every agent has the interface of :mod:`sto_odno_env.bots.policy`:
``agent.act(observations, masks) -> actions`` on batches and
``agent(observation, mask) -> int`` for one decision.
"""

from sto_odno_env.bots.catalog import recommended
from sto_odno_env.bots.checkpoint import CheckpointError, save_policy
from sto_odno_env.bots.heuristic import ExpertAgent, GreedyAgent, RandomAgent
from sto_odno_env.bots.registry import BOTS, AgentError, load
from sto_odno_env.bots.rollout import RolloutAgent
from sto_odno_env.bots.search import SearchAgent

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
    "recommended",
    "save_policy",
]
