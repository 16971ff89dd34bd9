"""What a prompt says besides the view: how to answer (``ANSWER_FORMAT``,
:func:`answer_line`, :func:`answer_format`) and the rules in brief (:func:`rules_brief`,
:func:`rules_reminder`, from a rule set's tables)."""

from __future__ import annotations

from typing import Any

from ...game.cards import (
    SUIT_SYMBOLS,
    card_name,
)
from ...game.engine import State
from ...game.rules import Rules
from ...tools.cli import plural
from .actions import SUIT_NAMES, action_text, legal_actions

# --- how to answer ------------------------------------------------------------------------

# The one way every prompt asks for a move (the seat's view, the TextArena rules, a text
# agent's second try), so that no two lines of a prompt ask for different formats.
ANSWER_FORMAT = "one move as listed, in square brackets"


def answer_line(state: State, game: int = 0) -> str:
    """The view's last line: how to answer, with the first legal move as the example
    (``Answer with one move as listed, in square brackets, e.g. [play Q♠].``)."""
    example = action_text(legal_actions(state, game)[0], state, game)
    return f"Answer with {ANSWER_FORMAT}, e.g. [{example}]."


def answer_format(state: State) -> str:
    """How to answer, for the rules part of a prompt, with examples from ``state``'s deck
    and rule set: a card play, a cover and a suit order where the rules have them, draw
    and pass, and a queen's suit named with it."""
    tables = state.tables
    deck = tables.deck
    suits = deck.cards // deck.ranks
    # a card that orders a suit where there is one (the queen of spades in most decks)
    orders = [card for card in range(deck.cards) if tables.order_suit[card]]
    card = card_name(orders[0] if orders else deck.cards - 1, deck)
    examples = [f"[play {card}]"]
    covers = [c for c in range(deck.cards) if tables.cover[c]]
    if covers:
        examples.append(f"[cover {card_name(covers[-1], deck)}]")
    if orders:
        examples.append(f"[order {SUIT_SYMBOLS[suits - 1]}]")
    text = f"Answer with {ANSWER_FORMAT}: {', '.join([*examples, '[draw]', '[pass]'])}"
    if orders:
        named = f"[play {card} {SUIT_NAMES[suits - 1]}]"
        text += f"; a card that orders a suit may name it at once: {named}"
    return text + "."


# --- the rules in brief -----------------------------------------------------------------------


def _effect_words(effect: Any) -> list[str]:
    words = []
    if effect.wild:
        words.append("goes on any card")
    if effect.draw:
        words.append(f"the next player takes {plural(effect.draw, 'card')}")
    if effect.skip:
        words.append("the next player is skipped")
    if effect.cover:
        words.append("must be covered by another card of yours (or draw)")
    if effect.order_suit:
        words.append("you order the suit to follow")
    return words


def rules_brief(rules: Rules) -> list[str]:
    """The rules in a few lines, for a model's prompt: the aim and how a match ends, then
    the special cards (:func:`rules_reminder`), indented."""
    *special, ending = rules_reminder(rules)
    return [
        f"Get rid of your cards: the first to empty the hand ends the round; {ending}.",
        "A card goes on one of the same suit or rank; special cards:",
        *(f"  {line}" for line in special),
    ]


def rules_reminder(rules: Rules) -> list[str]:
    """What the special cards of ``rules`` do, one line each, from its effects and finish
    bonus tables (a card key overrides its rank's), and how a match ends."""
    lines = []
    for key, effect in rules.effects.items():
        words = _effect_words(effect)
        if words:
            lines.append(f"{key}: {'; '.join(words)}")
    for key, bonus in rules.finish_bonus.items():
        parts = []
        if bonus.points:
            parts.append(f"{bonus.points:+d} points")
        if bonus.multiplier != 1:
            parts.append(f"the others' points ×{bonus.multiplier}")
        if parts:
            lines.append(f"finishing on {key}: {', '.join(parts)}")
    if rules.stacking:
        lines.append("a penalty may be passed on with a card of the same rank")
    out = f"a total above {rules.target} is out"
    if rules.reset_at_target:
        out += f" (exactly {rules.target} goes back to 0)"
    end = "ends the match" if rules.match_end == "first_loser" else "puts you out"
    lines.append(f"cards left in hand score against you; {out.replace('is out', end)}")
    return lines
