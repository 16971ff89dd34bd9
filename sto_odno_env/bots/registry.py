"""``agents.load(name, rules=..., players=...)``: an agent by name or checkpoint path.

Names: ``random``, ``greedy``, ``expert``, ``rollout``, ``search``; ``rollout`` takes its
budget as ``rollout:samples=16,horizon=20`` (also ``margin`` and ``outcome``: ``table``,
``standing`` or ``value``), ``search`` (policy-guided,
belief-weighted: :mod:`sto_odno_env.bots.search`) the same and ``pool``, ``floor``, ``policy`` and
``model`` (agent names), e.g. ``search:samples=8,policy=expert``. The trained policies shipped in
``sto_odno_env/bots/policies/`` load by their name (``ppo-classic-2p``, ...: :data:`SHIPPED`).
Anything else is a checkpoint path (``.pt`` policy file or SB3 ``.zip``, see
:mod:`sto_odno_env.bots.checkpoint`); a policy trained for other rules or another player count is
refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from ..game.rules import Rules, load_rules
from .checkpoint import CheckpointError
from .checkpoint import load as load_checkpoint
from .heuristic import ExpertAgent, GreedyAgent, RandomAgent
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
_ROLLOUT_PARAMS = {"samples": int, "horizon": int, "margin": float, "outcome": str}
_PARAMS = {
    "rollout": _ROLLOUT_PARAMS,
    "search": {**_ROLLOUT_PARAMS, "pool": int, "floor": float, "policy": str, "model": str},
}
POLICY_DIR = Path(__file__).resolve().parent / "policies"


def shipped_policies() -> dict[str, Path]:
    """The trained policies shipped with the package: name -> policy file."""
    return {path.stem: path for path in sorted(POLICY_DIR.glob("*.pt"))}


SHIPPED = shipped_policies()


def shipped_counts(name: str) -> list[int]:
    """The player counts a shipped policy was trained for, as its file records them
    (empty for a file that records none)."""
    from .checkpoint import read

    return [int(count) for count in read(SHIPPED[name]).get("players") or []]


class SearchDefault(NamedTuple):
    """What ``search`` rolls out with at a table by default, and how it values the
    rollouts: ``outcome="value"`` only with a ``policy`` that ships its critic."""

    policy: str
    outcome: str = "table"


# ``search``'s defaults where a table was measured better than the naming rule's choice
# (docs/evaluation.md, duplicate matches against experts). Heads-up, the best shipped
# policy's rollouts beat it 0.567 where ``ppo-classic-2p``'s beat it 0.530 (2,000
# matches). At 4 players ``ppo-classic-first``'s rollouts take first place 0.382 where
# ``ppo-classic-4p``'s take 0.346, and valued by its own critic 0.414 (2,000 matches); at 6
# players the same 0.267 against 0.243 for ``ppo-classic``'s rollouts valued by the table
# (2,400 matches), at 5 players 0.344 against 0.277 (2,400 matches); at 3 players 0.518
# against 0.496 (1,200 matches).
SEARCH_DEFAULTS: dict[tuple[str, int], SearchDefault] = {
    ("classic", 2): SearchDefault("ppo-classic-2p-long"),
    ("classic", 3): SearchDefault("ppo-classic-first", "value"),
    ("classic", 4): SearchDefault("ppo-classic-first", "value"),
    ("classic", 5): SearchDefault("ppo-classic-first", "value"),
    ("classic", 6): SearchDefault("ppo-classic-first", "value"),
}


def search_policy_name(rules: Rules, players: int | None) -> str:
    """The rollout policy of ``search`` by default: the one :data:`SEARCH_DEFAULTS` names
    for the table, else the shipped policy trained for ``rules`` at exactly ``players``
    (``ppo-classic-2p``, ...), else the rule set's policy for every count where it claims
    ``players`` (``ppo-classic``, ``ppo-yard``, ...), else ``expert`` (none shipped, or the
    player count is not known)."""
    if players is None:
        return "expert"
    measured = SEARCH_DEFAULTS.get((rules.name, players))
    preferred = measured.policy if measured else None
    for name in (preferred, f"ppo-{rules.name}-{players}p", f"ppo-{rules.name}"):
        if name in SHIPPED and players in shipped_counts(name):
            return name
    return "expert"


class AgentError(ValueError):
    """An agent name or specification that cannot be loaded."""


def load(
    name: str,
    rules: Rules | str = "classic",
    players: int | None = None,
    seed: int | None = 0,
) -> BasePolicy:
    """The agent called ``name`` (see the module docstring), set up for ``rules``."""
    rules = load_rules(rules)
    base, _, params = name.partition(":")
    if base in BOTS:
        kwargs = _parse_params(name, base, params)
        if base == "search":  # its rollout policy and opponent model, by name
            if "policy" not in kwargs and "outcome" not in kwargs:
                default = SEARCH_DEFAULTS.get((rules.name, players))
                kwargs.update({"outcome": default.outcome} if default else {})
            policy = kwargs.get("policy") or search_policy_name(rules, players)
            kwargs["policy"] = load(policy, rules, players, seed=seed)
            if "model" in kwargs:
                kwargs["model"] = load(kwargs["model"], rules, players, seed=seed)
        try:
            return BOTS[base](rules, players, seed=seed, **kwargs)
        except ValueError as error:
            raise AgentError(f"agent {name!r}: {error}") from None
    if base in SHIPPED and not params:
        name = str(SHIPPED[base])
    if Path(name).suffix in (".pt", ".zip") or Path(name).exists() or "/" in name:
        try:
            return load_checkpoint(name, rules, players)
        except CheckpointError as error:
            raise AgentError(str(error)) from None
    raise AgentError(
        f"unknown agent {name!r}; allowed: {', '.join([*BOTS, *SHIPPED])} "
        "(rollout:samples=N,horizon=N,margin=X; search:samples=N,...,policy=NAME) or a "
        "checkpoint path (.pt policy file or "
        "SB3 .zip)"
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
            raise AgentError(
                f"agent {name!r}: {key}={value!r} is not a {allowed[key].__name__}"
            ) from None
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
