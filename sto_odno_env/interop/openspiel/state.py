"""The OpenSpiel state: OpenSpiel's State API over a :class:`~.match.Match`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyspiel

from ...game import engine
from ...game.cards import card_name
from ...views.text import action_text
from .chance import ChanceEvent
from .match import Match
from .text import seat_text


class StoOdnoState(pyspiel.State):
    """One match (or its first ``rounds``): the engine state of a batch of one game, and
    the chance events so far. The first node draws the first dealer.

    The state's only attribute is its :class:`~.match.Match`, so OpenSpiel's clone copies
    one object and its serialisation pickles the parameters and the actions."""

    def __init__(self, game):
        super().__init__(game)
        self._m = Match(game.facts)

    # OpenSpiel's State API.

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` or ``TERMINAL``."""
        match = self._m
        if match.need is not None:
            return pyspiel.PlayerId.CHANCE
        if match.done:
            return pyspiel.PlayerId.TERMINAL
        return match.to_act

    def _legal_actions(self, player: int) -> tuple[int, ...]:
        # Only OpenSpiel's C++ side calls this, and takes any sequence.
        return self._m.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the open event, each equally likely."""
        need = self._m.need
        if need is None:
            raise RuntimeError("not a chance node: no event waits for an outcome")
        return list(self._m.events[need].outcomes)

    def _apply_action(self, action: int) -> None:
        self._m.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        match = self._m
        if player == pyspiel.PlayerId.CHANCE:
            if match.need is None:
                return f"chance {action}"
            event = match.events[match.need]
            if event.kind == "dealer":
                return f"first dealer: seat {action}"
            name = card_name(action, match.facts.deck)
            if event.kind == "deck" and len(event.revealed) < event.needed:
                return f"deal {name}"
            return f"{'steal' if event.kind == 'steal' else 'stock'} {name}"
        view = match.view
        if view is None:
            return self.get_game().action_to_string(player, action)
        return action_text(action, view)

    def is_terminal(self) -> bool:
        """The match is over (won, or truncated at ``max_turns``), or its ``rounds`` are."""
        return self._m.need is None and self._m.done

    def returns(self) -> list[float]:
        """Each seat's utility once the game is over (zeros before: OpenSpiel's terminal
        reward model): the match reward, and with ``rounds`` minus each round's points over
        the target (docs/openspiel.md)."""
        if not self.is_terminal():
            return [0.0] * self._m.facts.players
        return list(self._m.returns)

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> StoOdnoState:
        """A state ``player_id`` cannot tell from this one: the cards it cannot see dealt
        again at random within what it knows (:mod:`.resample`); ``probability_sampler()``
        (OpenSpiel's ``UniformProbabilitySampler`` or any callable giving a uniform number
        in [0, 1)) seeds the draw."""
        from .resample import resample

        return resample(self, player_id, probability_sampler)

    def __str__(self) -> str:
        match = self._m
        state = match.view
        if state is None:
            return "(the first dealer is not drawn yet)"
        lines = [seat_text(state, seat) for seat in range(match.facts.players)]
        if match.need is not None:
            lines.append(f"chance: {match.events[match.need].kind}")
        return "\n".join(lines)

    # The kit's side.

    @property
    def engine_state(self) -> engine.State | None:
        """The engine state at this decision or end (None at a chance node): do not edit."""
        return None if self._m.need is not None else self._m.engine

    @property
    def view_state(self) -> engine.State | None:
        """The last engine state reached (before the pending decision at a chance node)."""
        return self._m.view

    @property
    def chance_events(self) -> tuple[ChanceEvent, ...]:
        """The random events so far with their placed outcomes."""
        return tuple(self._m.events)

    @property
    def open_event(self) -> ChanceEvent | None:
        """The event a chance node places an outcome of (None elsewhere)."""
        match = self._m
        return None if match.need is None else match.events[match.need]

    @property
    def decisions(self) -> tuple[tuple[int, int], ...]:
        """The decisions taken, as ``(seat, action)`` (forced ones, which the engine
        resolves, are not among them)."""
        chain = self._m.trail.chain() if self._m.trail is not None else []
        return tuple((d.player, d.action) for d in chain)

    def record_events(self) -> list[dict[str, Any]]:
        """See :func:`~.records.record_events`."""
        from .records import record_events

        return record_events(self)
