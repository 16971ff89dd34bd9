"""Action strings: the legal moves of a decision and their names (``play Q♠``, ``cover 8♣``,
``order ♥``, ``draw``, ``pass``, ``call``), and :class:`Plain`, the styler every text
builder takes (the terminal's ``Screen`` is the same with colour).

The words come from the action ids of :mod:`sto_odno_env.game.cards` and the phase the
engine reports, never from a preset's name.
"""

from __future__ import annotations

from ...game import cards
from ...game.cards import (
    DECK36,
    SUIT_SYMBOLS,
    Deck,
    action_name,
    card_name,
)
from ...game.engine import State
from ...tools.cli import plural

SUIT_NAMES = ("spades", "clubs", "diamonds", "hearts")


# --- the styler ----------------------------------------------------------------------------


class Plain:
    """Plain text pieces for the builders: card and suit names as they are. The terminal's
    ``Screen`` has the same methods with colour. ``deck`` is the deck whose ids are named;
    the builders that take a state set it to the state's deck."""

    def __init__(self, deck: Deck = DECK36):
        self.deck = deck

    @property
    def rich(self) -> bool:
        """Whether this styler prints through rich (plain text never does)."""
        return False

    def text(self, text: str) -> str:
        """``text`` made safe to print (as is in plain text)."""
        return text

    def style(self, text: str, style: str) -> str:
        """``text`` in a style (plain text ignores styles)."""
        return self.text(text)

    def card(self, card: int, strong: bool = False) -> str:
        """A card's name, e.g. ``Q♠``."""
        return card_name(card, self.deck)

    def suit(self, suit: int) -> str:
        """A suit's symbol."""
        return SUIT_SYMBOLS[suit]

    def hand(self, bits: int, highlight: int = 0) -> str:
        """The cards of a card mask; cards in ``highlight`` (a mask) stand out."""
        held = [c for c in range(self.deck.cards) if bits >> c & 1]
        return " ".join(self.card(c, strong=bool(highlight >> c & 1)) for c in held) or "-"

    def action(self, action: int, state: State | None = None, game: int = 0) -> str:
        """An action as :func:`action_text` names it, with what it means in the decision
        waiting in parentheses (``draw (take the penalty: 2 cards)``)."""
        if state is not None:
            self.deck = state.tables.deck
        deck = self.deck
        phase = None if state is None else int(state.phase[game])
        if action < deck.cards:
            verb = "cover" if phase == cards.PHASE_COVER else "play"
            text = f"{verb} {self.card(action)}"
        elif deck.order_base <= action < deck.draw:
            text = "order " + self.suit(action - deck.order_base)
        else:
            text = action_name(action, deck)
        note = "" if state is None else action_note(action, state, game)
        return f"{text} ({note})" if note else text


# --- action strings --------------------------------------------------------------------------


def legal_actions(state: State, game: int = 0) -> list[int]:
    """The legal actions of the player to act, in id order (cards, suits, draw, pass)."""
    bits = int(state.legal_bits[game])
    return [a for a in range(state.tables.num_actions) if bits >> a & 1]


def action_text(action: int, state: State | None = None, game: int = 0) -> str:
    """The action string of ``action``: ``play Q♠`` (``cover Q♠`` when it covers the card
    just played), ``order ♥``, ``draw``, ``pass``, ``call``. Without a state, the
    36-card deck's names and ``play`` for every card."""
    if state is None:
        return action_words(action, DECK36)
    cover = int(state.phase[game]) == cards.PHASE_COVER
    return action_words(action, state.tables.deck, cover=cover)


def action_words(action: int, deck: Deck, cover: bool = False) -> str:
    """The action string of ``action`` in ``deck``; ``cover``: the decision is a cover (a card
    then reads ``cover Q♠``)."""
    if cover and action < deck.cards:
        return f"cover {card_name(action, deck)}"
    return action_name(action, deck)


def action_note(action: int, state: State, game: int = 0) -> str:
    """What a draw or pass means in the decision waiting, or ``""``: ``take the penalty:
    2 cards``, ``draw a card to cover``, ``give up the cover``, ``end your turn``,
    ``do not call: draw 1 card``."""
    deck = state.tables.deck
    phase = int(state.phase[game])
    if action == deck.draw:
        if phase == cards.PHASE_RESPOND:
            return "take the penalty: " + plural(int(state.pending[game]), "card")
        if phase == cards.PHASE_COVER:
            return "draw a card to cover"
    if action == deck.pass_:
        if phase == cards.PHASE_COVER:
            return "give up the cover"
        if phase == cards.PHASE_CALL:
            return "do not call: draw " + plural(state.tables.call_penalty, "card")
        if phase == cards.PHASE_AFTER_DRAW:
            return "keep the drawn card"
    return ""


def legal_texts(state: State, game: int = 0) -> list[str]:
    """The action strings of the legal moves, in id order."""
    return [action_text(action, state, game) for action in legal_actions(state, game)]
