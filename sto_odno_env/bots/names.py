"""The one resolver of agent and policy names: what ``expert``, ``ppo-classic`` or
``ppo-classic-first`` mean, wherever a name is taken (``agents.load``, the trainers'
``warm_start`` / ``--warm-start`` / ``--policy``, the training config's check, the
``--help`` of ``agents.evaluate`` and ``sto_odno_env.play``, the web table).

A name is a bot (:data:`BOT_NAMES`), a rule set's recommended policy (``ppo-<rules>``:
the file measured best at each player count, :mod:`sto_odno_env.bots.catalog`), a shipped
policy file's name (its stem), or a path to a policy file.

    >>> agent_names()[:3]
    ['random', 'greedy', 'expert']
"""

from __future__ import annotations

from pathlib import Path

from ..game.rules import Rules
from ..tools.cli import plural
from ..tools.errors import StoOdnoError
from . import catalog
from .counts import PlayerCountError, allowed_span, rules_of

BOT_NAMES = ("random", "greedy", "expert", "rollout", "search")
PATH_WORDS = "a policy file (.pt, or an SB3 .zip)"


class AgentError(StoOdnoError):
    """An agent name or specification that cannot be loaded."""


def shipped_files() -> dict[str, Path]:
    """The shipped policy files by name (``policies/index.yaml``)."""
    return {name: card.path for name, card in catalog.policy_cards().items()}


def policy_names() -> list[str]:
    """Every policy name: each rule set's recommended policy (``ppo-classic``, ...), then
    the shipped files' names (``ppo-yard`` is both: listed once)."""
    return list(dict.fromkeys([*catalog.aliases(), *catalog.policy_cards()]))


def agent_names() -> list[str]:
    """Every name an agent loads by: the bots, then :func:`policy_names`."""
    return [*BOT_NAMES, *policy_names()]


def names_help() -> str:
    """The names in words, for ``--help`` texts and refusals."""
    return f"{', '.join(agent_names())} or {PATH_WORDS}"


def is_policy_name(name: object) -> bool:
    """Whether ``name`` names a policy: a shipped one by name, or a ``.pt`` file."""
    return isinstance(name, str) and (name in policy_names() or name.endswith(".pt"))


def shipped_file(name: str, players: int | None) -> str:
    """The shipped file a policy name loads at ``players``: ``ppo-<rules>`` its rule set's
    recommended file there, a file's name itself. Raises :class:`AgentError` when a
    recommended policy is asked without a count or at one no file serves."""
    alias_rules = catalog.aliases().get(name)
    if alias_rules is None:
        return name
    span = catalog.count_span(catalog.served_counts(name))
    if players is None:
        raise AgentError(
            f"agent {name!r} is the recommended {alias_rules} policy of each player count: "
            f"give the player count ({span})"
        )
    try:
        chosen = catalog.recommended(alias_rules, players)
    except PlayerCountError as error:
        raise AgentError(f"agent {name!r}: {error}") from None
    if chosen is None:
        raise AgentError(
            f"agent {name!r} plays {alias_rules} at {span} players, not {players}; no shipped "
            f"policy plays {alias_rules} at {plural(players, 'player')} (the bots do: "
            f"{', '.join(BOT_NAMES)})"
        )
    return chosen


def policy_path(name: str, players: int | None) -> Path:
    """The file a policy name stands for at ``players`` (a shipped name's file, else the
    path itself). What a warm start or a distillation starts from."""
    if name in policy_names():
        return shipped_files()[shipped_file(name, players)]
    return Path(name)


def check_plays(name: str, file: str, rules: Rules) -> None:
    """Refuse (:class:`AgentError`) the shipped ``file`` that ``name`` loads when it was
    trained for other rules than ``rules``, naming the policy that plays them."""
    from .checkpoint import plays_alike

    card = catalog.policy_cards()[file]
    trained = rules_of(card.rules)
    if trained is None or plays_alike(trained, rules) or trained.name == rules.name:
        return  # the same name, other rules: the loader names the keys that differ
    raise AgentError(f"agent {name!r} plays {card.rules}, not {rules.name}; {policy_for(rules)}")


def policy_for(rules: Rules) -> str:
    """Which shipped policy plays ``rules``, in words (for refusals)."""
    from .checkpoint import plays_alike

    alias = catalog.rule_set_alias(rules)
    own = rules_of(catalog.aliases().get(alias, ""))
    if own is not None and plays_alike(own, rules):
        counts = catalog.count_span(catalog.served_counts(alias))
        return f"the {rules.name} policy is {alias} ({counts} players)"
    alike = []
    for other, card in catalog.policy_cards().items():
        trained = rules_of(card.rules)
        if trained is not None and plays_alike(trained, rules):
            alike.append(other)
    if alike:
        return f"{', '.join(alike)} play {rules.name}"
    return (
        f"no shipped policy plays {rules.name} (the bots do, at {allowed_span(rules)} "
        f"players: {', '.join(BOT_NAMES)})"
    )
