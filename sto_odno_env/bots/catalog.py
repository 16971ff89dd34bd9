"""Which trained policy plays which table: the index of the shipped policies.

``policies/index.yaml`` is the one source of truth. It names each policy file shipped in
``policies/`` (its rule set, the player counts it serves, a one-line model card), the file
that ``ppo-<rules>`` loads at each player count (the one measured strongest there), and
the rollout policy of the ``search`` bot where one was measured better. Every reader of
the policies (the registry, the terminal game, the web table, the strength table) asks
this module.

    >>> recommended("classic", 2)
    'ppo-classic-2p-long'
    >>> rule_set_alias("classic")
    'ppo-classic'
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..game.rules import Rules
from ..tools.errors import StoOdnoError
from .counts import check_count
from .rollout import OUTCOMES  # the ways a rollout scores a finished deal

POLICY_DIR = Path(__file__).resolve().parent / "policies"
INDEX = POLICY_DIR / "index.yaml"
INDEX_FORMAT = "sto-odno-policy-index"
ALIAS_PREFIX = "ppo-"


class PolicyIndexError(StoOdnoError):
    """``policies/index.yaml`` does not describe the files beside it."""


@dataclass(frozen=True)
class PolicyCard:
    """One shipped policy file: what it plays and how it was made."""

    name: str  # the file's stem, the name it loads by
    path: Path
    rules: str  # the rule set it was trained for
    players: tuple[int, ...]  # the player counts it serves
    card: str  # one line: the network and how it was trained


@dataclass(frozen=True)
class SearchDefault:
    """What ``search`` rolls out with at a table, and how it values the rollouts
    (``outcome="value"`` only with a policy that ships its critic)."""

    policy: str
    outcome: str = "table"


@dataclass(frozen=True)
class PolicyIndex:
    """The parsed index: the files, the recommended file per (rules, players), and the
    measured ``search`` defaults per (rules, players)."""

    cards: dict[str, PolicyCard]
    recommended: dict[str, dict[int, str]]
    search: dict[str, dict[int, SearchDefault]]


def _counts(value: object, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, int) for v in value):
        raise PolicyIndexError(
            f"{INDEX.name}: {where} must be a list of player counts, not {value!r}"
        )
    return tuple(value)


def parse_index(data: dict, policy_dir: Path = POLICY_DIR) -> PolicyIndex:
    """The index held in ``data`` (the YAML's mapping), checked against ``policy_dir``:
    every card names a file there, every choice names a card serving that count."""
    if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
        raise PolicyIndexError(f"{INDEX.name}: not a policy index (format {INDEX_FORMAT!r})")
    cards = {}
    for name, entry in (data.get("policies") or {}).items():
        # A trained network (.pt), or a table solved exactly (.npz, bots/tabular.py).
        path = next(
            (
                policy_dir / f"{name}{suffix}"
                for suffix in (".pt", ".npz")
                if (policy_dir / f"{name}{suffix}").is_file()
            ),
            policy_dir / f"{name}.pt",
        )
        if not path.is_file():
            raise PolicyIndexError(f"{INDEX.name}: policy {name!r} has no file {path.name}")
        cards[name] = PolicyCard(
            name=name,
            path=path,
            rules=str(entry["rules"]),
            players=_counts(entry["players"], f"{name}.players"),
            card=str(entry["card"]),
        )
    recommended: dict[str, dict[int, str]] = {}
    for rules, choices in (data.get("recommended") or {}).items():
        for players, name in choices.items():
            card = cards.get(name)
            if card is None or card.rules != rules or players not in card.players:
                raise PolicyIndexError(
                    f"{INDEX.name}: recommended {rules} at {players} players is {name!r}, "
                    f"which is not a policy of {rules} serving {players} players"
                )
        recommended[str(rules)] = {int(p): str(n) for p, n in sorted(choices.items())}
    search: dict[str, dict[int, SearchDefault]] = {}
    for rules, tables in (data.get("search") or {}).items():
        search[str(rules)] = {}
        for players, entry in sorted(tables.items()):
            default = SearchDefault(str(entry["policy"]), str(entry.get("outcome", "table")))
            if default.policy not in cards or default.outcome not in OUTCOMES:
                raise PolicyIndexError(
                    f"{INDEX.name}: search at {rules} {players}p names {default}; allowed: "
                    f"a policy of the index and an outcome of {', '.join(OUTCOMES)}"
                )
            search[str(rules)][int(players)] = default
    return PolicyIndex(cards, recommended, search)


@functools.cache
def index() -> PolicyIndex:
    """The index of the shipped policies (read once)."""
    with INDEX.open(encoding="utf-8") as handle:
        return parse_index(yaml.safe_load(handle))


def policy_cards() -> dict[str, PolicyCard]:
    """The shipped policy files by name."""
    return index().cards


def _rules_name(rules: Rules | str) -> str:
    return rules.name if isinstance(rules, Rules) else str(rules)


def rule_set_alias(rules: Rules | str) -> str:
    """The name that loads the recommended policy of ``rules``: ``ppo-<rules>``."""
    return f"{ALIAS_PREFIX}{_rules_name(rules)}"


def aliases() -> dict[str, str]:
    """``ppo-<rules>`` -> the rule set, for every rule set with a recommended policy."""
    return {rule_set_alias(rules): rules for rules in index().recommended}


def recommended(rules: Rules | str, players: int) -> str | None:
    """The shipped policy measured best for ``rules`` (a rule set or its name) at
    ``players``, or ``None`` where none serves that table. A count the rule set does not
    allow is refused (:class:`~sto_odno_env.bots.counts.PlayerCountError`), naming the
    counts it does."""
    check_count(rules, players, f"recommended({_rules_name(rules)!r}, {players!r})")
    return index().recommended.get(_rules_name(rules), {}).get(players)


def served_counts(name: str) -> tuple[int, ...]:
    """The player counts a policy name serves: an alias (``ppo-classic``) every count it
    has a recommended policy for, a file's name its card's counts; ``()`` for other names."""
    rules = aliases().get(name)
    if rules is not None:
        return tuple(index().recommended[rules])
    card = policy_cards().get(name)
    return card.players if card else ()


def count_span(counts: tuple[int, ...] | list[int]) -> str:
    """Player counts as people read them: ``2–6`` for a run, ``6`` for one, else
    ``2, 4``."""
    counts = sorted(counts)
    if len(counts) > 1 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}–{counts[-1]}"
    return ", ".join(map(str, counts))


def search_default(rules: Rules | str, players: int | None) -> SearchDefault | None:
    """``search``'s measured default at the table, or ``None`` where none was measured."""
    if players is None:
        return None
    return index().search.get(_rules_name(rules), {}).get(players)
