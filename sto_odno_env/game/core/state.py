"""The engine's state: B games of P players as arrays, batch dimension first.

Card sets are N-bit masks in ``uint64`` (bit ``c`` is card ``c``; N = 36, or 52 with
``deck: 52``). Besides the State this
module holds what every stage reads: the seat order (:func:`next_seat`) and the mark a
round end leaves for the settle loop (:func:`mark_round_end`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ..cards import PHASE_AFTER_DRAW, PHASE_DONE, PHASE_PLAY
from ..rules import MAX_PLAYERS, Rules, load_rules
from ..tables import RuleTables, compile_rules
from .bits import unpack_actions

NOBODY = -1
# Phase codes and "no ordered suit" as 0-d int8 operands and stores (bits.py)
DONE = np.array(PHASE_DONE, dtype=np.int8)
PLAY = np.array(PHASE_PLAY, dtype=np.int8)
AFTER_DRAW = np.array(PHASE_AFTER_DRAW, dtype=np.int8)
NO_SUIT = np.array(-1, dtype=np.int8)


_FIELDS: dict[type, tuple[str, ...]] = {}
# (State class, no bonus_combo arrays) -> the names of the fields that hold arrays
_ARRAYS: dict[tuple[type, bool], tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The dataclass fields of a State class (cached: dataclasses.fields is slow)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


@dataclasses.dataclass(eq=False)
class State:
    """B games × P players. Public fields first; the rest is the engine's bookkeeping.

    Card orders: ``stock[b, :stock_size[b]]`` is a stack whose last entry is the top card;
    ``discard[b, :discard_size[b]]`` is the pile, oldest first, so its last entry is the top
    card. ``hand[b, p]`` is a card mask (N bits, N the rule set's deck). Card arrays are
    (B, N) and "no card" is N (``tables.deck.no_card``).
    """

    tables: RuleTables
    players: int
    # public
    current_player: np.ndarray  # (B,) int8, NOBODY once the match is over
    phase: np.ndarray  # (B,) int8
    legal_bits: np.ndarray  # (B,) uint64: bit a set when action a is legal for the player to act
    terminated: np.ndarray  # (B,) bool
    truncated: np.ndarray  # (B,) bool
    totals: np.ndarray  # (B, P) int32
    in_match: np.ndarray  # (B,) uint8 bit p set while seat p is in the match
    dealer: np.ndarray  # (B,) int8 (the leader under leader_plays)
    round: np.ndarray  # (B,) int16
    turn: np.ndarray  # (B,) int32 decisions in this round, forced ones included
    # cards
    hand: np.ndarray  # (B, P) uint64
    stock: np.ndarray  # (B, N) int8
    stock_size: np.ndarray  # (B,) int16
    discard: np.ndarray  # (B, N) int8
    discard_size: np.ndarray  # (B,) int16
    discard_bits: np.ndarray  # (B,) uint64
    top_card: np.ndarray  # (B,) int8, NO_CARD on an empty table
    ordered_suit: np.ndarray  # (B,) int8, -1 for none
    drawn_card: np.ndarray  # (B,) int8, NO_CARD outside AFTER_DRAW
    pending: np.ndarray  # (B,) int16 accumulated stacked penalty
    # match bookkeeping
    eliminated_round: np.ndarray  # (B, P) int16, -1 while in
    last_finisher: np.ndarray  # (B,) int8
    ranking: np.ndarray  # (B, P) int8 seats best first, valid once the match is over
    seed: np.ndarray  # (B,) int64 match seed
    rng_key: np.ndarray  # (B,) uint64
    rng_counter: np.ndarray  # (B,) uint64
    matches_played: np.ndarray  # (B,) int32 finished matches in this slot
    # outputs of the last step
    rewards: np.ndarray  # (B, P) float32 match rewards of matches that ended
    round_points: np.ndarray  # (B, P) int32 points scored in rounds that ended
    rounds_ended: np.ndarray  # (B,) int16 rounds that ended
    step_terminated: np.ndarray  # (B,) bool a match ended by the rules in the last step
    step_truncated: np.ndarray  # (B,) bool a match was truncated in the last step
    final_totals: np.ndarray  # (B, P) int32 totals of the last match that ended
    final_ranking: np.ndarray  # (B, P) int8 ranking of the last match that ended
    # round-end scratch, set while a step resolves
    ending: np.ndarray  # (B,) bool
    end_finisher: np.ndarray  # (B,) int8
    end_last_card: np.ndarray  # (B,) int8
    # bonus_combo only (None otherwise): each seat's run of own bonus-card plays this round
    combo_points: np.ndarray | None = None  # (B, P) int32: the run's bonus points
    combo_multiplier: np.ndarray | None = None  # (B, P) int32: its largest multiplier

    def __post_init__(self) -> None:
        self.scratch = Scratch()
        # Whether the outputs of the last step (rewards to step_truncated) may hold values:
        # set by scoring, cleared by the step that zeroes them, so a step after one that
        # ended nothing skips five fills.
        self.outputs_set = True

    @property
    def rules(self) -> Rules:
        """The rule set the state plays by."""
        return self.tables.rules

    @property
    def batch(self) -> int:
        """Number of games."""
        return self.phase.shape[0]

    @property
    def legal(self) -> np.ndarray:
        """(B, A) int8 legal-action mask of the player to act (all zero once over); A is the
        rule set's number of actions (``tables.num_actions``)."""
        return unpack_actions(self.legal_bits, self.tables.num_actions)

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: the match is over (terminated or truncated)."""
        return self.terminated | self.truncated

    def copy(self) -> State:
        """A deep copy of every array (the rule tables are shared)."""
        # What dataclasses.replace(self, **copied_arrays) builds, without its per-call
        # field introspection: a batch-of-one game is copied for every OpenSpiel action,
        # and replace() cost three times the copies themselves there.
        values = self.__dict__
        key = (type(self), self.combo_points is None)
        arrays = _ARRAYS.get(key)
        if arrays is None:
            arrays = _ARRAYS[key] = tuple(
                name for name in _field_names(type(self)) if isinstance(values[name], np.ndarray)
            )
        # The attributes are the fields and the scratch (rebuilt below): a copy of the dict
        # with the arrays replaced costs a third less than building it field by field.
        copied = values.copy()
        for name in arrays:
            copied[name] = values[name].copy()
        new = object.__new__(type(self))
        new.__dict__ = copied
        new.__post_init__()
        new.outputs_set = self.outputs_set
        return new

    def take(self, games: Sequence[int] | np.ndarray) -> State:
        """A new state holding copies of the given games only."""
        index = np.asarray(games, dtype=np.intp)
        return dataclasses.replace(
            self,
            **{
                f.name: getattr(self, f.name)[index].copy()
                for f in dataclasses.fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)
            },
        )

    def nbytes_per_game(self) -> int:
        """Bytes of per-game arrays (the memory a game costs)."""
        total = sum(
            getattr(self, f.name).nbytes
            for f in dataclasses.fields(self)
            if isinstance(getattr(self, f.name), np.ndarray)
        )
        return total // max(self.batch, 1)

    def seats_in(self, game: int) -> list[int]:
        """Seats still in the match in one game."""
        return [p for p in range(self.players) if self.in_match[game] >> p & 1]


class Scratch:
    """Python-side bookkeeping of one state (never copied: rebuilt with each State)."""

    __slots__ = ("decisions", "ending", "matches_ended")  # one is made per state copy

    def __init__(self) -> None:
        self.ending: list[np.ndarray] = []  # games whose round ended, not yet scored
        self.matches_ended = 0  # a counter, to skip filtering when nothing ended
        self.decisions = 0  # decisions applied, forced ones included (for benchmarks)


def _next_seat_table() -> np.ndarray:
    """[in_match bits * 8 + seat] -> the next seat clockwise after ``seat`` that is in."""
    table = np.full(64 * 8, NOBODY, dtype=np.int8)
    for bits in range(64):
        for seat in range(MAX_PLAYERS):
            for step_ in range(1, MAX_PLAYERS + 1):
                other = (seat + step_) % MAX_PLAYERS
                if bits >> other & 1:
                    table[bits * 8 + seat] = other
                    break
    return table


NEXT_SEAT = _next_seat_table()
# [in_match bits] -> their row of NEXT_SEAT: take() converts the uint8 bits for less than
# astype and a multiplication.
SEAT_ROWS = np.arange(64, dtype=np.intp) * 8


def next_seat(state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The next seat clockwise after ``seats`` that is still in the match."""
    return NEXT_SEAT[SEAT_ROWS.take(state.in_match[games]) + seats]


def mark_round_end(
    state: State, games: np.ndarray, finisher: np.ndarray, last_card: np.ndarray
) -> None:
    """The rounds of ``games`` ended: they wait in ``state.scratch.ending`` to be scored."""
    state.scratch.ending.append(games)
    state.ending[games] = True
    state.end_finisher[games] = finisher
    state.end_last_card[games] = last_card


def empty_state(rules: Rules | str, players: int, batch: int) -> State:
    """A state of ``batch`` games with no match started (see :func:`init`)."""
    rules = load_rules(rules)
    rules.check_players(players)
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    tables = compile_rules(rules)
    B, P = batch, players
    N, NO_CARD = tables.deck.cards, tables.deck.no_card

    def zeros(shape, dtype):
        return np.zeros(shape, dtype=dtype)

    return State(
        tables=tables,
        players=P,
        current_player=np.full(B, NOBODY, np.int8),
        phase=np.full(B, PHASE_DONE, np.int8),
        legal_bits=zeros(B, np.uint64),
        terminated=zeros(B, bool),
        truncated=zeros(B, bool),
        totals=zeros((B, P), np.int32),
        in_match=np.full(B, (1 << P) - 1, np.uint8),
        dealer=zeros(B, np.int8),
        round=zeros(B, np.int16),
        turn=zeros(B, np.int32),
        hand=zeros((B, P), np.uint64),
        stock=zeros((B, N), np.int8),
        stock_size=zeros(B, np.int16),
        discard=zeros((B, N), np.int8),
        discard_size=zeros(B, np.int16),
        discard_bits=zeros(B, np.uint64),
        top_card=np.full(B, NO_CARD, np.int8),
        ordered_suit=np.full(B, -1, np.int8),
        drawn_card=np.full(B, NO_CARD, np.int8),
        pending=zeros(B, np.int16),
        eliminated_round=np.full((B, P), -1, np.int16),
        last_finisher=np.full(B, NOBODY, np.int8),
        ranking=np.full((B, P), NOBODY, np.int8),
        seed=zeros(B, np.int64),
        rng_key=zeros(B, np.uint64),
        rng_counter=zeros(B, np.uint64),
        matches_played=zeros(B, np.int32),
        rewards=zeros((B, P), np.float32),
        round_points=zeros((B, P), np.int32),
        rounds_ended=zeros(B, np.int16),
        step_terminated=zeros(B, bool),
        step_truncated=zeros(B, bool),
        final_totals=zeros((B, P), np.int32),
        final_ranking=np.full((B, P), NOBODY, np.int8),
        ending=zeros(B, bool),
        end_finisher=np.full(B, NOBODY, np.int8),
        end_last_card=np.full(B, NO_CARD, np.int8),
        combo_points=zeros((B, P), np.int32) if tables.bonus_combo else None,
        combo_multiplier=np.ones((B, P), np.int32) if tables.bonus_combo else None,
    )
