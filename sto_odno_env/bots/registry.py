"""``agents.load(name, rules=..., players=...)``: an agent by name or checkpoint path.

Names: ``random``, ``greedy``, ``expert``, ``rollout``, ``search``; ``rollout`` takes its
budget as ``rollout:samples=16,horizon=20`` (also ``margin`` and ``outcome``: ``table``,
``standing`` or ``value``), ``search`` (policy-guided,
belief-weighted: :mod:`sto_odno_env.bots.search`) the same and ``pool``, ``floor``, ``policy`` and
``model`` (agent names), e.g. ``search:samples=8,policy=expert``.

Trained policies: ``ppo-<rules>`` (``ppo-classic``, ``ppo-yard``, ``ppo-nines``,
``ppo-encyclopedia``, ``ppo-ukrainian``) is the recommended policy of that rule set, the one
measured best at the player count it is loaded for; each file shipped in
``sto_odno_env/bots/policies/`` also loads by its own name (``ppo-classic-first``, ...:
:data:`SHIPPED`). :mod:`sto_odno_env.bots.catalog` reads which is which from
``policies/index.yaml``.
Anything else is a checkpoint path (``.pt`` policy file or SB3 ``.zip``, see
:mod:`sto_odno_env.bots.checkpoint`); a policy trained for other rules or another player count is
refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..game.rules import Rules, load_rules
from . import catalog
from .checkpoint import CheckpointError
from .checkpoint import load as load_checkpoint
from .counts import PlayerCountError, check_count
from .heuristic import ExpertAgent, GreedyAgent, RandomAgent
from .names import (
    BOT_NAMES,
    PATH_WORDS,
    AgentError,
    agent_names,
    check_plays,
    policy_names,
    shipped_file,
    shipped_files,
)
from .policy import BasePolicy
from .rollout import RolloutAgent
from .search import SearchAgent

BOTS = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expert": ExpertAgent,
    "rollout": RolloutAgent,
    "search": SearchAgent,
}
assert tuple(BOTS) == BOT_NAMES  # names.py lists them without importing the bots
_ROLLOUT_PARAMS = {"samples": int, "horizon": int, "margin": float, "outcome": str}
_PARAMS = {
    "rollout": _ROLLOUT_PARAMS,
    "search": {**_ROLLOUT_PARAMS, "pool": int, "floor": float, "policy": str, "model": str},
}


shipped_policies = shipped_files  # the name it had before bots/names.py
SHIPPED = shipped_files()


def search_policy_name(rules: Rules, players: int | None) -> str:
    """The rollout policy of ``search`` by default: the one the index measured best inside
    the search at the table (:func:`catalog.search_default`), else the rule set's
    recommended policy there, else ``expert`` (none shipped, or the player count is not
    known)."""
    if players is None:
        return "expert"
    measured = catalog.search_default(rules, players)
    if measured is not None:
        return measured.policy
    return catalog.recommended(rules, players) or "expert"


def load(
    name: str,
    rules: Rules | str = "classic",
    players: int | None = None,
    seed: int | None = 0,
) -> BasePolicy:
    """The agent called ``name`` (see the module docstring), set up for ``rules``."""
    rules = load_rules(rules)
    try:  # a bot or a file at a table its rules do not allow is refused like a policy
        check_count(rules, players, f"agent {name!r}")
    except PlayerCountError as error:
        raise AgentError(str(error)) from None
    base, _, params = name.partition(":")
    if base == "text":  # text:module:function, a prompt -> answer callable (docs/text.md)
        from .text_agent import TextAgentError, load_text_agent

        try:
            return load_text_agent(params, rules)
        except TextAgentError as error:
            raise AgentError(str(error)) from None
    if base in BOTS:
        kwargs = _parse_params(name, base, params)
        if base == "search":  # its rollout policy and opponent model, by name
            if "policy" not in kwargs and "outcome" not in kwargs:
                default = catalog.search_default(rules, players)
                kwargs.update({"outcome": default.outcome} if default else {})
            policy = kwargs.get("policy") or search_policy_name(rules, players)
            kwargs["policy"] = load(policy, rules, players, seed=seed)
            if "model" in kwargs:
                kwargs["model"] = load(kwargs["model"], rules, players, seed=seed)
        try:
            return BOTS[base](rules, players, seed=seed, **kwargs)
        except ValueError as error:
            raise AgentError(f"agent {name!r}: {error}") from None
    if base in policy_names():
        if params:
            raise AgentError(f"agent {name!r}: a trained policy takes no parameters")
        file = shipped_file(base, players)
        check_plays(base, file, rules)
        name = str(SHIPPED[file])
    if Path(name).suffix in (".pt", ".zip") or Path(name).exists() or "/" in name:
        try:
            return load_checkpoint(name, rules, players)
        except CheckpointError as error:
            raise AgentError(str(error)) from None
    raise AgentError(
        f"unknown agent {name!r}; allowed: {', '.join(agent_names())} "
        "(rollout:samples=N,horizon=N,margin=X; search:samples=N,...,policy=NAME) or "
        f"{PATH_WORDS}"
    )


def _parse_params(name: str, base: str, params: str) -> dict:
    if not params:
        return {}
    if base not in _PARAMS:
        raise AgentError(f"agent {name!r}: only {' and '.join(_PARAMS)} take parameters")
    allowed = _PARAMS[base]
    kwargs = {}
    for item in params.split(","):
        key, _, value = item.partition("=")
        if key not in allowed or not value:
            raise AgentError(
                f"agent {name!r}: bad parameter {item!r}; allowed: "
                f"{', '.join(k + '=...' for k in allowed)}"
            )
        try:
            kwargs[key] = allowed[key](value)
        except ValueError:
            kind = "an integer" if allowed[key] is int else "a number"  # str never fails
            raise AgentError(f"agent {name!r}: {key}={value!r} is not {kind}") from None
    return kwargs


def split_agent_names(text: str) -> list[str]:
    """The agent names of a comma-separated list, where a name's own parameters are
    separated by commas too: ``"rollout:samples=8,horizon=6,expert"`` is
    ``["rollout:samples=8,horizon=6", "expert"]``. A ``key=value`` piece continues the
    parameters of the name before it when that name has some."""
    names: list[str] = []
    for piece in (piece.strip() for piece in text.split(",")):
        if not piece:
            continue
        if names and ":" in names[-1] and re.fullmatch(r"[a-z_]+=[^/:]*", piece):
            names[-1] += "," + piece
        else:
            names.append(piece)
    return names


def resolve_opponents(opponents: Any, rules: Any, players: int) -> Any:
    """``opponents`` with every registry name (``"expert"``, ``"rollout:samples=8"``, a
    checkpoint path) replaced by that agent, loaded for ``rules`` and ``players``.

    Raises :class:`AgentError` (a ``ValueError``) for a name that is not an agent.
    """

    def resolve(item: Any) -> Any:
        if not isinstance(item, str):
            return item
        return load(item, rules, players)

    if isinstance(opponents, str):
        return resolve(opponents)
    if isinstance(opponents, list | tuple):
        return [resolve(item) for item in opponents]
    return opponents
