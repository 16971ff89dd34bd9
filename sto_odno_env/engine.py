"""The batched rules engine: B games of 101 stepped at once with numpy array code.

The state (:class:`State`) holds B games of P players, batch dimension first; card sets are
36-bit masks in ``uint64``. The API is functional in shape (state in, state out) but mutates
the arrays in place for speed; :meth:`State.copy` takes a snapshot::

    state = init(rules, players=4, batch=1024, seed=0)
    mask = legal_mask(state)                       # (B, 42) int8, for the player to act
    state, rewards, done = step(state, actions)    # one action per game

``step`` applies one decision per game, then resolves everything that is not a real
decision (RULES.md): forced decisions (exactly one legal action, §4), penalty draws and
skips (§5), reshuffles and steals (§6), the round end, scoring and eliminations (§7), the
next round's deal, match end and truncation (§8). After ``step`` every live game waits on
a decision with at least two legal actions.

Phases (``state.phase``): PLAY, AFTER_DRAW, COVER, ORDER, RESPOND; DONE once a match is over.
Actions: 0–35 play a card, 36–39 order a suit, 40 draw (or accept a stacked penalty), 41 pass.

Randomness comes from a counter-based stream per game (:mod:`sto_odno_env.rng`) unless a
``chance`` object supplies it (replaying a record does). ``trace`` collects the events of
RULES.md §10 per game when given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from . import rng
from .cards import DRAW, NUM_ACTIONS, NUM_CARDS, ORDER_BASE, PASS, action_name, card_name
from .chance import RANDOM_CHANCE, Chance, RandomChance
from .rules import MAX_PLAYERS, Rules, load_rules
from .tables import (
    AFTER_DRAW,
    CARD_BIT,
    COVER,
    DONE,
    NO_CARD,
    ORDER,
    PLAY,
    RESPOND,
    RuleTables,
    compile_rules,
)
from .trace import Trace

PHASE_NAMES = ("PLAY", "AFTER_DRAW", "COVER", "ORDER", "RESPOND", "DONE")
NOBODY = -1
RECORD_VERSION = 1

_U64_0 = np.uint64(0)
_U64_1 = np.uint64(1)


# What a decision does, by phase and action (the engine's dispatch; illegal pairs are 0).
(K_NONE, K_PLAY, K_ORDER, K_DRAW, K_COVER_DRAW, K_ACCEPT, K_PASS, K_LAPSE) = range(8)


def _action_kind_table() -> np.ndarray:
    table = np.zeros((6, NUM_ACTIONS), dtype=np.int8)
    for phase in (PLAY, AFTER_DRAW, COVER, RESPOND):
        table[phase, :NUM_CARDS] = K_PLAY
    table[ORDER, ORDER_BASE:DRAW] = K_ORDER
    table[PLAY, DRAW] = K_DRAW
    table[COVER, DRAW] = K_COVER_DRAW
    table[RESPOND, DRAW] = K_ACCEPT
    table[PLAY, PASS] = table[AFTER_DRAW, PASS] = K_PASS
    table[COVER, PASS] = K_LAPSE
    return table.reshape(-1)


ACTION_KIND = _action_kind_table()


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


def _cells(
    array: np.ndarray, games: np.ndarray, columns: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A flat view of a (B, n) array and the flat indices of [games, columns]: one-dimensional
    gathers and scatters cost a fraction of two-dimensional fancy indexing."""
    return array.reshape(-1), games * array.shape[1] + columns


def _any(mask: np.ndarray) -> bool:
    # count_nonzero is a fraction of the cost of ndarray.any() on the small arrays of a
    # step's later rounds; the engine asks this ~10 times per round.
    return np.count_nonzero(mask) != 0


def _all(mask: np.ndarray) -> bool:
    return np.count_nonzero(mask) == mask.size


class IllegalActionError(ValueError):
    """An action that is not legal in the game's current decision."""


@dataclasses.dataclass(eq=False)
class State:
    """B games × P players. Public fields first; the rest is the engine's bookkeeping.

    Card orders: ``stock[b, :stock_size[b]]`` is a stack whose last entry is the top card;
    ``discard[b, :discard_size[b]]`` is the pile, oldest first, so its last entry is the top
    card. ``hand[b, p]`` is a 36-bit card mask.
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
    stock: np.ndarray  # (B, 36) int8
    stock_size: np.ndarray  # (B,) int16
    discard: np.ndarray  # (B, 36) int8
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

    def __post_init__(self) -> None:
        self.scratch = _Scratch()

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
        """(B, 42) int8 legal-action mask of the player to act (all zero once over)."""
        return unpack_actions(self.legal_bits)

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: the match is over (terminated or truncated)."""
        return self.terminated | self.truncated

    def copy(self) -> State:
        """A deep copy of every array (the rule tables are shared)."""
        return dataclasses.replace(
            self,
            **{
                f.name: getattr(self, f.name).copy()
                for f in dataclasses.fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)
            },
        )

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


class _Scratch:
    """Python-side bookkeeping of one state (never copied: rebuilt with each State)."""

    def __init__(self) -> None:
        self.ending: list[np.ndarray] = []  # games whose round ended, not yet scored
        self.matches_ended = 0  # a counter, to skip filtering when nothing ended
        self.decisions = 0  # decisions applied, forced ones included (for benchmarks)


@dataclasses.dataclass(frozen=True)
class Autoplay:
    """Seats whose decisions the engine takes itself, from a policy of the legal actions.

    ``seats`` (B,) uint8 holds, per game, the bits of the seats played this way; ``policy``
    maps the 42-bit legal masks of those decisions to actions (``policy(legal_bits)``).
    While a game still has a seat in the match that is not auto-played, its auto-played
    decisions are applied in the same loop as the forced ones, so a step runs on until a
    seat outside ``seats`` is to act (the vector env's random opponents use this).
    """

    seats: np.ndarray
    policy: Callable[[np.ndarray], np.ndarray]
    rows: np.ndarray = dataclasses.field(init=False, repr=False)  # seats * 64, for _ACTING

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", np.asarray(self.seats).astype(np.intp) << 6)


def _acting_table() -> np.ndarray:
    """[auto-played seat bits * 64 + in_match bits] -> the auto-played seats that act:
    all of them while a seat that is not auto-played is still in, else none."""
    seats, in_match = np.divmod(np.arange(64 * 64), 64)
    return np.where((in_match & ~seats) != 0, seats, 0).astype(np.uint8)


_ACTING = _acting_table()


def _card_list(bits: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if bits >> c & 1]


# --- construction ---------------------------------------------------------------------------


def empty_state(rules: Rules | str, players: int, batch: int) -> State:
    """A state of ``batch`` games with no match started (see :func:`init`)."""
    rules = load_rules(rules)
    rules.check_players(players)
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    tables = compile_rules(rules)
    B, P = batch, players

    def zeros(shape, dtype):
        return np.zeros(shape, dtype=dtype)

    return State(
        tables=tables,
        players=P,
        current_player=np.full(B, NOBODY, np.int8),
        phase=np.full(B, DONE, np.int8),
        legal_bits=zeros(B, np.uint64),
        terminated=zeros(B, bool),
        truncated=zeros(B, bool),
        totals=zeros((B, P), np.int32),
        in_match=np.full(B, (1 << P) - 1, np.uint8),
        dealer=zeros(B, np.int8),
        round=zeros(B, np.int16),
        turn=zeros(B, np.int32),
        hand=zeros((B, P), np.uint64),
        stock=zeros((B, NUM_CARDS), np.int8),
        stock_size=zeros(B, np.int16),
        discard=zeros((B, NUM_CARDS), np.int8),
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
    )


def init(
    rules: Rules | str,
    players: int,
    batch: int = 1,
    seed: int = 0,
    *,
    seeds: Sequence[int] | np.ndarray | None = None,
    chance: Chance | None = None,
    trace: Trace | None = None,
    resolve_forced: bool = True,
) -> State:
    """Start ``batch`` matches and deal their first round.

    Game ``b`` plays the match seed ``rng.game_seeds(seed, batch)[b]`` (or ``seeds[b]``);
    a game's play depends on its own seed only, so ``init(..., seeds=[s])`` replays it alone.
    """
    state = empty_state(rules, players, batch)
    if seeds is None:
        match_seeds = rng.game_seeds(seed, batch)
    else:
        match_seeds = np.asarray(seeds, dtype=np.int64).reshape(-1)
        if match_seeds.shape != (batch,) or _any(match_seeds < 0):
            raise ValueError(f"seeds must be {batch} non-negative integers")
    games = np.arange(batch)
    _start_match(state, games, match_seeds, chance or RANDOM_CHANCE, trace)
    _settle(state, games, chance or RANDOM_CHANCE, trace, resolve_forced)
    return state


def reset_games(
    state: State,
    games: np.ndarray,
    seeds: np.ndarray | None = None,
    *,
    chance: Chance | None = None,
    trace: Trace | None = None,
    autoplay: Autoplay | None = None,
) -> None:
    """Start new matches in the given games (the next seed of each slot by default)."""
    games = np.asarray(games, dtype=np.intp)
    if seeds is None:
        seeds = rng.next_seeds(state.seed[games])
    _start_match(state, games, np.asarray(seeds, dtype=np.int64), chance or RANDOM_CHANCE, trace)
    _settle(state, games, chance or RANDOM_CHANCE, trace, True, autoplay)


# --- the public step ------------------------------------------------------------------------


def legal_mask(state: State) -> np.ndarray:
    """(B, 42) int8: legal actions of the player to act (all zero once a match is over)."""
    return unpack_actions(state.legal_bits)


def _select_table(width: int) -> np.ndarray:
    """[word * width + k] -> the k-th set bit of every ``width``-bit word."""
    words = np.arange(1 << width, dtype=np.uint32)
    bits = (words[:, None] >> np.arange(width, dtype=np.uint32)[None, :]) & 1
    select = np.zeros((1 << width, width), dtype=np.intp)
    rank = np.cumsum(bits, axis=1) - 1
    word_index, position = np.nonzero(bits)
    select[word_index, rank[word_index, position]] = position
    return select.reshape(-1)


# Actions are 42 bits: three 14-bit words; a table gives the k-th set bit of any word.
_CHUNK = 14
_CHUNK_MASK = np.uint64((1 << _CHUNK) - 1)
_TWO_CHUNKS_MASK = np.uint64((1 << (2 * _CHUNK)) - 1)
_CHUNK_SELECT = _select_table(_CHUNK)


_FEW_GAMES = 4


def _kth_bit(mask: int, k: int) -> int:
    """The index of the k-th (from 0) set bit of a non-negative integer."""
    for _ in range(k):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def sample_actions(legal_bits: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per game, from 42-bit masks and uniforms in [0, 1).

    Picks the k-th legal action, k = floor(u * count): popcounts find the 14-bit word that
    holds it and a table its bit in the word, with no (B, 42) array. Games with no legal
    action get 0.
    """
    bits = np.asarray(legal_bits, dtype=np.uint64)
    if bits.size <= _FEW_GAMES:  # a handful of games: plain integers beat a dozen array calls
        return np.array(
            [
                _kth_bit(mask, int(u * mask.bit_count())) if mask else 0
                for mask, u in zip(bits.tolist(), np.asarray(uniform).tolist(), strict=True)
            ],
            dtype=np.int64,
        )
    below_middle = np.bitwise_count(bits & _CHUNK_MASK)
    below_high = np.bitwise_count(bits & _TWO_CHUNKS_MASK)
    total = np.bitwise_count(bits)
    rank = (np.asarray(uniform) * total).astype(np.intp)
    in_middle, in_high = rank >= below_middle, rank >= below_high
    shift = (in_middle.astype(np.intp) + in_high) * _CHUNK
    word = ((bits >> shift.astype(np.uint64)) & _CHUNK_MASK).astype(np.intp)
    rank -= np.where(in_high, below_high, np.where(in_middle, below_middle, 0))
    return np.where(total > 0, _CHUNK_SELECT[word * _CHUNK + rank] + shift, 0).astype(np.int64)


def unpack_actions(bits: np.ndarray) -> np.ndarray:
    """(n, 42) int8 masks from 42-bit action masks."""
    bits = np.ascontiguousarray(bits, dtype=np.uint64)
    return np.unpackbits(
        bits.view(np.uint8).reshape(-1, 8), axis=1, count=NUM_ACTIONS, bitorder="little"
    ).view(np.int8)


def step(
    state: State,
    actions: np.ndarray | Sequence[int],
    *,
    auto_reset: bool = False,
    chance: Chance | None = None,
    trace: Trace | None = None,
    resolve_forced: bool = True,
    games: np.ndarray | None = None,
    autoplay: Autoplay | None = None,
) -> tuple[State, np.ndarray, np.ndarray]:
    """Apply one action per game for its player to act, then resolve all that follows.

    Actions of games whose match is over are ignored. Returns ``(state, rewards, done)``:
    ``rewards`` (B, P) float32 are match rewards earned in this step, ``done`` (B,) bool
    marks matches that ended. A player's match reward (see :func:`match_rewards`) comes
    once: when the match ends, or when the player is eliminated under ``last_survivor``
    (its place is final then). A truncated match gives no reward to those still in.
    With ``auto_reset`` finished games start a new match at once (the next seed of their
    slot); ``state.final_totals``/``final_ranking`` keep the finished match's result.
    ``games`` (indices) steps only those games, with one action each. ``autoplay``
    (:class:`Autoplay`) lets the step play on through the decisions of seats taken by a
    policy of the legal actions.
    ``resolve_forced=False`` stops after the one decision (records list forced ones).
    Raises :class:`IllegalActionError` for an illegal action, before changing anything.
    """
    chance = chance or RANDOM_CHANCE
    actions = np.asarray(actions)
    expected = (state.batch,) if games is None else (len(games),)
    if actions.shape != expected:
        raise ValueError(f"actions must have shape {expected}, got {actions.shape}")
    if actions.dtype.kind not in "iu":
        raise IllegalActionError(f"actions must be integers, got dtype {actions.dtype}")
    if games is None:
        live_rows = (state.phase != DONE).nonzero()[0]
        live = live_rows
    else:
        games = np.asarray(games, dtype=np.intp)
        live_rows = (state.phase[games] != DONE).nonzero()[0]
        live = games[live_rows]
    chosen = actions[live_rows].astype(np.int64)
    if not live.size:  # every match is over: nothing to do
        state.rewards.fill(0.0)
        done = np.zeros(state.batch, dtype=bool)
        return state, state.rewards.copy(), done
    # A negative id wraps to a huge unsigned one: every id outside 0..41 shifts to bit 63.
    shift = np.minimum(chosen.astype(np.uint64), np.uint64(63))
    legal = (state.legal_bits[live] >> shift) & _U64_1
    if not _all(legal):
        bad = int((legal == 0).nonzero()[0][0])
        raise IllegalActionError(_illegal_message(state, int(live[bad]), int(chosen[bad])))

    state.rewards.fill(0.0)
    state.round_points.fill(0)
    state.rounds_ended.fill(0)
    state.step_terminated.fill(False)
    state.step_truncated.fill(False)
    _apply(state, live, chosen, False, chance, trace)
    _settle(state, live, chance, trace, resolve_forced, autoplay)
    done = state.step_terminated | state.step_truncated
    if auto_reset and _any(done):
        reset_games(state, done.nonzero()[0], chance=chance, trace=trace)
    return state, state.rewards.copy(), done


def _illegal_message(state: State, game: int, action: int) -> str:
    legal = [a for a in range(NUM_ACTIONS) if int(state.legal_bits[game]) >> a & 1]
    name = action_name(action) if 0 <= action < NUM_ACTIONS else "not an action id"
    return (
        f"illegal action {action} ({name}) in game {game}: player "
        f"{int(state.current_player[game])} is in phase {PHASE_NAMES[state.phase[game]]}; "
        f"legal actions: {', '.join(f'{a} ({action_name(a)})' for a in legal)}"
    )


# Score waiting round ends once they are 1/_ROUND_END_SHARE of the games still deciding:
# measured best for random play at large batches (fewer, larger scoring calls against
# games waiting longer for their next round).
_ROUND_END_SHARE = 8


def _settle(
    state: State,
    games: np.ndarray,
    chance: Chance,
    trace,
    resolve_forced: bool,
    autoplay: Autoplay | None = None,
) -> None:
    """Recompute legal actions; apply forced decisions (one legal action) until none is left.

    Rounds that end meanwhile wait (so each game's events stay in order) and are scored
    together once the waiting games are an eighth as many as those still deciding (or all
    that is left); their new rounds then join the loop. Scoring in few large groups keeps
    the per-call overhead low, and letting the new rounds join early keeps the loop short.
    With ``autoplay`` the decisions of its seats are applied in the same loop.
    """
    scratch = state.scratch
    games = games[(state.phase[games] != DONE) & ~state.ending[games]]
    while True:
        while games.size:
            bits = _legal_bits(state, games)
            state.legal_bits[games] = bits
            if not resolve_forced:
                break
            # A power of two has one legal action: its index is the popcount of bits - 1.
            forced = (bits & (bits - _U64_1)) == _U64_0
            acting = forced
            if autoplay is not None:
                seats = _ACTING[autoplay.rows[games] + state.in_match[games]]
                acting = forced | ((seats >> state.current_player[games]) & 1 != 0)
            games = games[acting]
            if not games.size:
                break
            bits, forced = bits[acting], forced[acting]
            actions = np.bitwise_count(bits - _U64_1).astype(np.intp)
            if not _all(forced):
                auto = ~forced
                actions[auto] = np.asarray(autoplay.policy(bits[auto]), dtype=np.intp)
            finished_before = scratch.matches_ended
            _apply(state, games, actions, forced, chance, trace)
            if scratch.ending or scratch.matches_ended != finished_before:
                games = games[(state.phase[games] != DONE) & ~state.ending[games]]
                waiting = sum(e.size for e in scratch.ending)
                if waiting and waiting * _ROUND_END_SHARE >= games.size:
                    break
        if not scratch.ending:
            return
        ending = np.concatenate(scratch.ending)
        scratch.ending.clear()
        _end_rounds(state, ending, chance, trace)
        if resolve_forced:
            ending = ending[(state.phase[ending] != DONE) & ~state.ending[ending]]
            games = np.concatenate([games, ending]) if games.size else ending
        else:
            games = ending[(state.phase[ending] != DONE) & ~state.ending[ending]]


# --- legal actions --------------------------------------------------------------------------


def _playable(state: State, games: np.ndarray) -> np.ndarray:
    """Cards playable now onto each game's top card (RULES.md §2)."""
    tables = state.tables
    return tables.playable[state.top_card[games], state.ordered_suit[games]]


_TOP_SLOTS = NUM_CARDS + 1  # top cards, NO_CARD included


def _legal_bits(state: State, games: np.ndarray) -> np.ndarray:
    """42-bit masks of the legal actions of the player to act (RULES.md §4, §5, §6)."""
    tables = state.tables
    # (phase, top card): 1-D gathers cost a fraction of multi-dimensional indexing.
    situation = state.phase[games].astype(np.intp) * _TOP_SLOTS + state.top_card[games]
    hands, at = _cells(state.hand, games, state.current_player[games])
    cards = (
        hands[at]
        & tables.legal_by_situation.take(situation * 8 + (state.ordered_suit[games] & 7))
        & tables.drawn_filter[state.drawn_card[games]]
    )
    key = tables.extra_base.take(situation)
    np.add(key, 4, out=key, where=cards != _U64_0)
    if not tables.steal:
        can_draw = (state.stock_size[games] > 0) | (state.discard_size[games] > 1)
        np.add(key, 2, out=key, where=can_draw)
    return cards | tables.extra_actions[key]


# --- applying one decision ------------------------------------------------------------------


def _apply(
    state: State,
    games: np.ndarray,
    actions: np.ndarray,
    forced: bool | np.ndarray,
    chance: Chance,
    trace,
) -> None:
    """Apply one decision in each of ``games`` (all legal), then end rounds and truncate.

    ``forced`` marks the decisions that had one legal action (for the record)."""
    if trace is not None:
        players = state.current_player[games]
        flags = np.broadcast_to(np.asarray(forced, dtype=bool), games.shape).tolist()
        for game, player, action, flag in zip(
            games.tolist(), players.tolist(), actions.tolist(), flags, strict=True
        ):
            trace.emit(game, {"type": "action", "player": player, "action": action, "forced": flag})
    state.scratch.decisions += games.size
    turn = state.turn[games] + 1
    state.turn[games] = turn
    kind = ACTION_KIND[state.phase[games].astype(np.intp) * NUM_ACTIONS + actions]
    counts = np.bincount(kind, minlength=8).tolist()
    present = [code for code, count in enumerate(counts) if count]
    if len(present) == 1:
        groups = [(present[0], games, actions)]
    else:  # one stable sort by kind, then a slice (a view) per kind
        order = np.argsort(kind, kind="stable")
        games_by_kind, actions_by_kind = games[order], actions[order]
        groups, start = [], 0
        for code in present:
            stop = start + counts[code]
            groups.append((code, games_by_kind[start:stop], actions_by_kind[start:stop]))
            start = stop
    for code, chosen, chosen_actions in groups:
        if code == K_PLAY:
            _play(state, chosen, chosen_actions.astype(np.int8), chance, trace)
        elif code == K_ORDER:
            _order(state, chosen, (chosen_actions - ORDER_BASE).astype(np.int8), chance, trace)
        elif code == K_DRAW:
            _draw_action(state, chosen, chance, trace)
        elif code == K_COVER_DRAW:
            _draw_one(state, chosen, state.current_player[chosen], chance, trace)
        elif code == K_ACCEPT:
            _accept_penalty(state, chosen, chance, trace)
        elif code == K_PASS:
            _pass_turn(state, chosen)
        elif code == K_LAPSE:
            _lapse_cover(state, chosen)
    if turn.max() >= state.tables.max_turns:
        # A round that ended on this decision is not truncated (RULES.md §8); it is scored
        # when the step settles.
        over = games[
            (turn >= state.tables.max_turns) & (state.phase[games] != DONE) & ~state.ending[games]
        ]
        if over.size:
            _truncate(state, over, trace)


def _next_seat(state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    return NEXT_SEAT[state.in_match[games].astype(np.intp) * 8 + seats]


def _play(state: State, games: np.ndarray, cards: np.ndarray, chance, trace) -> None:
    tables = state.tables
    player = state.current_player[games]
    bits = CARD_BIT[cards]
    hands, at = _cells(state.hand, games, player)
    hand = hands[at] & ~bits
    hands[at] = hand
    size = state.discard_size[games]
    piles, top_at = _cells(state.discard, games, size)
    piles[top_at] = cards
    state.discard_size[games] = size + 1
    state.discard_bits[games] |= bits
    state.top_card[games] = cards
    state.ordered_suit[games] = -1
    state.drawn_card[games] = NO_CARD
    # A round that ends here is scored before its game decides again, so the phase set
    # for a finishing card is never read.
    state.phase[games] = tables.phase_after_play[cards]
    finishing = (hand == _U64_0) & tables.can_finish[cards]
    passes = tables.passes_turn[cards]
    if _any(finishing):
        _mark_round_end(state, games[finishing], player[finishing], cards[finishing])
        passes &= ~finishing
    if _all(passes):
        _pass_with_effects(state, games, player, cards, chance, trace)
    elif _any(passes):
        _pass_with_effects(state, games[passes], player[passes], cards[passes], chance, trace)


def _order(state: State, games: np.ndarray, suits: np.ndarray, chance, trace) -> None:
    state.ordered_suit[games] = suits
    top = state.top_card[games]
    covers = state.tables.cover[top]
    state.phase[games[covers]] = COVER
    rest = ~covers
    if _any(rest):
        _pass_with_effects(
            state, games[rest], state.current_player[games[rest]], top[rest], chance, trace
        )


def _pass_with_effects(
    state: State, games: np.ndarray, player: np.ndarray, cards: np.ndarray, chance, trace
) -> None:
    """The turn passes from ``player`` after ``cards`` took effect (RULES.md §5)."""
    tables = state.tables
    penalty = tables.draw[cards]
    seat_base = state.in_match[games].astype(np.intp) * 8  # rows of NEXT_SEAT
    target = NEXT_SEAT[seat_base + player]
    if tables.stacking:  # only stacking accumulates a pending penalty, or answers one
        penalty = penalty + state.pending[games]
        hands, at = _cells(state.hand, games, target)
        respond = (penalty > 0) & ((hands[at] & tables.respond[cards]) != _U64_0)
        if _any(respond):
            responders = games[respond]
            state.phase[responders] = RESPOND
            state.current_player[responders] = target[respond]
            state.pending[responders] = penalty[respond]
            others = ~respond
            games, target, cards, penalty, seat_base = (
                games[others],
                target[others],
                cards[others],
                penalty[others],
                seat_base[others],
            )
    draws = penalty > 0
    if _any(draws):
        _draw_many(state, games[draws], target[draws], penalty[draws], chance, trace)
        if tables.stacking:
            state.pending[games] = 0
    skips = tables.skip[cards]
    if _any(skips):
        target = np.where(skips, NEXT_SEAT[seat_base + target], target)
    state.current_player[games] = target
    state.phase[games] = PLAY


def _pass_turn(state: State, games: np.ndarray) -> None:
    if games.size:
        state.current_player[games] = _next_seat(state, games, state.current_player[games])
        state.phase[games] = PLAY
        state.drawn_card[games] = NO_CARD


def _lapse_cover(state: State, games: np.ndarray) -> None:
    """PASS in COVER: nothing can be drawn, the obligation lapses (RULES.md §4, §7)."""
    if not games.size:
        return
    player = state.current_player[games]
    hands, at = _cells(state.hand, games, player)
    empty = hands[at] == _U64_0
    if _any(empty):
        _mark_round_end(state, games[empty], player[empty], state.top_card[games[empty]])
    _pass_turn(state, games[~empty])


def _draw_action(state: State, games: np.ndarray, chance, trace) -> None:
    """DRAW in PLAY: one card, or until a playable one (RULES.md §4)."""
    if not games.size:
        return
    player = state.current_player[games]
    drawn = _draw_one(state, games, player, chance, trace)
    last = drawn.copy()
    if state.tables.until_playable:
        going = (drawn != NO_CARD) & ~state.ending[games]
        going &= (CARD_BIT[drawn] & _playable(state, games)) == _U64_0
        while _any(going):
            index = going.nonzero()[0]
            more = _draw_one(state, games[index], player[index], chance, trace)
            got = more != NO_CARD
            last[index[got]] = more[got]
            going[index] = (
                got
                & ~state.ending[games[index]]
                & ((CARD_BIT[more] & _playable(state, games[index])) == _U64_0)
            )
    state.drawn_card[games] = last
    state.phase[games] = AFTER_DRAW


def _accept_penalty(state: State, games: np.ndarray, chance, trace) -> None:
    """DRAW in RESPOND: take the whole stacked penalty, then skip if the top card skips."""
    if not games.size:
        return
    player = state.current_player[games]
    _draw_many(state, games, player, state.pending[games], chance, trace)
    state.pending[games] = 0
    skips = state.tables.skip[state.top_card[games]]
    state.current_player[games] = np.where(skips, _next_seat(state, games, player), player)
    state.phase[games] = PLAY


# --- drawing, reshuffles, steals --------------------------------------------------------------


def _draw_many(
    state: State,
    games: np.ndarray,
    player: np.ndarray,
    count: np.ndarray,
    chance,
    trace,
    stop_at_round_end: bool = True,
) -> None:
    """Each player takes ``count`` (>= 1) cards; what cannot be drawn is forgiven (RULES.md
    §6). A steal that empties a hand ends the round, and the drawing with it.
    """
    # Only a round that ended in this pass can have ended for these games.
    check_ending = stop_at_round_end and bool(state.scratch.ending)
    size = state.stock_size[games]
    if _all(count <= size) and not (check_ending and _any(state.ending[games])):
        _draw_top(state, games, player, count, size)  # the stock holds every penalty
        return
    going = ~state.ending[games] if check_ending else np.ones(games.shape, dtype=bool)
    # Take what the stock holds at once, reshuffle where it ran out, take again: a second
    # reshuffle can find only the top card on the pile, so what is still owed after that
    # is stolen (where the rules steal) or forgiven, one card at a time.
    owed = count.astype(np.int64)
    for _ in range(2):
        rows = going.nonzero()[0]
        if not rows.size:
            return
        size = state.stock_size[games[rows]]
        empty = size == 0
        if _any(empty):
            _reshuffle(state, games[rows[empty]], chance, trace)
            size = state.stock_size[games[rows]]
        take = np.minimum(owed[rows], size)
        taking = take > 0
        if _any(taking):
            part = rows[taking]
            _draw_top(state, games[part], player[part], take[taking], size[taking])
            owed[part] -= take[taking]
        going[rows] = owed[rows] > 0
    if not state.tables.steal:
        return
    while _any(going):
        index = going.nonzero()[0]
        drawn = _draw_one(state, games[index], player[index], chance, trace)
        owed[index] -= 1
        going[index] = (drawn != NO_CARD) & (owed[index] > 0)
        if stop_at_round_end:
            going[index] &= ~state.ending[games[index]]


def _draw_top(
    state: State, games: np.ndarray, player: np.ndarray, count: np.ndarray, size: np.ndarray
) -> None:
    """Each player takes the top ``count`` cards of a stock that holds at least that many."""
    most = int(count.max())
    if most == 1:  # one card each (a common penalty): no (n, depth) arrays
        _take_top_card(state, games, player, size)
        return
    hands, at = _cells(state.hand, games, player)
    depth = np.arange(most)[None, :]
    position = np.maximum(size[:, None] - 1 - depth, 0)
    cards = state.stock.reshape(-1)[(games * NUM_CARDS)[:, None] + position]
    bits = np.where(depth < count[:, None], CARD_BIT[cards], _U64_0)
    hands[at] |= np.bitwise_or.reduce(bits, axis=1)
    state.stock_size[games] = size - count


def _take_top_card(
    state: State, games: np.ndarray, player: np.ndarray, size: np.ndarray
) -> np.ndarray:
    """Each player takes the top card of a non-empty stock of ``size`` cards; returns it."""
    size = size - 1
    stocks, at = _cells(state.stock, games, size)
    drawn = stocks[at]
    state.stock_size[games] = size
    hands, at = _cells(state.hand, games, player)
    hands[at] |= CARD_BIT[drawn]
    return drawn


def _draw_one(state: State, games: np.ndarray, player: np.ndarray, chance, trace) -> np.ndarray:
    """Each player takes the top card of the stock; NO_CARD where nothing can be drawn."""
    size = state.stock_size[games]
    empty = size == 0
    if _any(empty):
        _reshuffle(state, games[empty], chance, trace)
        size = state.stock_size[games]
    has = size > 0
    if _all(has):
        return _take_top_card(state, games, player, size)
    drawn = np.full(games.shape, NO_CARD, dtype=np.int8)
    if _any(has):
        drawn[has] = _take_top_card(state, games[has], player[has], size[has])
    if state.tables.steal:
        lacking = (~has).nonzero()[0]
        drawn[lacking] = _steal(state, games[lacking], player[lacking], chance, trace)
    return drawn


def _reshuffle(state: State, games: np.ndarray, chance, trace) -> None:
    """The pile but its top card becomes the stock (RULES.md §6)."""
    sizes = state.discard_size[games]
    can = sizes > 1
    if not _all(can):
        games, sizes = games[can], sizes[can]
        if not games.size:
            return
    counts = sizes.astype(np.int64) - 1
    pile = np.take(state.discard, games, axis=0)
    if state.tables.flip:
        # Turned over: the oldest card (the pile's first) is the new top (the stack's last).
        column = counts[:, None] - 1 - np.arange(NUM_CARDS)[None, :]
        stack = np.take_along_axis(pile, np.maximum(column, 0), axis=1)
    else:
        stack = chance.shuffle(state, games, pile, counts)
    state.stock[games] = stack
    state.stock_size[games] = counts
    top = state.top_card[games]
    state.discard.reshape(-1)[games * NUM_CARDS] = top
    state.discard_size[games] = 1
    state.discard_bits[games] = CARD_BIT[top]
    if trace is not None:
        for game, row, count in zip(games.tolist(), stack.tolist(), counts.tolist(), strict=True):
            trace.emit(game, {"type": "reshuffle", "stock": row[:count][::-1]})


def _steal(state: State, games: np.ndarray, drawer: np.ndarray, chance, trace) -> np.ndarray:
    """The drawer takes a random card from the next player clockwise who holds cards."""
    holding = np.zeros(games.shape, dtype=np.intp)
    for seat in range(state.players):
        holding |= (state.hand[games, seat] != _U64_0).astype(np.intp) << seat
    holding &= ~(1 << drawer.astype(np.intp))
    victim = NEXT_SEAT[holding * 8 + drawer]
    drawn = np.full(games.shape, NO_CARD, dtype=np.int8)
    someone = victim != NOBODY  # nobody holds a card: the draw is forgiven
    if not _all(someone):
        games, drawer, victim = games[someone], drawer[someone], victim[someone]
        if not games.size:
            return drawn
    cards = np.asarray(chance.steal(state, games, drawer, victim), dtype=np.int8)
    drawn[someone] = cards
    bits = CARD_BIT[cards]
    hands, victim_at = _cells(state.hand, games, victim)
    hands[victim_at] &= ~bits
    hands, drawer_at = _cells(state.hand, games, drawer)
    hands[drawer_at] |= bits
    if trace is not None:
        for game, who, whom, card in zip(
            games.tolist(), drawer.tolist(), victim.tolist(), cards.tolist(), strict=False
        ):
            trace.emit(game, {"type": "steal", "player": who, "from": whom, "card": card})
    emptied = (hands[victim_at] == _U64_0) & ~state.ending[games]
    if _any(emptied):
        _mark_round_end(
            state, games[emptied], victim[emptied], np.full(int(emptied.sum()), NO_CARD, np.int8)
        )
    return drawn


# --- round and match end ----------------------------------------------------------------------


def _mark_round_end(
    state: State, games: np.ndarray, finisher: np.ndarray, last_card: np.ndarray
) -> None:
    state.scratch.ending.append(games)
    state.ending[games] = True
    state.end_finisher[games] = finisher
    state.end_last_card[games] = last_card


def hand_points(state: State, games: np.ndarray | None = None) -> np.ndarray:
    """(n, P) int32: points of the cards each seat holds (RULES.md §7)."""
    hands = state.hand if games is None else state.hand[games]
    bits = np.unpackbits(
        hands.view(np.uint8).reshape(*hands.shape, 8), axis=-1, count=NUM_CARDS, bitorder="little"
    )
    return bits.astype(np.int32) @ state.tables.points


def _end_rounds(state: State, games: np.ndarray, chance, trace) -> None:
    """Score the round, apply the reset and eliminations, then deal or end the match."""
    tables = state.tables
    finisher = state.end_finisher[games]
    last_card = state.end_last_card[games]
    if tables.last_card_effects:
        penalty = state.pending[games] + tables.draw[last_card]
        hit = penalty > 0
        if _any(hit):
            # The round is already over: a steal that empties a hand here ends nothing more
            # (``ending`` stays set meanwhile, so no second round end is marked).
            _draw_many(
                state,
                games[hit],
                _next_seat(state, games[hit], finisher[hit]),
                penalty[hit],
                chance,
                trace,
                stop_at_round_end=False,
            )
    state.ending[games] = False
    seats = np.arange(state.players)
    in_bits = state.in_match[games].astype(np.intp)
    was_in = (in_bits[:, None] >> seats[None, :]) & 1 == 1
    points = hand_points(state, games) * tables.bonus_multiplier[last_card][:, None]
    is_finisher = seats[None, :] == finisher[:, None]
    points = np.where(is_finisher, tables.bonus_points[last_card][:, None], points)
    points = np.where(was_in, points, 0)
    totals = state.totals[games] + points
    if tables.reset_at_target:
        totals = np.where(was_in & (totals == tables.target), 0, totals)
    state.totals[games] = totals
    state.round_points[games] += points
    state.rounds_ended[games] += 1
    going_out = was_in & (totals > tables.target)
    eliminated_round = np.where(
        going_out, state.round[games][:, None], state.eliminated_round[games]
    )
    state.eliminated_round[games] = eliminated_round
    out_bits = (going_out.astype(np.intp) << seats[None, :]).sum(axis=1)
    still_in = in_bits & ~out_bits
    state.in_match[games] = still_in
    state.last_finisher[games] = finisher
    if tables.first_loser:
        match_over = out_bits != 0
    else:
        match_over = np.bitwise_count(still_in.astype(np.uint8)) <= 1
    if trace is not None:
        for i, game in enumerate(games.tolist()):
            now_out = [p for p in range(state.players) if not (still_in[i] >> p & 1)]
            trace.emit(
                game,
                {
                    "type": "round_end",
                    "finisher": int(finisher[i]),
                    "last_card": None if last_card[i] == NO_CARD else int(last_card[i]),
                    "points": [
                        int(points[i, p]) if was_in[i, p] else None for p in range(state.players)
                    ],
                    "totals": [int(t) for t in totals[i]],
                    "out": now_out,
                },
            )
    eliminations = going_out.any(axis=1) & ~match_over
    if _any(eliminations):
        # An eliminated player's place is final: it is paid now, as it leaves.
        paid = games[eliminations]
        place_rewards = match_rewards(ranking_keys(state, paid))
        state.rewards[paid] += np.where(going_out[eliminations], place_rewards, 0.0)
    if _any(match_over):
        _end_match(state, games[match_over], truncated=False, trace=trace)
    going_on = games[~match_over]
    if going_on.size:
        state.round[going_on] += 1
        if tables.leader_plays:
            leader = finisher[~match_over]
            gone = ((state.in_match[going_on].astype(np.intp) >> leader) & 1) == 0
            dealer = np.where(gone, _next_seat(state, going_on, leader), leader)
        else:
            dealer = _next_seat(state, going_on, state.dealer[going_on])
        _start_round(state, going_on, dealer.astype(np.int8), chance, trace)


def _truncate(state: State, games: np.ndarray, trace) -> None:
    """A round reached max_turns: the match ends, truncated, without scoring the round."""
    _end_match(state, games, truncated=True, trace=trace)


def ranking_keys(state: State, games: np.ndarray) -> np.ndarray:
    """(n, P) sort keys, lower is better: players in by total, then the eliminated,
    those eliminated later first, each group by total (RULES.md §7, §8)."""
    eliminated = state.eliminated_round[games].astype(np.int64)
    group = np.where(eliminated < 0, 0, 1 + (np.iinfo(np.int16).max - eliminated))
    return group * (1 << 32) + state.totals[games].astype(np.int64) + (1 << 31)


def match_rewards(keys: np.ndarray) -> np.ndarray:
    """Zero-sum rewards from ranking keys: +1 for the best to −1 for the worst, linear in
    the place; tied players share the mean of their places' rewards."""
    _n, players = keys.shape
    place_reward = np.linspace(1.0, -1.0, players)
    better = (keys[:, None, :] < keys[:, :, None]).sum(axis=2)
    ties = (keys[:, None, :] == keys[:, :, None]).sum(axis=2)
    # Tied players occupy places better .. better + ties - 1: average their rewards.
    cumulative = np.concatenate([[0.0], np.cumsum(place_reward)])
    shared = (cumulative[better + ties] - cumulative[better]) / ties
    return shared.astype(np.float32)


def _end_match(state: State, games: np.ndarray, *, truncated: bool, trace) -> None:
    keys = ranking_keys(state, games)
    order = np.argsort(keys, axis=1, kind="stable").astype(np.int8)
    state.ranking[games] = order
    state.final_ranking[games] = order
    state.final_totals[games] = state.totals[games]
    if truncated:
        state.truncated[games] = True
        state.step_truncated[games] = True
    else:
        state.terminated[games] = True
        state.step_terminated[games] = True
        # Players eliminated in earlier rounds were paid when they went out.
        eliminated = state.eliminated_round[games]
        unpaid = (eliminated < 0) | (eliminated == state.round[games][:, None])
        state.rewards[games] += np.where(unpaid, match_rewards(keys), 0.0)
    state.scratch.matches_ended += games.size
    state.phase[games] = DONE
    state.current_player[games] = NOBODY
    state.legal_bits[games] = 0
    state.matches_played[games] += 1
    if trace is not None:
        for i, game in enumerate(games.tolist()):
            trace.emit(
                game,
                {
                    "type": "match_end",
                    "ranking": [int(p) for p in order[i]],
                    "totals": [int(t) for t in state.totals[game]],
                    "truncated": truncated,
                },
            )


# --- match and round start --------------------------------------------------------------------


def _start_match(state: State, games: np.ndarray, seeds: np.ndarray, chance, trace) -> None:
    P = state.players
    state.seed[games] = seeds
    state.rng_key[games] = rng.key_of_seed(seeds)
    state.rng_counter[games] = 0
    state.totals[games] = 0
    state.in_match[games] = (1 << P) - 1
    state.eliminated_round[games] = -1
    state.ranking[games] = NOBODY
    state.terminated[games] = False
    state.truncated[games] = False
    state.round[games] = 0
    state.last_finisher[games] = NOBODY
    state.ending[games] = False
    if trace is not None:
        rules = state.rules.to_dict()
        for game, seed in zip(games.tolist(), seeds.tolist(), strict=False):
            trace.start_match(game)
            trace.emit(
                game,
                {
                    "type": "match",
                    "version": RECORD_VERSION,
                    "rules": rules,
                    "players": P,
                    "seed": int(seed),
                },
            )
    dealer = np.asarray(chance.first_dealer(state, games), dtype=np.int8)
    _start_round(state, games, dealer, chance, trace)


def _start_round(state: State, games: np.ndarray, dealer: np.ndarray, chance, trace) -> None:
    """Shuffle, deal one card at a time from the player after the dealer, and open."""
    tables = state.tables
    P = state.players
    deck = np.asarray(chance.deck(state, games), dtype=np.int8)
    state.dealer[games] = dealer
    state.turn[games] = 0
    state.pending[games] = 0
    state.ordered_suit[games] = -1
    state.drawn_card[games] = NO_CARD
    if trace is not None:
        for game, row, who, number in zip(
            games.tolist(),
            deck.tolist(),
            dealer.tolist(),
            state.round[games].tolist(),
            strict=False,
        ):
            trace.emit(game, {"type": "round", "round": number, "dealer": who, "deck": row})
    n = games.size
    # Dealing order: next(dealer), next(next(dealer)), ..., dealer.
    order = np.empty((n, P), dtype=np.intp)
    seat = dealer.astype(np.intp)
    for position in range(P):
        seat = _next_seat(state, games, seat).astype(np.intp)
        order[:, position] = seat
    in_count = np.bitwise_count(state.in_match[games]).astype(np.intp)
    dealt = in_count * tables.hand_size
    position = np.arange(NUM_CARDS)[None, :]
    receiver = np.take_along_axis(order, position % in_count[:, None], axis=1)
    receiver = np.where(position < dealt[:, None], receiver, -1)
    bits = CARD_BIT[deck]
    hands = np.zeros((n, P), dtype=np.uint64)
    for seat_index in range(P):
        hands[:, seat_index] = np.bitwise_or.reduce(
            np.where(receiver == seat_index, bits, _U64_0), axis=1
        )
    state.hand[games] = hands
    state.stock[games] = deck[:, ::-1]
    state.stock_size[games] = NUM_CARDS - dealt
    state.discard_size[games] = 0
    state.discard_bits[games] = 0
    state.top_card[games] = NO_CARD
    state.current_player[games] = dealer
    state.phase[games] = PLAY
    if tables.leader_plays:
        return
    opening = deck[np.arange(n), dealt - 1]
    hands, at = _cells(state.hand, games, dealer)
    hands[at] &= ~CARD_BIT[opening]
    state.discard[games, 0] = opening
    state.discard_size[games] = 1
    state.discard_bits[games] = CARD_BIT[opening]
    state.top_card[games] = opening
    # The opening card takes effect exactly as if the dealer had played it (RULES.md §3).
    orders = tables.order_suit[opening]
    state.phase[games[orders]] = ORDER
    covers = ~orders & tables.cover[opening]
    state.phase[games[covers]] = COVER
    rest = ~orders & ~covers
    if _any(rest):
        _pass_with_effects(state, games[rest], dealer[rest], opening[rest], chance, trace)
    if state.scratch.ending:  # a steal on the opening penalty emptied a hand
        ending = np.concatenate(state.scratch.ending)
        state.scratch.ending.clear()
        _end_rounds(state, ending, chance, trace)


def describe(state: State, game: int = 0) -> str:
    """A one-game text dump for debugging (the envs have the readable renderer)."""
    lines = [
        f"round {int(state.round[game])} turn {int(state.turn[game])} "
        f"phase {PHASE_NAMES[state.phase[game]]} player {int(state.current_player[game])} "
        f"dealer {int(state.dealer[game])}",
        f"top {card_name(int(state.top_card[game])) if state.top_card[game] != NO_CARD else '-'}"
        f" ordered {int(state.ordered_suit[game])} stock {int(state.stock_size[game])}"
        f" pending {int(state.pending[game])}",
    ]
    for seat in range(state.players):
        cards = " ".join(card_name(c) for c in _card_list(int(state.hand[game, seat])))
        lines.append(f"  seat {seat}: total {int(state.totals[game, seat])} [{cards}]")
    return "\n".join(lines)


__all__ = [
    "RANDOM_CHANCE",
    "Autoplay",
    "Chance",
    "IllegalActionError",
    "RandomChance",
    "State",
    "Trace",
    "describe",
    "empty_state",
    "hand_points",
    "init",
    "legal_mask",
    "match_rewards",
    "ranking_keys",
    "reset_games",
    "sample_actions",
    "step",
    "unpack_actions",
]
