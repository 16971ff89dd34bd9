"""A rule set compiled into per-card lookup tables for the engine.

Every rule the engine applies is a lookup in these tables or a flag read from them, so the
engine never branches on a preset's name. Card sets are 36-bit masks in ``uint64`` (bit ``c``
is card ``c``). Tables indexed by a card have one extra entry, ``NO_CARD = 36``, for "no card"
(an empty table under ``leader_plays``, a round won by a steal). Card, action and phase ids
come from :mod:`sto_odno_env.cards`.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

from .cards import (
    CALL,
    DRAW,
    NO_CARD,
    NUM_CARDS,
    NUM_PHASES,
    NUM_RANKS,
    NUM_SUITS,
    ORDER_ACTIONS,
    PASS,
    PHASE_AFTER_DRAW,
    PHASE_CALL,
    PHASE_COVER,
    PHASE_ORDER,
    PHASE_PLAY,
    PHASE_RESPOND,
    QUEEN,
    rank_of,
    suit_of,
)
from .rules import LEFTOVER_BONUSES, Rules

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
    phase_after_play: np.ndarray  # (37,) int8: PHASE_ORDER, PHASE_COVER or PHASE_PLAY
    passes_turn: np.ndarray  # (37,) bool: the turn passes at once after the card
    points: np.ndarray  # (36,) int32: points of a card left in hand
    bonus_points: np.ndarray  # (37,) int32: the finisher's score for a last card
    bonus_multiplier: np.ndarray  # (37,) int32: multiplier of the others' points
    playable: np.ndarray  # (37, 5) uint64: [top, ordered suit (4: none)] -> playable cards
    respond: np.ndarray  # (37,) uint64: cards that may be stacked onto a penalty card
    drawn_filter: np.ndarray  # (37,) uint64: [drawn card] -> cards AFTER_DRAW may play
    extra_actions: np.ndarray  # (7 * 8,) uint64: non-card actions, see _extra_actions
    extra_base: np.ndarray  # (7 * 37,) intp: [phase * 37 + top] -> extra_key without
    #   has_card (and without can_draw unless the rules steal: a draw is always possible)
    legal_by_situation: np.ndarray  # (7 * 37 * 8,) uint64: the legal cards, indexed
    #   [(phase * 37 + top) * 8 + (ordered suit & 7)] (no ordered suit, -1, lands on 7)
    can_finish: np.ndarray  # (37,) bool: a card that empties the hand ends the round
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
    # §12 scoring switches. ``scoring_extras`` is False when all are off: the round end then
    # takes the plain path of docs/rules.md §7 and none of the tables below is read.
    scoring_extras: bool
    points_low: np.ndarray  # (36,) int32: ``low`` of a [low, high] pair, else = points
    pair_cards: np.ndarray  # (K,) intp: cards with low < high, largest high - low first
    pair_savings: np.ndarray  # (K,) int32: their high - low
    holder_mask: np.uint64  # holder_wins: cards whose holder scores 0 at a round's end
    scope_total: bool  # multiplier_scope total: a multiplier multiplies old total + points
    bonus_combo: bool  # the finisher's final run of bonus-card plays adds up (State.combo_*)
    bonus_card: np.ndarray  # (37,) bool: the card has a finish_bonus entry (even {})
    leftover: int  # leftover_bonus: LEFTOVER_BONUSES.index (0 ordinary, 1 subtract, 2 single)
    # §12 last_card_call: a play that leaves one card gives its player a CALL decision
    call: bool
    call_penalty: int  # cards drawn at once by a player who passes in CALL
    num_actions: int  # 42, or 43 with the call


@lru_cache(maxsize=64)
def compile_rules(rules: Rules) -> RuleTables:
    """Compile a rule set into :class:`RuleTables` (cached per rule set)."""
    effects = [rules.effect_of(c) for c in range(NUM_CARDS)]
    bonuses = [rules.bonus_of(c) for c in range(NUM_CARDS)]

    def per_card(values, dtype, none_value):
        return np.array([*list(values), none_value], dtype=dtype)

    wild = sum(1 << c for c, e in enumerate(effects) if e.wild)
    # The last ordered-suit column is "none", so ordered_suit == -1 indexes it directly.
    playable = np.zeros((NUM_CARDS + 1, NUM_SUITS + 1), dtype=np.uint64)
    for top in range(NUM_CARDS):
        playable[top, NUM_SUITS] = (
            SUIT_MASK[suit_of(top)] | RANK_MASK[rank_of(top)] | np.uint64(wild)
        )
        for suit in range(NUM_SUITS):
            # docs/rules.md §2: with a suit ordered, that suit or any queen may be played.
            playable[top, suit] = SUIT_MASK[suit] | RANK_MASK[QUEEN]
    playable[NO_CARD, :] = ALL_CARDS  # leader_plays: any card opens the round

    penalty_cards = sum(1 << c for c, e in enumerate(effects) if e.draw > 0)
    respond = np.zeros(NUM_CARDS + 1, dtype=np.uint64)
    if rules.stacking:
        for card in range(NUM_CARDS):
            if effects[card].draw > 0:
                respond[card] = RANK_MASK[rank_of(card)] & np.uint64(penalty_cards)

    legal_cards = np.zeros((NUM_PHASES, NUM_CARDS + 1, NUM_SUITS + 1), dtype=np.uint64)
    for phase in (PHASE_PLAY, PHASE_AFTER_DRAW, PHASE_COVER):
        legal_cards[phase] = playable
    legal_cards[PHASE_RESPOND] = respond[:, None]
    if rules.after_draw == "any_card":
        drawn_filter = np.full(NUM_CARDS + 1, ALL_CARDS, dtype=np.uint64)
    else:
        drawn_filter = CARD_BIT.copy()
        drawn_filter[NO_CARD] = ALL_CARDS  # outside AFTER_DRAW nothing is drawn

    points = np.array([rules.points_of(c) for c in range(NUM_CARDS)], dtype=np.int32)
    points_low = np.array([rules.points_range(c)[0] for c in range(NUM_CARDS)], np.int32)
    savings = points - points_low
    # Stable: equal savings keep id order (only the sums matter).
    pair_cards = np.argsort(-savings, kind="stable")[: int((savings > 0).sum())].astype(np.intp)

    holder_mask = np.uint64(sum(1 << c for c in range(NUM_CARDS) if rules.holds_to_win(c)))

    return RuleTables(
        rules=rules,
        draw=per_card((e.draw for e in effects), np.int16, 0),
        skip=per_card((e.skip for e in effects), bool, False),
        cover=per_card((e.cover for e in effects), bool, False),
        order_suit=per_card((e.order_suit for e in effects), bool, False),
        phase_after_play=per_card(
            (
                PHASE_ORDER if e.order_suit else PHASE_COVER if e.cover else PHASE_PLAY
                for e in effects
            ),
            np.int8,
            PHASE_PLAY,
        ),
        passes_turn=per_card((not (e.order_suit or e.cover) for e in effects), bool, True),
        points=points,
        bonus_points=per_card((b.points for b in bonuses), np.int32, 0),
        bonus_multiplier=per_card((b.multiplier for b in bonuses), np.int32, 1),
        playable=playable,
        respond=respond,
        drawn_filter=drawn_filter,
        extra_actions=_extra_actions(rules.voluntary_draw, rules.last_card_call),
        extra_base=_extra_base(steal=rules.empty_stock == "steal").reshape(-1),
        legal_by_situation=_by_situation(legal_cards),
        can_finish=per_card((rules.cover_can_finish or not e.cover for e in effects), bool, True),
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
        scoring_extras=bool(pair_cards.size)
        or holder_mask != 0
        or rules.multiplier_scope == "total"
        or rules.bonus_combo
        or rules.leftover_bonus != "ordinary",
        points_low=points_low,
        pair_cards=pair_cards,
        pair_savings=(points[pair_cards] - points_low[pair_cards]).astype(np.int32),
        holder_mask=holder_mask,
        scope_total=rules.multiplier_scope == "total",
        bonus_combo=rules.bonus_combo,
        bonus_card=per_card((rules.has_bonus(c) for c in range(NUM_CARDS)), bool, False),
        leftover=LEFTOVER_BONUSES.index(rules.leftover_bonus),
        call=rules.last_card_call,
        call_penalty=rules.call_penalty,
        num_actions=rules.num_actions,
    )


def extra_key(phase, has_card, can_draw, empty_table):
    """Index into ``extra_actions``: phase * 8 + has_card * 4 + can_draw * 2 + empty_table."""
    return phase * 8 + has_card * 4 + can_draw * 2 + empty_table


def _by_situation(legal_cards: np.ndarray) -> np.ndarray:
    """legal_cards with the suit axis widened to 8 slots, flat: one 1-D gather per lookup."""
    table = np.zeros((NUM_PHASES, NUM_CARDS + 1, 8), dtype=np.uint64)
    table[:, :, :NUM_SUITS] = legal_cards[:, :, :NUM_SUITS]
    table[:, :, 7] = legal_cards[:, :, NUM_SUITS]
    return table.reshape(-1)


def _extra_base(steal: bool) -> np.ndarray:
    phase = np.arange(NUM_PHASES)[:, None]
    empty_table = (np.arange(NUM_CARDS + 1) == NUM_CARDS)[None, :]
    return extra_key(phase, 0, int(steal), empty_table).astype(np.intp)


def _extra_actions(voluntary_draw: bool, call: bool = False) -> np.ndarray:
    """The non-card legal actions for each phase and situation (docs/rules.md §4, §5, §6).

    DRAW in PLAY: when the player has no playable card, or always with voluntary_draw,
    but never onto an empty table (leader_plays); in COVER: only without a playable card;
    in RESPOND: always (accepting). PASS: in AFTER_DRAW always; in PLAY and COVER exactly
    when DRAW would be legal but nothing can be drawn. ORDER: the four suits. CALL (only
    with last_card_call, §12): pass and call, whatever the situation.
    """
    table = np.zeros(NUM_PHASES * 8, dtype=np.uint64)
    draw, pass_ = np.uint64(1 << DRAW), np.uint64(1 << PASS)
    for has_card in (0, 1):
        for can_draw in (0, 1):
            for empty in (0, 1):

                def put(phase, bits, has_card=has_card, can_draw=can_draw, empty=empty):
                    table[extra_key(phase, has_card, can_draw, empty)] = bits

                wants = (voluntary_draw or not has_card) and not empty
                put(
                    PHASE_PLAY,
                    (draw if wants and can_draw else 0) | (pass_ if wants and not can_draw else 0),
                )
                wants = not has_card
                put(
                    PHASE_COVER,
                    (draw if wants and can_draw else 0) | (pass_ if wants and not can_draw else 0),
                )
                put(PHASE_AFTER_DRAW, pass_)
                put(PHASE_ORDER, sum(1 << a for a in ORDER_ACTIONS))
                put(PHASE_RESPOND, draw)
                if call:
                    put(PHASE_CALL, pass_ | np.uint64(1 << CALL))
    return table
