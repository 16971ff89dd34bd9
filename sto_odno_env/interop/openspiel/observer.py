"""OpenSpiel's observer for the game: observations and information states of one seat."""

from __future__ import annotations

import numpy as np

from ...game.rule_values import MAX_PLAYERS
from ...views.observation import obs_size, observe_one
from ...views.text import seat_view
from .text import seat_text


class StoOdnoObserver:
    """OpenSpiel's observer: ``tensor``/``dict`` and ``string_from`` of one seat.

    The observation (string and tensor) is what the seat sees now: the tensor is the kit's
    observation vector. The information state string is perfect recall: the seat's view
    now, then a 128-bit digest (BLAKE2b) of its view at every decision so far with the
    action taken there. The information state tensor is the observation followed by a
    memory of the current round: the cards each seat (counted clockwise from the observer)
    has played in it, and the cards the observer has held in it (a summary, not perfect
    recall)."""

    def __init__(self, game, perfect_recall: bool):
        self.recall = perfect_recall
        self.cards = game.deck.cards
        self.obs_size = obs_size(game.rules)
        pieces = [("observation", self.obs_size)]
        if perfect_recall:
            pieces += [("played", MAX_PLAYERS * self.cards), ("held", self.cards)]  # seats padded
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, size in pieces:
            view = self.tensor[at : at + size]
            self.dict[name] = view.reshape(MAX_PLAYERS, self.cards) if name == "played" else view
            at += size

    def set_from(self, state, player: int) -> None:
        """Fill ``tensor`` with what ``player`` knows in ``state``."""
        self.tensor.fill(0.0)
        view = state.view_state
        if view is None:
            return
        self.dict["observation"][:] = observe_one(view, player)
        if not self.recall:
            return
        players = view.players
        round_now = int(view.round[0])
        held = int(view.hand[0, player])
        link = state._m.trail
        while link is not None and link.seen.round == round_now:
            held |= link.seen.hands[player]
            if link.action < self.cards:
                seat = (link.player - player) % players
                self.dict["played"][seat, link.action] = 1.0
            link = link.previous
        bits = np.array([held >> c & 1 for c in range(self.cards)], dtype=np.float32)
        self.dict["held"][:] = bits

    def string_from(self, state, player: int) -> str:
        """The seat's view now, or (perfect recall) at every decision with its action."""
        view = state.view_state
        if not self.recall:
            return seat_view(view, player) if view is not None else f"seat {player}: not dealt"
        now = seat_text(view, player) if view is not None else f"seat {player}; not dealt"
        trail = state._m.trail
        if trail is None:
            return now
        return f"{now}\nhistory {trail.digest(player)}"
