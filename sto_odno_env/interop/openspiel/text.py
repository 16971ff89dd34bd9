"""A seat's view on one line: the observation the information state's history is made of.

The decision trail keeps, for each decision, a :class:`Seen`: the few numbers of the engine
state that the seats' lines read, not the engine state itself (a match's states can then
be freed as it goes: keeping them cost a tenth of an action's time in memory traffic).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...game import engine
from ...game.cards import PHASE_AFTER_DRAW, PHASE_COVER, PHASE_DONE, PHASE_NAMES, SUIT_SYMBOLS, Deck
from ...game.cards import card_name as _card_name
from ...views.text import Plain
from ...views.text.actions import action_words


class Seen(NamedTuple):
    """What the seats' lines read of one engine state (a batch of one game)."""

    deck: Deck
    phase: int
    round: int
    to_act: int
    top: int
    ordered: int
    pending: int
    stock: int
    pile: int  # the pile's card bits
    hands: tuple[int, ...]  # each seat's card bits
    drawn: int
    in_match: int  # the bits of the seats still in
    totals: tuple[int, ...]


def seen(state: engine.State) -> Seen:
    """The numbers of ``state`` that the seats' lines read."""
    return Seen(
        state.tables.deck,
        int(state.phase[0]),
        int(state.round[0]),
        int(state.current_player[0]),
        int(state.top_card[0]),
        int(state.ordered_suit[0]),
        int(state.pending[0]),
        int(state.stock_size[0]),
        int(state.discard_bits[0]),
        tuple(state.hand[0].tolist()),
        int(state.drawn_card[0]),
        int(state.in_match[0]),
        tuple(state.totals[0].tolist()),
    )


def seat_text(state: engine.State, seat: int) -> str:
    """What ``seat`` sees now, on one line (no hidden card enters it)."""
    return seen_text(seen(state), seat)


def seen_text(view: Seen, seat: int) -> str:
    """What ``seat`` saw in ``view``, on one line (no hidden card enters it)."""
    deck = view.deck
    parts = [f"seat {seat}", f"round {view.round + 1}"]
    if view.phase == PHASE_DONE:
        parts.append("match over")
    else:
        parts.append(f"to act: seat {view.to_act} ({PHASE_NAMES[view.phase]})")
    parts.append(f"top {_card_name(view.top, deck) if view.top != deck.no_card else '-'}")
    if view.ordered >= 0:
        parts.append(f"ordered {SUIT_SYMBOLS[view.ordered]}")
    if view.pending:
        parts.append(f"pending {view.pending}")
    parts.append(f"stock {view.stock}")
    names = Plain(deck)
    parts.append(f"pile {names.hand(view.pile)}")
    parts.append(f"hand {names.hand(view.hands[seat])}")
    if view.phase == PHASE_AFTER_DRAW and seat == view.to_act and view.drawn < deck.cards:
        parts.append(f"drawn {_card_name(view.drawn, deck)}")
    counts = [int(np.bitwise_count(np.uint64(hand))) for hand in view.hands]
    parts.append(
        "cards "
        + " ".join(
            f"s{p}:{count}" if view.in_match >> p & 1 else f"s{p}:out"
            for p, count in enumerate(counts)
        )
    )
    parts.append("totals " + " ".join(f"s{p}:{total}" for p, total in enumerate(view.totals)))
    return "; ".join(parts)


def seen_action(action: int, view: Seen) -> str:
    """The action string of ``action`` taken in ``view`` (``cover`` in a cover)."""
    return action_words(action, view.deck, cover=view.phase == PHASE_COVER)
