"""A seat's view on one line: the observation the information state's history is made of."""

from __future__ import annotations

import numpy as np

from ...game import engine
from ...game.cards import PHASE_AFTER_DRAW, PHASE_DONE, PHASE_NAMES, SUIT_SYMBOLS
from ...game.cards import card_name as _card_name
from ...views.text import Plain


def seat_text(state: engine.State, seat: int) -> str:
    """What ``seat`` sees now, on one line (no hidden card enters it)."""
    deck = state.tables.deck
    cards = deck.cards
    phase = int(state.phase[0])
    parts = [f"seat {seat}", f"round {int(state.round[0]) + 1}"]
    if phase == PHASE_DONE:
        parts.append("match over")
    else:
        actor = int(state.current_player[0])
        parts.append(f"to act: seat {actor} ({PHASE_NAMES[phase]})")
    top = int(state.top_card[0])
    parts.append(f"top {_card_name(top, deck) if top != deck.no_card else '-'}")
    if int(state.ordered_suit[0]) >= 0:
        parts.append(f"ordered {SUIT_SYMBOLS[int(state.ordered_suit[0])]}")
    if int(state.pending[0]):
        parts.append(f"pending {int(state.pending[0])}")
    parts.append(f"stock {int(state.stock_size[0])}")
    names = Plain(deck)
    parts.append(f"pile {names.hand(int(state.discard_bits[0]))}")
    parts.append(f"hand {names.hand(int(state.hand[0, seat]))}")
    drawn = int(state.drawn_card[0])
    if phase == PHASE_AFTER_DRAW and seat == int(state.current_player[0]) and drawn < cards:
        parts.append(f"drawn {_card_name(drawn, deck)}")
    counts = [int(np.bitwise_count(state.hand[0, p])) for p in range(state.players)]
    ins = [p for p in range(state.players) if int(state.in_match[0]) >> p & 1]
    parts.append(
        "cards "
        + " ".join(f"s{p}:{counts[p]}" if p in ins else f"s{p}:out" for p in range(len(counts)))
    )
    parts.append("totals " + " ".join(f"s{p}:{int(t)}" for p, t in enumerate(state.totals[0])))
    return "; ".join(parts)
