"""Exact game values of small rule sets (docs/evaluation.md, "Exact values").

For a rule set whose whole game tree fits in memory (``micro``: 87,017 histories), the
tree is expanded by the kit's engine (:func:`build_tree`) and every figure is exact:

>>> from agents.exact import build_tree, evaluate
>>> report = evaluate(["expert"], "micro")
>>> report.nash_conv, report.gains                            # doctest: +SKIP

* :func:`evaluate`: each seat's value under a table of agents, each seat's best-response
  value against the others, the gains, NashConv and exploitability (OpenSpiel's
  conventions: NashConv is the sum of the gains, exploitability NashConv / players);
* :func:`~agents.exact.cfr.solve`: CFR+ over the tree, its NashConv curve;
* :func:`~agents.exact.efg.to_efg`: the tree in Gambit's EFG format, which OpenSpiel's
  ``pyspiel.load_efg_game`` reads (the tests compare its values with ours).

``python -m agents.exact`` is the command (``--help``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sto_odno_env.bots.policy import Policy
from sto_odno_env.bots.registry import load
from sto_odno_env.game.rules import Rules, load_rules

from .cfr import CFRResult, solve
from .efg import to_efg, write_efg
from .profiles import agent_profile, table_profile
from .tree import (
    DEFAULT_MAX_NODES,
    ExactError,
    GameTree,
    NotEnumerable,
    TreeTooLarge,
    build_tree,
)
from .values import Exploitability, best_response, exploitability, uniform_profile


def evaluate(
    agents: Sequence[str | Policy],
    rules: Rules | str = "micro",
    players: int = 2,
    *,
    tree: GameTree | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Exploitability:
    """The exact figures of a table: one agent for every seat (self-play) or one per seat,
    each a name :func:`agents.load` knows or a policy object."""
    rules = load_rules(rules)
    tree = tree or build_tree(rules, players, max_nodes=max_nodes)
    policies = [load(a, rules, players) if isinstance(a, str) else a for a in agents]
    return exploitability(tree, table_profile(tree, policies))


__all__ = [
    "DEFAULT_MAX_NODES",
    "CFRResult",
    "ExactError",
    "Exploitability",
    "GameTree",
    "NotEnumerable",
    "TreeTooLarge",
    "agent_profile",
    "best_response",
    "build_tree",
    "evaluate",
    "exploitability",
    "solve",
    "table_profile",
    "to_efg",
    "uniform_profile",
    "write_efg",
]
