"""Player counts as every agent loader refuses them: a count the rule set does not allow
is refused with one line naming the counts it does (``agents.load``,
``agents.recommended``, the trainers)."""

from __future__ import annotations

import functools

from ..game.rules import PRESETS, Rules, load_rules
from ..tools.errors import StoOdnoError


class PlayerCountError(StoOdnoError):
    """A player count the rule set does not allow."""


def allowed_span(rules: Rules) -> str:
    """The counts ``rules`` allows as people read them: ``2–6``."""
    low, high = rules.players
    return f"{low}–{high}" if low != high else str(low)


def rules_of(rules: Rules | str) -> Rules | None:
    """``rules`` as a rule set: a preset's by its name; ``None`` for another name (a
    variant known only by its name, as the policy index names rule sets)."""
    if isinstance(rules, Rules):
        return rules
    return _preset(rules) if rules in PRESETS else None


@functools.cache
def _preset(name: str) -> Rules:
    return load_rules(name)  # read once: every refusal and lookup asks again


def check_count(rules: Rules | str, players: int | None, who: str) -> None:
    """Raise :class:`PlayerCountError` unless ``rules`` allows ``players`` (``None``: not
    known yet, allowed). ``who`` starts the message (``agent 'expert'``)."""
    table = rules_of(rules)
    if players is None or table is None:
        return
    low, high = table.players
    if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
        raise PlayerCountError(
            f"{who}: {table.name} is played by {allowed_span(table)} players, not "
            f"{players!r}; allowed: {low}..{high}"
        )
