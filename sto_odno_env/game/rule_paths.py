"""``--set`` paths into a rules mapping: ``effects.Q.wild=false`` (the record command's
``--set``, docs/rules.md §11), each rank or card segment matched by meaning."""

from __future__ import annotations

from typing import Any

from .rule_values import SWITCH_DEFAULTS, RulesError, canonical_key, lenient_deck


def set_path(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``effects.Q.wild`` style paths in a rules mapping (used by ``--set``).

    Rank and card segments are matched by meaning (``KS`` finds ``K♠``); a missing effect or
    bonus entry is created empty first, so ``finish_bonus.K♠.points=-50`` adds a bonus.
    """
    parts = dotted.split(".")
    deck = lenient_deck(data.get("deck", SWITCH_DEFAULTS["deck"]))
    if not all(parts):
        raise RulesError(f"--set {dotted!r}: empty segment in the key path")
    node: Any = data
    for depth, part in enumerate(parts[:-1]):
        if not isinstance(node, dict):
            raise RulesError(f"--set {dotted!r}: {'.'.join(parts[:depth])} is not a mapping")
        if depth == 1 and parts[0] in ("effects", "finish_bonus", "points"):
            canonical = canonical_key(part, parts[0], deck=deck)
            for existing in list(node):
                if canonical_key(existing, parts[0], deck=deck) == canonical:
                    node[canonical] = node.pop(existing)
            part = canonical
            node.setdefault(part, {})
        elif part not in node:
            raise RulesError(
                f"--set {dotted!r}: unknown key {part!r}; allowed: {', '.join(map(str, node))}"
            )
        node = node[part]
    if not isinstance(node, dict):
        raise RulesError(f"--set {dotted!r}: {'.'.join(parts[:-1])} is not a mapping")
    last = parts[-1]
    if len(parts) == 2 and parts[0] in ("effects", "finish_bonus", "points"):
        canonical = canonical_key(last, parts[0], deck=deck)
        for existing in list(node):
            if canonical_key(existing, parts[0], deck=deck) == canonical:
                del node[existing]
        last = canonical
    node[last] = value
