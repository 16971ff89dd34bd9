"""Record events in words: one line per event (:func:`event_text`), a round's and a
match's results. The one wording of what happened at a table: the terminal game, the seat
views, the record viewers and the envs' ``render_mode="ansi"`` table all use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...tools.cli import plural
from .actions import Plain


def event_text(
    screen: Plain, event: dict[str, Any], names: Sequence[str], viewer: int | None = None
) -> str | None:
    """One record event in words, or None for events shown elsewhere (match header).

    ``viewer`` is the seat whose secrets may be shown (a stolen or drawn card is shown to
    the seats that hold or held it only); None shows everything (the record viewer).
    Besides the record's events (docs/rules.md §10) the terminal game passes the cards a
    seat took: ``drawn`` (card ids) on the action of a seat that drew, and ``draw``
    events ``{"player", "cards"}`` for a penalty taken, with ``"cause"`` (the card that
    gave it) where known.
    """
    kind = event["type"]
    player = event.get("player")
    if kind == "action":
        text = f"{screen.text(names[event['player']])}: {screen.action(event['action'])}"
        text += " " + screen.style("(forced)", "dim") if event["forced"] else ""
        if event.get("drawn"):
            text += " → " + _taken(screen, event["drawn"], viewer in (None, player))
        return text
    if kind == "draw":
        verb = "take" if viewer == player else "takes"
        taken = event["cards"]
        cause = event.get("cause")
        why = "penalty" if cause is None else f"penalty of {screen.card(cause)}"
        text = f"{screen.text(names[event['player']])} {verb} {plural(len(taken), 'card')} ({why})"
        return text + (": " + _taken(screen, taken) if viewer in (None, player) else "")
    if kind == "unfinished":
        return "the record stops here: the match was left unfinished"
    if kind == "steal":
        thief, victim = event["player"], event["from"]
        card = "a card"
        if viewer is None or viewer in (thief, victim):
            card = screen.card(event["card"])
        return f"{screen.text(names[thief])} steals {card} from {screen.text(names[victim])}"
    if kind == "reshuffle":
        return f"the discard pile becomes the stock ({plural(len(event['stock']), 'card')})"
    if kind == "round":
        return f"round {event['round'] + 1} dealt by {screen.text(names[event['dealer']])}"
    if kind == "round_end":
        last = event["last_card"]
        how = f"on {screen.card(last)}" if last is not None else "(last card stolen)"
        return f"round over: {screen.text(names[event['finisher']])} finished {how}"
    if kind == "match_end":
        return "match over" + (" (truncated)" if event["truncated"] else "")
    return None


def _taken(screen: Plain, taken: Sequence[int], shown: bool = True) -> str:
    """Cards a seat took: the cards when ``shown``, else only how many."""
    if shown:
        return " ".join(screen.card(card) for card in taken)
    return plural(len(taken), "card")


def round_result_lines(screen: Plain, event: dict[str, Any], names: Sequence[str]) -> list[str]:
    """A ``round_end`` event: who finished, each seat's points and running total."""
    lines = [event_text(screen, event, names) or ""]
    width = max(len(name) for name in names)
    for seat, name in enumerate(names):
        points = event["points"][seat]
        scored = "   -" if points is None else f"{points:>+4d}"
        line = f"{screen.text(name.ljust(width))}  {scored}  total {event['totals'][seat]:>3}"
        if seat in event["out"]:
            line += "  " + screen.style("out", "dim")
        lines.append(line)
    return lines


def match_result_lines(
    screen: Plain, event: dict[str, Any], names: Sequence[str], you: int | None = None
) -> list[str]:
    """A ``match_end`` event: the ranking with totals, and the human's place."""
    lines = []
    if event["truncated"]:
        lines.append("the match was stopped at the turn limit (truncated)")
    for place, seat in enumerate(event["ranking"], start=1):
        lines.append(f"{place}. {screen.text(names[seat])}  total {event['totals'][seat]}")
    if you is not None:
        place = event["ranking"].index(you) + 1
        totals = event["totals"]
        if place == 1 and list(totals).count(totals[you]) == 1:
            lines.append(screen.style("You win!", "bold green"))
        else:
            lines.append(f"You finish {_ordinal(place)} of {len(names)}.")
    return lines


def _ordinal(number: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number if number < 20 else number % 10, "th")
    return f"{number}{suffix}"
