"""Text views of one game: the readable table of ``render_mode="ansi"``/``"human"``, and
:func:`describe`, a one-game dump for debugging the engine.

The readable table numbers rounds from 1, as the terminal game and the pictures do;
``describe`` prints the state's fields as they are (``state.round`` counts from 0). The
moves are told in the words of :func:`sto_odno_env.views.text.event_text`, which the
terminal game and the record viewers use too."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from ..game.cards import (
    DECK36,
    PHASE_DONE,
    PHASE_NAMES,
    SUIT_SYMBOLS,
    action_name,
    card_name,
)
from ..game.core.state import State
from ..tools.cli import plural
from .text import Plain, event_text


class RecentMoves:
    """A trace that keeps the last few record events of game 0 (actions and chance)."""

    KINDS = ("action", "steal", "reshuffle", "round", "round_end")

    def __init__(self, length: int = 8):
        self.moves: deque[dict[str, Any]] = deque(maxlen=length)

    def start_match(self, game: int) -> None:
        self.moves.clear()

    def emit(self, game: int, event: dict[str, Any]) -> None:
        if event["type"] in self.KINDS:
            self.moves.append(event)


def _cards(bits: int, deck=None) -> str:
    cards = (deck or DECK36).cards
    return " ".join(card_name(c, deck) for c in range(cards) if bits >> c & 1) or "-"


def _move_text(event: dict[str, Any], names: list[str], deck=None) -> str:
    # the one wording of every event (views/text/events.py), every card shown
    return event_text(Plain(deck or DECK36), event, names) or ""


def _after(seat: int, seats_in: list[int]) -> int:
    """The next seat clockwise after ``seat`` among ``seats_in``."""
    later = [other for other in seats_in if other > seat]
    return later[0] if later else seats_in[0]


def _round_text(
    state: State, game: int, moves: list[dict[str, Any]], index: int, names: list[str]
) -> str:
    """A ``round`` line: the dealer, the opening card (docs/rules.md §3), and the players it
    skipped, read from who acted first (the player to act now, in a round just dealt)."""
    event = moves[index]
    dealer = event["dealer"]
    tables = state.tables
    if tables.leader_plays:
        return f"round {event['round'] + 1} led by {names[dealer]}"
    later = moves[index + 1 :]
    ends = [i for i, move in enumerate(later) if move["type"] in ("round", "round_end")]
    this_round = later[: ends[0]] if ends else later
    current = not ends
    if ends and later[ends[0]]["type"] == "round_end":  # who played it: points not null
        points = later[ends[0]]["points"]
        seats_in = [seat for seat, value in enumerate(points) if value is not None]
    elif current:
        seats_in = [p for p in range(state.players) if int(state.in_match[game]) >> p & 1]
    else:
        return _move_text(event, names, tables.deck)
    opening = event["deck"][len(seats_in) * tables.hand_size - 1]
    name = card_name(opening, tables.deck)
    text = f"{_move_text(event, names, tables.deck)}, opening card {name}"
    decides = bool(tables.order_suit[opening] or tables.cover[opening])
    expected = dealer if decides else _after(dealer, seats_in)
    actors = [move["player"] for move in this_round if move["type"] == "action"]
    if actors:
        first = actors[0]
    elif current and int(state.phase[game]) != PHASE_DONE:
        first = int(state.current_player[game])
    else:
        return text
    skipped: list[str] = []
    seat = expected
    while seat != first and len(skipped) < len(seats_in):
        skipped.append(names[seat])
        seat = _after(seat, seats_in)
    if skipped and seat == first:
        penalty = int(tables.draw[opening])
        if penalty and len(skipped) == 1:
            text += f": {skipped[0]} takes {plural(penalty, 'card')} and is skipped"
        else:
            text += f": {', '.join(skipped)} skipped"
    return text


def render_game(
    state: State,
    game: int = 0,
    names: list[str] | None = None,
    moves: Iterable[dict[str, Any]] = (),
    show_seat: int | None = None,
) -> str:
    """The table as text: top card, ordered suit, the shown hand, counts, totals, moves.

    ``show_seat`` is the seat whose cards are shown (default: the player to act).
    """
    players = state.players
    deck = state.tables.deck
    names = names or [f"player_{p}" for p in range(players)]
    current = int(state.current_player[game])
    phase = int(state.phase[game])
    shown = current if show_seat is None else show_seat
    top = int(state.top_card[game])
    suit = int(state.ordered_suit[game])
    lines = [
        f"round {int(state.round[game]) + 1} · turn {int(state.turn[game])} · "
        + (
            "match over"
            if phase == PHASE_DONE
            else f"{names[current]} to act ({PHASE_NAMES[phase]})"
        ),
        f"top card: {card_name(top, deck) if top != deck.no_card else '(empty table)'}"
        + (f" · ordered suit: {SUIT_SYMBOLS[suit]}" if suit >= 0 else "")
        + (f" · penalty pending: {int(state.pending[game])}" if state.pending[game] else ""),
        f"stock: {plural(int(state.stock_size[game]), 'card')} · discard pile: "
        f"{plural(int(state.discard_size[game]), 'card')}",
        "",
        f"   {'seat':<10} {'cards':>5} {'total':>6}  hand",
    ]
    for seat in range(players):
        bits = int(state.hand[game, seat])
        out = not (int(state.in_match[game]) >> seat & 1)
        marks = ("*" if seat == current else " ") + ("D" if seat == state.dealer[game] else " ")
        hand = _cards(bits, deck) if seat == shown and shown >= 0 else ("(out)" if out else "")
        lines.append(
            f"{marks} {names[seat]:<10} {bits.bit_count():>5} "
            f"{int(state.totals[game, seat]):>6}  {hand}"
        )
    if phase != PHASE_DONE and shown == current:
        bits = int(state.legal_bits[game])
        legal = [
            f"{a} = {action_name(a, deck)}"
            for a in range(state.tables.num_actions)
            if bits >> a & 1
        ]
        lines += ["", f"legal actions (id = move): {', '.join(legal)}"]
    moves = list(moves)
    recent = [
        _round_text(state, game, moves, index, names)
        if event["type"] == "round"
        else _move_text(event, names, deck)
        for index, event in enumerate(moves)
    ]
    if recent:
        lines += ["", "last moves:"] + [f"  {text}" for text in recent]
    return "\n".join(lines)


def describe(state: State, game: int = 0) -> str:
    """A one-game text dump for debugging (the envs have the readable :func:`render_game`)."""
    deck = state.tables.deck
    top = int(state.top_card[game])
    lines = [
        f"round {int(state.round[game])} turn {int(state.turn[game])} "
        f"phase {PHASE_NAMES[state.phase[game]]} player {int(state.current_player[game])} "
        f"dealer {int(state.dealer[game])}",
        f"top {card_name(top, deck) if top != deck.no_card else '-'}"
        f" ordered {int(state.ordered_suit[game])} stock {int(state.stock_size[game])}"
        f" pending {int(state.pending[game])}",
    ]
    for seat in range(state.players):
        bits = int(state.hand[game, seat])
        cards = " ".join(card_name(c, deck) for c in range(deck.cards) if bits >> c & 1)
        lines.append(f"  seat {seat}: total {int(state.totals[game, seat])} [{cards}]")
    return "\n".join(lines)
