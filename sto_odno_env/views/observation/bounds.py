"""The bounds of the observation's entries from a rule set (:func:`total_bounds`,
:func:`pending_bound`) and its Gymnasium space (:func:`observation_space`, which imports
gymnasium when called)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...game.rules import Rules, load_rules
from ...game.tables import compile_rules
from .fields import MAX_OTHERS, _encoding, obs_size

if TYPE_CHECKING:
    from gymnasium import spaces

_INT16, _INT32 = np.iinfo(np.int16), np.iinfo(np.int32)


def total_bounds(rules: Rules | str) -> tuple[int, int]:
    """The lowest and the highest total (points, not scaled) a seat can have under ``rules``
    (docs/rules.md §7, §12), the bounds of the ``others_total`` and ``own_total`` entries
    (divided by the target).

    Highest: a seat still in has at most ``target`` before a round, and one round adds at
    most every card of the deck at its highest points (or its bonus, under
    ``leftover_bonus``) times the largest multiplier, or the largest positive finish bonus
    (under ``bonus_combo`` once per decision of the round). Lowest: 0 when no card scores
    below zero; otherwise the rules set no floor (a finish bonus can be earned round after
    round, with the others never going out), so it is the lowest total the engine holds
    (its totals are int32).
    """
    tables = compile_rules(load_rules(rules))
    cards, target = tables.deck.cards, tables.target
    bonus = tables.bonus_points[:cards].astype(np.int64)
    per_card = np.maximum(tables.points.astype(np.int64), 0)
    if tables.leftover:  # subtract / single_adds score a bonus card by its bonus
        per_card = np.maximum(per_card, np.where(tables.bonus_card[:cards], np.abs(bonus), 0))
    hand = int(per_card.sum())
    multiplier = int(tables.bonus_multiplier.max())
    finish = max(0, int(bonus.max()))
    if tables.bonus_combo:  # one run entry per play; at most every decision plus the opening
        finish *= tables.max_turns + 1
    if tables.scope_total:
        high = max((target + hand) * multiplier, target + finish)
    else:
        high = target + max(hand * multiplier, finish)
    negative = int(tables.points_low.min()) < 0 or int(bonus.min()) < 0
    return (int(_INT32.min) if negative else 0), min(high, int(_INT32.max))


def pending_bound(rules: Rules | str) -> int:
    """The largest stacked penalty (cards, not scaled) under ``rules``: 0 without
    ``stacking``; with it every penalty card of the deck played into one chain, or, with
    ``last_card_call`` too (whose penalty draws can reshuffle a chain's cards back into
    play), the engine's int16 counter."""
    rules = load_rules(rules)
    tables = compile_rules(rules)
    if not tables.stacking:
        return 0
    if tables.call:
        return int(_INT16.max)
    return int(tables.draw[: tables.deck.cards].astype(np.int64).sum())


def _scalar_bounds(rules: Rules, hands: int, totals: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of a scalar block laid out as ``pending``, ``stock_size``, ``hands`` hand
    sizes, ``totals`` totals and ``num_players`` (the observation's and the state's). Hand
    sizes and the stock never exceed the deck; players / 6 is at most 1."""
    low_total, high_total = total_bounds(rules)
    target = rules.target
    # An upper bound of 0 (no stacking) would equal the lower one, which Gymnasium flags;
    # any positive bound holds, so one card's worth.
    pending = max(pending_bound(rules), 1) / rules.deck.cards
    low = [0.0, 0.0, *[0.0] * hands, *[low_total / target] * totals, 0.0]
    high = [pending, 1.0, *[1.0] * hands, *[high_total / target] * totals, 1.0]
    return np.array(low, dtype=np.float32), np.array(high, dtype=np.float32)


def observation_space(rules: Rules | str | None = None) -> spaces.Dict:
    """The observation space of every seat: the observation vector (``Box``) and the
    legal-action mask (the PettingZoo env's per-agent space; the Gymnasium envs use the
    ``"observation"`` entry). Sized and bounded for ``rules`` (the classic preset without
    it): 0/1 entries in [0, 1], the scalars within :func:`total_bounds`,
    :func:`pending_bound` and the deck, every bound finite."""
    from gymnasium import spaces  # for spaces only

    rules = load_rules("classic" if rules is None else rules)
    enc = _encoding(rules.deck)
    low = np.zeros(obs_size(rules), dtype=np.float32)
    high = np.ones(obs_size(rules), dtype=np.float32)
    # others_total and own_total are adjacent: MAX_OTHERS + 1 totals in a row
    low[enc.num_flags : enc.size], high[enc.num_flags : enc.size] = _scalar_bounds(
        rules, hands=MAX_OTHERS, totals=MAX_OTHERS + 1
    )
    return spaces.Dict(
        {
            "observation": spaces.Box(low=low, high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(rules.num_actions,), dtype=np.int8),
        }
    )
