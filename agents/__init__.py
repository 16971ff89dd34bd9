"""Bots and evaluation for sto-odno: batched heuristic bots, a search bot, loaders for
trained policies, and an evaluation harness (``python -m agents.evaluate``).

Every agent has the interface of :mod:`sto_odno_env.policy`:
``agent.act(observations, masks) -> actions`` on batches and
``agent(observation, mask) -> int`` for one decision.
"""

from .heuristic import ExpertAgent, GreedyAgent, RandomAgent

__all__ = ["ExpertAgent", "GreedyAgent", "RandomAgent"]
