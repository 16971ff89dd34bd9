"""What the terminal game and the record viewer print: the table, moves, round results.

A :class:`Screen` writes to one text stream. On a terminal (and with rich installed) it
prints rich panels with coloured suits; otherwise plain lines that a test or a pipe can
read. The text builders (:mod:`sto_odno_env.views.text`, named here too) take engine states
and record events (docs/rules.md §10) and never decide anything about the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ..game.cards import DECK36, SUIT_SYMBOLS, Deck, card_name

# The builders live in the text interface (views/text/) and take a Screen as their styler;
# they are named here too, where the terminal game and the web table import them.
from .text import (  # noqa: F401
    Plain,
    event_text,
    legal_actions,
    match_result_lines,
    move_lines,
    phase_name,
    round_result_lines,
    seat_lines,
    situation,
)

RED_SUITS = (2, 3)  # ♦ ♥


def rich_available() -> bool:
    """Whether the optional ``rich`` package (the ``play`` extra) is installed."""
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


class Screen(Plain):
    """Writes game text to ``out``: rich markup on a terminal, plain text elsewhere.

    Every builder goes through :meth:`style` and :meth:`text`, so the plain path never
    sees markup and the rich path never mistakes a name for a tag. Card and action ids are
    those of ``deck`` (the 36-card deck by default); the builders that take a state set it
    to the state's deck.
    """

    def __init__(self, out: TextIO, use_rich: bool = False, deck: Deck = DECK36):
        super().__init__(deck)
        self.out = out
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
