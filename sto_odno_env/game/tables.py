"""A rule set compiled into per-card lookup tables for the engine.

Every rule the engine applies is a lookup in these tables or a flag read from them, so the
engine never branches on a preset's name. Card sets are N-bit masks in ``uint64`` (bit ``c``
is card ``c``; N = 36, 52 with ``deck: 52``, or a small deck's size). Tables indexed by
a card have one extra entry, ``no_card = N`` (``NO_CARD = 36`` for the 36-card deck), for
"no card" (an empty table under ``leader_plays``, a round won by a steal). Card, action
and phase ids come from the rule set's :class:`~sto_odno_env.game.cards.Deck`; the module
constants (``CARD_BIT``, ``ALL_CARDS``, ``SUIT_MASK``, ``RANK_MASK``) are those of the
36-card deck, and
:func:`deck_masks` gives them for any deck.
"""

from __future__ import annotations

import dataclasses
from functools import cache, lru_cache

import numpy as np

from .cards import (
    DECK36,
    NO_CARD,  # noqa: F401  (re-exported: the 36-card deck's no_card)
    NUM_PHASES,
    PHASE_AFTER_DRAW,
    PHASE_CALL,
    PHASE_COVER,
    PHASE_ORDER,
    PHASE_PLAY,
    PHASE_RESPOND,
    Deck,
    deck_of,
)
from .rules import LEFTOVER_BONUSES, Rules


@dataclasses.dataclass(frozen=True, eq=False)
class DeckMasks:
    """The card masks of a deck: every card, one bit per card id (and 0 for ``no_card``),
    each suit's cards and each rank's cards."""

    all_cards: np.uint64
    card_bit: np.ndarray  # (N + 1,) uint64
    suit_mask: np.ndarray  # (suits,) uint64
    rank_mask: np.ndarray  # (ranks,) uint64


@cache
def deck_masks(deck: Deck | int = DECK36) -> DeckMasks:
    """The :class:`DeckMasks` of a deck (at most 64 cards fit a ``uint64``)."""
    deck = deck_of(deck)
    n, ranks, suits = deck.cards, deck.ranks, deck.suits
    return DeckMasks(
        all_cards=np.uint64((1 << n) - 1),
        card_bit=np.array([1 << c for c in range(n)] + [0], dtype=np.uint64),
        suit_mask=np.array(
            [sum(1 << (s * ranks + r) for r in range(ranks)) for s in range(suits)],
            dtype=np.uint64,
        ),
        rank_mask=np.array(
            [sum(1 << (s * ranks + r) for s in range(suits)) for r in range(ranks)],
            dtype=np.uint64,
        ),
    )


_MASKS36 = deck_masks(DECK36)
ALL_CARDS = _MASKS36.all_cards
CARD_BIT = _MASKS36.card_bit
SUIT_MASK = _MASKS36.suit_mask
RANK_MASK = _MASKS36.rank_mask


@dataclasses.dataclass(frozen=True, eq=False)
class RuleTables:
    """Lookup tables and flags of one rule set (see module docstring)."""

    rules: Rules
    deck: Deck  # card and action ids; N below is its number of cards
    card_bit: np.ndarray  # (N + 1,) uint64: the bit of each card, 0 for no_card
    no_card_id: np.ndarray  # 0-d int8 no_card: a store of the state's dtype (core/bits.py)
    all_cards: np.uint64  # every card of the deck
    top_slots: int  # N + 1: top cards, no_card included
    action_kind: np.ndarray  # (7 * (N + 7),) int8: [action_rows[phase] + action] -> kind
    action_rows: np.ndarray  # (7,) intp: phase * (N + 7), N + 7 action ids (the call included)
    draw: np.ndarray  # (N + 1,) int16: cards the next player takes
    skip: np.ndarray  # (N + 1,) bool
    cover: np.ndarray  # (N + 1,) bool
    order_suit: np.ndarray  # (N + 1,) bool
    phase_after_play: np.ndarray  # (N + 1,) int8: PHASE_ORDER, PHASE_COVER or PHASE_PLAY
    passes_turn: np.ndarray  # (N + 1,) bool: the turn passes at once after the card
    points: np.ndarray  # (N,) int32: points of a card left in hand
    bonus_points: np.ndarray  # (N + 1,) int32: the finisher's score for a last card
    bonus_multiplier: np.ndarray  # (N + 1,) int32: multiplier of the others' points
    playable: np.ndarray  # (N + 1, suits + 1) uint64: [top, ordered suit (last: none)] ->
    #   playable cards
    respond: np.ndarray  # (N + 1,) uint64: cards that may be stacked onto a penalty card
    drawn_filter: np.ndarray  # (N + 1,) uint64: [drawn card] -> cards AFTER_DRAW may play
    # The situation of a decision is phase * (N + 1) + top card, phase_rows[phase] + top.
    phase_rows: np.ndarray  # (7,) intp: phase * (N + 1)
    extra_by_situation: np.ndarray  # (4 * 7 * (N + 1),) uint64: the non-card actions,
    #   [situation + card_rows[can draw][any card legal]] (_extra_by_situation)
    card_rows: tuple[np.ndarray, np.ndarray]  # [can draw] (2,) intp: [any card legal] -> the
    #   block of situations; when not every game can draw, card_rows[0] + can_draw_rows[...]
    can_draw_rows: np.ndarray  # (3N + 1,) intp: [2 * stock_size + discard_size] -> the
    #   offset of the blocks where a card can be drawn (stock or a pile to reshuffle), or 0
    legal_by_situation: np.ndarray  # ((suits + 1) * 7 * (N + 1),) uint64: the legal cards,
    #   [suit_rows[ordered suit] + situation]; no ordered suit is the first block
    suit_rows: np.ndarray  # (suits + 1,) intp: [ordered suit] -> its block of situations, the
    #   last entry (0) for none (ordered suit -1: take() reads a negative index from the end)
    can_finish: np.ndarray  # (N + 1,) bool: a card that empties the hand ends the round
    hand_size: int
    target: int
    max_turns: int
    # max_turns as a 0-d int32 operand of the turn counts (core/bits.py says why); they are
    # int32, so a larger limit reads as the largest count
    turn_limit: np.ndarray
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
    points_low: np.ndarray  # (N,) int32: ``low`` of a [low, high] pair, else = points
    pair_cards: np.ndarray  # (K,) intp: cards with low < high, largest high - low first
    pair_savings: np.ndarray  # (K,) int32: their high - low
    holder_mask: np.uint64  # holder_wins: cards whose holder scores 0 at a round's end
    scope_total: bool  # multiplier_scope total: a multiplier multiplies old total + points
    bonus_combo: bool  # the finisher's final run of bonus-card plays adds up (State.combo_*)
    bonus_card: np.ndarray  # (N + 1,) bool: the card has a finish_bonus entry (even {})
    leftover: int  # leftover_bonus: LEFTOVER_BONUSES.index (0 ordinary, 1 subtract, 2 single)
    # §12 last_card_call: a play that leaves one card gives its player a CALL decision
    call: bool
    call_penalty: int  # cards drawn at once by a player who passes in CALL
    num_actions: int  # 42 (58 with 52 cards), one more with the call


@lru_cache(maxsize=64)
def compile_rules(rules: Rules) -> RuleTables:
    """Compile a rule set into :class:`RuleTables` (cached per rule set)."""
    deck = rules.deck_spec
    masks = deck_masks(deck)
    cards, no_card = deck.cards, deck.no_card
    suit_mask, rank_mask, all_cards = masks.suit_mask, masks.rank_mask, masks.all_cards
    effects = [rules.effect_of(c) for c in range(cards)]
    bonuses = [rules.bonus_of(c) for c in range(cards)]

    def per_card(values, dtype, none_value):
        return np.array([*list(values), none_value], dtype=dtype)

    wild = sum(1 << c for c, e in enumerate(effects) if e.wild)
    queens = rank_mask[deck.queen] if deck.queen is not None else np.uint64(0)
    suits = deck.suits
    # The last ordered-suit column is "none", so ordered_suit == -1 indexes it directly.
    playable = np.zeros((cards + 1, suits + 1), dtype=np.uint64)
    for top in range(cards):
        playable[top, suits] = (
            suit_mask[deck.suit_of(top)] | rank_mask[deck.rank_of(top)] | np.uint64(wild)
        )
        for suit in range(suits):
            # docs/rules.md §2: with a suit ordered, that suit or any queen may be played.
            playable[top, suit] = suit_mask[suit] | queens
    playable[no_card, :] = all_cards  # leader_plays: any card opens the round

    penalty_cards = sum(1 << c for c, e in enumerate(effects) if e.draw > 0)
    respond = np.zeros(cards + 1, dtype=np.uint64)
    if rules.stacking:
        for card in range(cards):
            if effects[card].draw > 0:
                respond[card] = rank_mask[deck.rank_of(card)] & np.uint64(penalty_cards)

    legal_cards = np.zeros((NUM_PHASES, cards + 1, suits + 1), dtype=np.uint64)
    for phase in (PHASE_PLAY, PHASE_AFTER_DRAW, PHASE_COVER):
        legal_cards[phase] = playable
    legal_cards[PHASE_RESPOND] = respond[:, None]
    if rules.after_draw == "any_card":
        drawn_filter = np.full(cards + 1, all_cards, dtype=np.uint64)
    else:
        drawn_filter = masks.card_bit.copy()
        drawn_filter[no_card] = all_cards  # outside AFTER_DRAW nothing is drawn

    points = np.array([rules.points_of(c) for c in range(cards)], dtype=np.int32)
    points_low = np.array([rules.points_range(c)[0] for c in range(cards)], np.int32)
    savings = points - points_low
    # Stable: equal savings keep id order (only the sums matter).
    pair_cards = np.argsort(-savings, kind="stable")[: int((savings > 0).sum())].astype(np.intp)

    holder_mask = np.uint64(sum(1 << c for c in range(cards) if rules.holds_to_win(c)))
    situations = NUM_PHASES * (cards + 1)

    return RuleTables(
        rules=rules,
        deck=deck,
        card_bit=masks.card_bit,
        no_card_id=np.array(no_card, dtype=np.int8),
        all_cards=masks.all_cards,
        top_slots=cards + 1,
        action_kind=action_kind_table(deck),
        action_rows=np.arange(NUM_PHASES, dtype=np.intp) * (deck.call + 1),
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
        phase_rows=np.arange(NUM_PHASES, dtype=np.intp) * (cards + 1),
        extra_by_situation=_extra_by_situation(
            rules.voluntary_draw, rules.last_card_call, rules.empty_stock == "steal", deck
        ),
        card_rows=(
            np.array([0, situations], dtype=np.intp),
            np.array([2 * situations, 3 * situations], dtype=np.intp),
        ),
        # 2 * stock + pile is 2 or more exactly when the stock holds a card or the pile two
        can_draw_rows=np.where(np.arange(3 * cards + 1) >= 2, 2 * situations, 0).astype(np.intp),
        legal_by_situation=np.roll(legal_cards, 1, axis=2).transpose(2, 0, 1).reshape(-1),
        suit_rows=np.roll(np.arange(suits + 1, dtype=np.intp) * situations, -1),
        can_finish=per_card((rules.cover_can_finish or not e.cover for e in effects), bool, True),
        hand_size=rules.hand_size,
        target=rules.target,
        max_turns=rules.max_turns,
        turn_limit=np.array(min(rules.max_turns, np.iinfo(np.int32).max), dtype=np.int32),
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
        bonus_card=per_card((rules.has_bonus(c) for c in range(cards)), bool, False),
        leftover=LEFTOVER_BONUSES.index(rules.leftover_bonus),
        call=rules.last_card_call,
        call_penalty=rules.call_penalty,
        num_actions=rules.num_actions,
    )


def extra_key(phase, has_card, can_draw, empty_table):
    """Index into ``extra_actions``: phase * 8 + has_card * 4 + can_draw * 2 + empty_table."""
    return phase * 8 + has_card * 4 + can_draw * 2 + empty_table


def _extra_by_situation(voluntary_draw: bool, call: bool, steal: bool, deck: Deck) -> np.ndarray:
    """[can_draw * 2S + has_card * S + situation] -> the non-card legal actions, for the S
    situations (phase * (N + 1) + top card): one lookup instead of a key's several. Under
    ``steal`` a draw is always possible, in both halves."""
    actions = _extra_actions(voluntary_draw, call, deck)
    phase = np.arange(NUM_PHASES)[:, None]
    empty_table = (np.arange(deck.cards + 1) == deck.no_card)[None, :]
    has_card = np.arange(2)[:, None, None]
    can_draw = np.arange(2)[:, None, None, None] | int(steal)
    return actions[extra_key(phase, has_card, can_draw, empty_table)].reshape(-1)


def _extra_actions(
    voluntary_draw: bool, call: bool = False, deck: Deck | None = None
) -> np.ndarray:
    """The non-card legal actions for each phase and situation (docs/rules.md §4, §5, §6).

    DRAW in PLAY: when the player has no playable card, or always with voluntary_draw,
    but never onto an empty table (leader_plays); in COVER: only without a playable card;
    in RESPOND: always (accepting). PASS: in AFTER_DRAW always; in PLAY and COVER exactly
    when DRAW would be legal but nothing can be drawn. ORDER: the four suits. CALL (only
    with last_card_call, §12): pass and call, whatever the situation.
    """
    deck = deck or DECK36
    table = np.zeros(NUM_PHASES * 8, dtype=np.uint64)
    draw, pass_ = np.uint64(1 << deck.draw), np.uint64(1 << deck.pass_)
    orders = sum(1 << a for a in range(deck.order_base, deck.draw))
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
                put(PHASE_ORDER, orders)
                put(PHASE_RESPOND, draw)
                if call:
                    put(PHASE_CALL, pass_ | np.uint64(1 << deck.call))
    return table


# What a decision does, by phase and action (the engine's dispatch; illegal pairs are 0).
(K_NONE, K_PLAY, K_ORDER, K_DRAW, K_COVER_DRAW, K_ACCEPT, K_PASS, K_LAPSE) = range(8)
K_CALL, K_NO_CALL = 8, 9  # CALL phase (last_card_call only): call, or pass and draw
NUM_KINDS = 10


@cache
def action_kind_table(deck: Deck) -> np.ndarray:
    """[phase * (deck.call + 1) + action] -> the kind of the decision (K_*)."""
    table = np.zeros((NUM_PHASES, deck.call + 1), dtype=np.int8)
    for phase in (PHASE_PLAY, PHASE_AFTER_DRAW, PHASE_COVER, PHASE_RESPOND):
        table[phase, : deck.cards] = K_PLAY
    table[PHASE_ORDER, deck.order_base : deck.draw] = K_ORDER
    table[PHASE_PLAY, deck.draw] = K_DRAW
    table[PHASE_COVER, deck.draw] = K_COVER_DRAW
    table[PHASE_RESPOND, deck.draw] = K_ACCEPT
    table[PHASE_PLAY, deck.pass_] = table[PHASE_AFTER_DRAW, deck.pass_] = K_PASS
    table[PHASE_COVER, deck.pass_] = K_LAPSE
    table[PHASE_CALL, deck.call] = K_CALL
    table[PHASE_CALL, deck.pass_] = K_NO_CALL
    table.setflags(write=False)
    return table.reshape(-1)
