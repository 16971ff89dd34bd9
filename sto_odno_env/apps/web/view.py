"""What the human's seat may know, as the plain data every page and JSON answer is made of.

:func:`seat_view` builds it from the seat's observation vector
(:func:`sto_odno_env.views.observation.observe_one`: nothing hidden enters it, tested in
``tests/test_observation.py``), the seat's legal-action mask, and the public log the
match keeps for the seat (:class:`sto_odno_env.apps.web.match.WebMatch`). It never sees the
engine state, so it cannot show a card the seat does not hold, the stock's order or the
match seed. Cards are named (``Q♠``); the only action ids are those of the seat's own
legal moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...game.cards import (
    PHASE_AFTER_DRAW,
    PHASE_COVER,
    PHASE_ORDER,
    PHASE_PLAY,
    PHASE_RESPOND,
    SUIT_SYMBOLS,
    card_name,
)
from ...game.rules import Rules
from ...tools.cli import plural
from ...views.observation import ObservationView, layout

PHASE_WORDS = {
    PHASE_PLAY: "play",
    PHASE_AFTER_DRAW: "after_draw",
    PHASE_COVER: "cover",
    PHASE_ORDER: "order",
    PHASE_RESPOND: "respond",
}
PROMPTS = {
    "play": "Play a card of the top card's suit or rank, or draw.",
    "after_draw": "You drew {drawn}: play it or pass.",
    "cover": "The card just played must be covered.",
    "order": "Name the suit the next player must follow.",
    "respond": "A penalty of {pending} is coming: add to it, or take it.",
    "call": "One card left: call it, or pass (and draw {call_penalty}).",
}


def seat_view(
    observation: np.ndarray,
    mask: np.ndarray | None,
    *,
    rules: Rules,
    players: int,
    seat: int,
    names: Sequence[str],
    game: str,
    move: int,
    round_number: int,
    turn: int,
    since: Sequence[dict[str, Any]] = (),
    rounds: Sequence[dict[str, Any]] = (),
    result: dict[str, Any] | None = None,
    baselines: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The seat's view (see the module docstring): table, seats, own hand, legal moves
    (``mask``, None when the seat is not to act), the log since its last decision, round
    results, the match result and the duplicate baselines, all JSON-ready."""
    deck = rules.deck_spec
    obs = ObservationView(observation, target=rules.target, cards=deck)
    hand = [c for c in range(deck.cards) if obs.hand[0, c]]
    top = int(obs.top_card[0])
    suit = int(obs.ordered_suit[0])
    drawn = int(obs.drawn_card[0])
    pending = int(obs.pending[0])
    phase_index = int(obs.phase[0])
    over = phase_index < 0
    calling = rules.last_card_call and observation[layout(rules)["call"]][0] > 0.5
    phase = "over" if over else "call" if calling else PHASE_WORDS[phase_index]
    to_act_rel = int(obs.to_act[0])
    to_act = None if to_act_rel < 0 else (seat + to_act_rel) % players

    others_in = obs.others_in[0]
    others_dealer = obs.field("others_dealer")[0] > 0.5
    sizes, totals = obs.others_hand_size[0], obs.others_total[0]
    out = {s for entry in rounds for s in entry["out"]}  # eliminated, from the round results
    seats = []
    for seat_index in range(players):
        k = (seat_index - seat) % players  # 0: the seat itself, k: k places after it
        if k == 0:
            count, total, is_in = len(hand), int(obs.own_total[0]), seat not in out
            dealer = bool(obs.field("own_dealer")[0, 0] > 0.5)
        else:
            count, total = int(sizes[k - 1]), int(totals[k - 1])
            is_in = seat_index not in out if over else bool(others_in[k - 1])
            dealer = bool(others_dealer[k - 1])
        seats.append(
            {
                "seat": seat_index,
                "name": names[seat_index],
                "cards": count,
                "total": total,
                "in": is_in,
                "dealer": dealer and not over,
                "to_act": seat_index == to_act,
                "you": k == 0,
            }
        )

    legal = [] if mask is None else _moves(mask, deck, phase, pending)
    prompt = ""
    if legal:
        prompt = PROMPTS[phase].format(
            drawn=card_name(drawn, deck) if drawn >= 0 else "a card",
            pending=plural(pending, "card"),
            call_penalty=plural(rules.call_penalty, "card") if rules.last_card_call else "",
        )
    return {
        "game": game,
        "rules": rules.name,
        "deck": deck.value(),  # 36, 52, or a small deck {ranks, suits}: its cards' names
        "players": players,
        "seat": seat,
        "names": list(names),
        "move": move,
        "round": round_number,
        "turn": turn,
        "over": over,
        "phase": phase,
        "to_act": to_act,
        "your_turn": bool(legal),
        "prompt": prompt,
        "table": {
            "top": card_name(top, deck) if top >= 0 else None,
            "ordered_suit": SUIT_SYMBOLS[suit] if suit >= 0 else None,
            "stock": int(obs.stock_size[0]),
            "discard": int(obs.discard[0].sum()),
            "pending": pending,
        },
        "seats": seats,
        "hand": [card_name(c, deck) for c in hand],
        "drawn": card_name(drawn, deck) if drawn >= 0 else None,
        "legal": legal,
        "since": [dict(entry) for entry in since],
        "rounds": [dict(entry) for entry in rounds],
        "result": dict(result) if result is not None else None,
        "baselines": [dict(entry) for entry in baselines],
    }


def _moves(mask: np.ndarray, deck, phase: str, pending: int) -> list[dict[str, Any]]:
    """The legal moves as buttons: action id, kind, card or suit, label."""
    moves = []
    for action in np.flatnonzero(np.asarray(mask) > 0).tolist():
        if action < deck.cards:
            name = card_name(action, deck)
            verb = "cover with" if phase == "cover" else "play"
            moves.append(
                {"action": action, "kind": "card", "card": name, "label": f"{verb} {name}"}
            )
        elif deck.order_base <= action < deck.draw:
            symbol = SUIT_SYMBOLS[action - deck.order_base]
            moves.append(
                {"action": action, "kind": "suit", "suit": symbol, "label": f"order {symbol}"}
            )
        elif action == deck.draw:
            label = {
                "respond": f"take the penalty ({plural(pending, 'card')})",
                "cover": "draw (to cover)",
            }.get(phase, "draw")
            moves.append({"action": action, "kind": "draw", "label": label})
        elif action == deck.pass_:
            label = "pass (give up the cover)" if phase == "cover" else "pass"
            moves.append({"action": action, "kind": "pass", "label": label})
        else:
            moves.append({"action": action, "kind": "call", "label": "call the last card"})
    return moves
