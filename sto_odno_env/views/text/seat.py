"""What a seat sees, as text: the situation, the seats, the legal moves numbered, and
:func:`seat_view`, the whole prompt for one seat."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...game import cards
from ...game.engine import State
from ...tools.cli import plural
from .actions import Plain, legal_actions
from .events import event_text
from .prompt import answer_line


def situation(screen: Plain, state: State, game: int = 0) -> list[str]:
    """Top card, ordered suit, stock and pending penalty, and what the phase asks for."""
    screen.deck = state.tables.deck
    no_card = screen.deck.no_card
    top = int(state.top_card[game])
    parts = ["top card " + (screen.card(top, strong=True) if top != no_card else "(none)")]
    suit = int(state.ordered_suit[game])
    if suit >= 0:
        parts.append("ordered suit " + screen.suit(suit))
    parts.append(f"stock {int(state.stock_size[game])}")
    if int(state.pending[game]):
        parts.append(f"penalty pending {int(state.pending[game])}")
    lines = [" · ".join(parts)]
    phase = int(state.phase[game])
    hint = {
        cards.PHASE_AFTER_DRAW: "drawn: {drawn}; play a card or pass",
        cards.PHASE_COVER: "the card just played ({top}) must be covered: play a card on it, or "
        "draw or pass",
        cards.PHASE_ORDER: "name the suit the next player must follow",
        cards.PHASE_RESPOND: "a penalty is coming: add to it or take it",
        cards.PHASE_CALL: "one card left: call it, or pass and draw "
        + plural(state.tables.call_penalty, "card"),
    }.get(phase)
    if hint:
        drawn = int(state.drawn_card[game])
        lines.append(
            hint.format(
                drawn=screen.card(drawn) if drawn != no_card else "a card",
                top=screen.card(top) if top != no_card else "-",
            )
        )
    return lines


def seat_lines(
    screen: Plain,
    state: State,
    names: Sequence[str],
    shown: Sequence[int] = (),
    game: int = 0,
) -> list[str]:
    """One line per seat: marks, name, card count, total, and the hand if in ``shown``.

    Marks: ``>`` to act, ``D`` dealer (leader under ``leader_plays``), ``out`` eliminated.
    """
    screen.deck = state.tables.deck
    current = int(state.current_player[game])
    width = max(len(name) for name in names)
    lines = []
    for seat, name in enumerate(names):
        bits = int(state.hand[game, seat])
        out = not int(state.in_match[game]) >> seat & 1
        mark = (">" if seat == current else " ") + ("D" if seat == state.dealer[game] else " ")
        line = (
            f"{mark} {screen.text(name.ljust(width))}  {bits.bit_count():>2} "
            f"{'card ' if bits.bit_count() == 1 else 'cards'}  "
            f"total {int(state.totals[game, seat]):>3}"
        )
        if out:
            line += "  " + screen.style("out", "dim")
        elif seat in shown:
            line += "  " + screen.hand(bits)
        lines.append(line)
    return lines


def move_lines(screen: Plain, state: State, game: int = 0) -> list[str]:
    """The legal moves numbered from 1, as the player types them."""
    return [
        f"{number:>2}) {screen.action(action, state, game)}"
        for number, action in enumerate(legal_actions(state, game), start=1)
    ]


def phase_name(state: State, game: int = 0) -> str:
    """The phase of the decision waiting, or ``match over``."""
    phase = int(state.phase[game])
    return "match over" if phase == cards.PHASE_DONE else cards.PHASE_NAMES[phase]


# Decisions that open a seat's turn; the others (after its own draw, cover, queen or call)
# go on with the turn that led to them.
TURN_STARTS = (cards.PHASE_PLAY, cards.PHASE_RESPOND)


def opens_turn(state: State, last_actor: int | None, game: int = 0) -> bool:
    """Whether the decision waiting opens a new turn of the player to act, after a
    decision of ``last_actor`` (None: a round was just dealt). A skip that brings the turn
    back opens a new one; a seat's forced decisions are turns like any other."""
    seat = int(state.current_player[game])
    return last_actor != seat or int(state.phase[game]) in TURN_STARTS


def seat_names(players: int, seat: int, name: str = "You") -> list[str]:
    """``name`` for ``seat`` and ``seat k`` for the others: the default names of a view."""
    return [name if p == seat else f"seat {p}" for p in range(players)]


def seat_view(
    state: State,
    seat: int,
    game: int = 0,
    names: Sequence[str] | None = None,
    recent: Iterable[dict[str, Any]] = (),
    turn: int | None = None,
    show_round: bool = True,
) -> str:
    """The view of ``seat`` as text, to show a player or put in a model's prompt.

    ``names`` names every seat (default: ``You`` and ``seat k``; the viewer's name is
    marked ``(you)`` in the lists unless it is ``You``); ``recent`` is what
    happened since the seat's last turn, as record events (docs/rules.md §10, with the
    ``draw`` events of :func:`event_text`), told as ``seat`` may know it; ``turn`` is the
    number of the seat's own turn to show; ``show_round`` False leaves the round number
    out (a state rebuilt from an observation does not know it). The legal moves are listed
    only when ``seat`` is to act."""
    plain = list(names) if names is not None else seat_names(state.players, seat)
    you = plain[seat] if f"seat {seat}" in plain[seat] else f"{plain[seat]} (seat {seat})"
    names = [
        f"{name} (you)" if p == seat and name != "You" else name for p, name in enumerate(plain)
    ]
    rules = state.tables.rules
    acting = int(state.current_player[game]) == seat and int(state.phase[game]) != cards.PHASE_DONE
    head = f"101 · rules {rules.name} · {state.players} players"
    if show_round:
        head += f" · round {int(state.round[game]) + 1}"
    if turn is not None:
        head += f" · your turn {turn}"
    out = f"a total above {rules.target} is out"
    lines = [head, f"You are {you}; {out}." if plain[seat] != "You" else f"A{out[1:]}."]
    screen = Plain(state.tables.deck)  # this state's deck names every card id below
    events = [text for event in recent if (text := event_text(screen, event, names, seat))]
    if events:
        lines += ["Since your last turn:", *(f"  {text}" for text in events)]
    lines += situation(screen, state, game)
    lines += [
        "Players (> to act, D dealer):",
        *(f"  {line}" for line in seat_lines(screen, state, names, game=game)),
    ]
    lines.append("Your hand: " + screen.hand(int(state.hand[game, seat])))
    if acting:
        lines += ["Legal moves:", *move_lines(screen, state, game)]
        lines.append(answer_line(state, game))
    elif int(state.phase[game]) == cards.PHASE_DONE:
        lines.append("The match is over.")
    return "\n".join(lines)
