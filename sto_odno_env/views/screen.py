"""What the terminal game and the record viewer print: the table, moves, round results.

A :class:`Screen` writes to one text stream. On a terminal (and with rich installed) it
prints rich panels with coloured suits; otherwise plain lines that a test or a pipe can
read. The text builders here take engine states and record events (docs/rules.md §10) and
never decide anything about the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from ..game.cards import (
    DECK36,
    PHASE_AFTER_DRAW,
    PHASE_CALL,
    PHASE_COVER,
    PHASE_DONE,
    PHASE_NAMES,
    PHASE_ORDER,
    PHASE_RESPOND,
    SUIT_SYMBOLS,
    Deck,
    action_name,
    card_name,
)
from ..game.cli import plural
from ..game.engine import State

RED_SUITS = (2, 3)  # ♦ ♥


def rich_available() -> bool:
    """Whether the optional ``rich`` package (the ``play`` extra) is installed."""
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


class Screen:
    """Writes game text to ``out``: rich markup on a terminal, plain text elsewhere.

    Every builder goes through :meth:`style` and :meth:`text`, so the plain path never
    sees markup and the rich path never mistakes a name for a tag. Card and action ids are
    those of ``deck`` (the 36-card deck by default); the builders that take a state set it
    to the state's deck.
    """

    def __init__(self, out: TextIO, use_rich: bool = False, deck: Deck = DECK36):
        self.out = out
        self.deck = deck
        self.console = None
        if use_rich:
            from rich.console import Console

            # No highlighting or :emoji: codes: a name prints as typed.
            self.console = Console(file=out, highlight=False, emoji=False, soft_wrap=True)

    @property
    def rich(self) -> bool:
        """Whether this screen prints through rich."""
        return self.console is not None

    # --- pieces -------------------------------------------------------------------------

    def text(self, text: str) -> str:
        """``text`` made safe to print (escaped for rich markup)."""
        if self.rich:
            from rich.markup import escape

            return escape(text)
        return text

    def style(self, text: str, style: str) -> str:
        """``text`` in a rich style (plain text as is)."""
        return f"[{style}]{self.text(text)}[/]" if self.rich else text

    def card(self, card: int, strong: bool = False) -> str:
        """A card with its suit in colour (red for ♦ ♥)."""
        name = card_name(card, self.deck)
        if not self.rich:
            return name
        style = "red" if self.deck.suit_of(card) in RED_SUITS else "default"
        return self.style(name, f"bold {style}" if strong else style)

    def suit(self, suit: int) -> str:
        """A suit symbol in colour."""
        symbol = SUIT_SYMBOLS[suit]
        return self.style(symbol, "red" if suit in RED_SUITS else "default")

    def hand(self, bits: int, highlight: int = 0) -> str:
        """The cards of a card mask; cards in ``highlight`` (a mask) in bold."""
        cards = [c for c in range(self.deck.cards) if bits >> c & 1]
        return " ".join(self.card(c, strong=bool(highlight >> c & 1)) for c in cards) or "-"

    def action(self, action: int, state: State | None = None, game: int = 0) -> str:
        """An action in words, with the card or suit in colour."""
        if state is not None:
            self.deck = state.tables.deck
        deck = self.deck
        if action < deck.cards:
            return "play " + self.card(action)
        if deck.order_base <= action < deck.draw:
            return "order " + self.suit(action - deck.order_base)
        if action == deck.draw and state is not None:
            phase = int(state.phase[game])
            if phase == PHASE_RESPOND:
                return f"take the penalty ({plural(int(state.pending[game]), 'card')})"
            if phase == PHASE_COVER:
                return "draw (to cover)"
        if action == deck.pass_ and state is not None and int(state.phase[game]) == PHASE_COVER:
            return "pass (give up the cover)"
        return action_name(action, deck)

    # --- output -------------------------------------------------------------------------

    def say(self, line: str = "") -> None:
        """Print one line, already styled: text from elsewhere goes through :meth:`text`."""
        if self.console is not None:
            self.console.print(line)
        else:
            self.out.write(line + "\n")
        self.out.flush()

    def block(self, title: str, lines: Sequence[str]) -> None:
        """A titled block: a rich panel, or a title line and indented lines. The title is
        plain text; the lines are styled."""
        if self.console is not None:
            from rich.panel import Panel

            body = "\n".join(lines) if lines else self.style("(nothing)", "dim")
            panel = Panel(body, title=self.text(title), title_align="left", expand=False)
            self.console.print(panel)
        else:
            self.out.write(f"== {title} ==\n" + "".join(f"  {line}\n" for line in lines))
        self.out.flush()

    def ask(self, prompt: str) -> None:
        """Write a plain-text prompt without a newline, flushed so a reader sees it at once.

        On rich the prompt is escaped: ``[n]ext`` is text, not a markup tag."""
        if self.console is not None:
            self.console.print(self.text(prompt), end="")
        else:
            self.out.write(prompt)
        self.out.flush()


# --- builders --------------------------------------------------------------------------


def legal_actions(state: State, game: int = 0) -> list[int]:
    """The legal actions of the player to act, in id order (cards, suits, draw, pass)."""
    bits = int(state.legal_bits[game])
    return [a for a in range(state.tables.num_actions) if bits >> a & 1]


def situation(screen: Screen, state: State, game: int = 0) -> list[str]:
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
        PHASE_AFTER_DRAW: "drawn: {drawn}; play a card or pass",
        PHASE_COVER: "the card just played must be covered",
        PHASE_ORDER: "name the suit the next player must follow",
        PHASE_RESPOND: "a penalty is coming: add to it or take it",
        PHASE_CALL: "one card left: call it, or pass and draw "
        + plural(state.tables.call_penalty, "card"),
    }.get(phase)
    if hint:
        drawn = int(state.drawn_card[game])
        lines.append(hint.format(drawn=screen.card(drawn) if drawn != no_card else "a card"))
    return lines


def seat_lines(
    screen: Screen,
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


def move_lines(screen: Screen, state: State, game: int = 0) -> list[str]:
    """The legal moves numbered from 1, as the player types them."""
    return [
        f"{number:>2}) {screen.action(action, state, game)}"
        for number, action in enumerate(legal_actions(state, game), start=1)
    ]


def event_text(
    screen: Screen, event: dict[str, Any], names: Sequence[str], viewer: int | None = None
) -> str | None:
    """One record event in words, or None for events shown elsewhere (match header).

    ``viewer`` is the seat whose secrets may be shown (a stolen or drawn card is shown to
    the seats that hold or held it only); None shows everything (the record viewer).
    Besides the record's events (docs/rules.md §10) the terminal game passes the cards a
    seat took: ``drawn`` (card ids) on the action of a seat that drew, and ``draw``
    events ``{"player", "cards"}`` for a penalty taken.
    """
    kind = event["type"]
    player = event.get("player")
    if kind == "action":
        text = f"{screen.text(names[player])}: {screen.action(event['action'])}"
        text += " " + screen.style("(forced)", "dim") if event["forced"] else ""
        if event.get("drawn"):
            text += " → " + _taken(screen, event["drawn"], viewer in (None, player))
        return text
    if kind == "draw":
        verb = "take" if viewer == player else "takes"
        cards = event["cards"]
        text = f"{screen.text(names[player])} {verb} {plural(len(cards), 'card')} (penalty)"
        return text + (": " + _taken(screen, cards) if viewer in (None, player) else "")
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


def _taken(screen: Screen, cards: Sequence[int], shown: bool = True) -> str:
    """Cards a seat took: the cards when ``shown``, else only how many."""
    if shown:
        return " ".join(screen.card(card) for card in cards)
    return plural(len(cards), "card")


def round_result_lines(screen: Screen, event: dict[str, Any], names: Sequence[str]) -> list[str]:
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
    screen: Screen, event: dict[str, Any], names: Sequence[str], you: int | None = None
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


def phase_name(state: State, game: int = 0) -> str:
    """The phase of the decision waiting, or ``match over``."""
    phase = int(state.phase[game])
    return "match over" if phase == PHASE_DONE else PHASE_NAMES[phase]
