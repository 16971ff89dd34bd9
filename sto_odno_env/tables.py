"""A rule set compiled into per-card lookup tables for the engine.

Every rule the engine applies is a lookup in these tables or a flag read from them, so the
engine never branches on a preset's name. Card sets are 36-bit masks in ``uint64`` (bit ``c``
is card ``c``). Tables indexed by a card have one extra entry, ``NO_CARD = 36``, for "no card"
(an empty table under ``leader_plays``, a round won by a steal).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

from .cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, QUEEN, rank_of, suit_of
from .rules import Rules

NO_CARD = NUM_CARDS
ALL_CARDS = np.uint64((1 << NUM_CARDS) - 1)
CARD_BIT = np.array([1 << c for c in range(NUM_CARDS)] + [0], dtype=np.uint64)
SUIT_MASK = np.array(
    [sum(1 << (s * NUM_RANKS + r) for r in range(NUM_RANKS)) for s in range(NUM_SUITS)],
    dtype=np.uint64,
)
RANK_MASK = np.array(
    [sum(1 << (s * NUM_RANKS + r) for s in range(NUM_SUITS)) for r in range(NUM_RANKS)],
    dtype=np.uint64,
)


@dataclasses.dataclass(frozen=True, eq=False)
class RuleTables:
    """Lookup tables and flags of one rule set (see module docstring)."""

    rules: Rules
    draw: np.ndarray  # (37,) int16: cards the next player takes
    skip: np.ndarray  # (37,) bool
    cover: np.ndarray  # (37,) bool
    order_suit: np.ndarray  # (37,) bool
    points: np.ndarray  # (36,) int32: points of a card left in hand
    bonus_points: np.ndarray  # (37,) int32: the finisher's score for a last card
    bonus_multiplier: np.ndarray  # (37,) int32: multiplier of the others' points
    playable: np.ndarray  # (37, 5) uint64: [top, ordered_suit + 1] -> playable cards
    respond: np.ndarray  # (37,) uint64: cards that may be stacked onto a penalty card
    hand_size: int
    target: int
    max_turns: int
    leader_plays: bool
    until_playable: bool
    voluntary_draw: bool
    after_draw_any: bool
    flip: bool
    steal: bool
    stacking: bool
    last_card_effects: bool
    cover_can_finish: bool
    reset_at_target: bool
    first_loser: bool


@lru_cache(maxsize=64)
def compile_rules(rules: Rules) -> RuleTables:
    """Compile a rule set into :class:`RuleTables` (cached per rule set)."""
    effects = [rules.effect_of(c) for c in range(NUM_CARDS)]
    bonuses = [rules.bonus_of(c) for c in range(NUM_CARDS)]

    def per_card(values, dtype, none_value):
        return np.array([*list(values), none_value], dtype=dtype)

    wild = sum(1 << c for c, e in enumerate(effects) if e.wild)
    playable = np.zeros((NUM_CARDS + 1, NUM_SUITS + 1), dtype=np.uint64)
    for top in range(NUM_CARDS):
        playable[top, 0] = SUIT_MASK[suit_of(top)] | RANK_MASK[rank_of(top)] | np.uint64(wild)
        for suit in range(NUM_SUITS):
            # RULES.md §2: with a suit ordered, that suit or any queen may be played.
            playable[top, suit + 1] = SUIT_MASK[suit] | RANK_MASK[QUEEN]
    playable[NO_CARD, :] = ALL_CARDS  # leader_plays: any card opens the round

    penalty_cards = sum(1 << c for c, e in enumerate(effects) if e.draw > 0)
    respond = np.zeros(NUM_CARDS + 1, dtype=np.uint64)
    if rules.stacking:
        for card in range(NUM_CARDS):
            if effects[card].draw > 0:
                respond[card] = RANK_MASK[rank_of(card)] & np.uint64(penalty_cards)

    return RuleTables(
        rules=rules,
        draw=per_card((e.draw for e in effects), np.int16, 0),
        skip=per_card((e.skip for e in effects), bool, False),
        cover=per_card((e.cover for e in effects), bool, False),
        order_suit=per_card((e.order_suit for e in effects), bool, False),
        points=np.array([rules.points_of(c) for c in range(NUM_CARDS)], dtype=np.int32),
        bonus_points=per_card((b.points for b in bonuses), np.int32, 0),
        bonus_multiplier=per_card((b.multiplier for b in bonuses), np.int32, 1),
        playable=playable,
        respond=respond,
        hand_size=rules.hand_size,
        target=rules.target,
        max_turns=rules.max_turns,
        leader_plays=rules.opening == "leader_plays",
        until_playable=rules.draw_rule == "until_playable",
        voluntary_draw=rules.voluntary_draw,
        after_draw_any=rules.after_draw == "any_card",
        flip=rules.reshuffle == "flip",
        steal=rules.empty_stock == "steal",
        stacking=rules.stacking,
        last_card_effects=rules.last_card_effects,
        cover_can_finish=rules.cover_can_finish,
        reset_at_target=rules.reset_at_target,
        first_loser=rules.match_end == "first_loser",
    )
