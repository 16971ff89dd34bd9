"""The evaluation harness of sto-odno, and the bots by their short names.

* :mod:`agents.arena` plays agents against each other on duplicate deals, batched;
  :mod:`agents.stats` gives the tables' figures and their confidence intervals;
  :mod:`agents.evaluate` is the harness (``python -m agents.evaluate``: a round-robin or
  each agent against a bot, with OpenSkill ratings, a report and plots).
* :mod:`agents.exact` values small rule sets exactly: the whole game tree, best
  responses, NashConv, CFR+ (``python -m agents.exact``).
* The package re-exports the bots and the registry of :mod:`sto_odno_env.bots`
  (``agents.load`` is :func:`sto_odno_env.bots.registry.load`; ``agents.recommended``,
  the heuristic and search bots, ``save_policy``); the learned best response is
  ``python train/exploit.py``.

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
