"""One human's match at the web table, stepped by the server a decision at a time.

The server deals and keeps the game: :class:`WebMatch` holds the match (a
:class:`~sto_odno_env.records.stepping.SteppedMatch`: the engine state and the record) and
the agents in the other seats, and lets the agents play (and forced decisions be taken)
until the human has a real decision or the match is over. What the human may
know is gathered here as it happens, through :mod:`sto_odno_env.views.screen`'s event texts for
the human's seat (another seat's drawn or stolen card shows as a count), and the page is
built by :func:`sto_odno_env.apps.web.view.seat_view` from the seat's observation vector
(:func:`sto_odno_env.views.observation.observe_one`) and that log, never from the state.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...game.engine import State
from ...game.rules import Rules
from ...records.stepping import SteppedMatch
from ...tools.errors import StoOdnoError
from ...views.observation import observe_one
from ...views.screen import Screen, event_text, match_result_lines
from .view import seat_view

MAX_LOG = 400  # log lines a page shows at most (after the human is out, the rest of a match)


class MoveError(StoOdnoError):
    """A move the match cannot take; ``status`` is the HTTP status it answers with."""

    status = 400


class StaleMove(MoveError):
    """A move sent from a page of an earlier turn."""

    status = 409


class MatchOver(MoveError):
    """A move sent after the match ended."""

    status = 409


class WebMatch:
    """A match with the human at ``seat`` and ``agents[p]`` (a policy) in every other seat
    ``p`` (``agents[seat]`` is None). ``seed`` is the engine's match seed."""

    def __init__(
        self,
        rules: Rules,
        players: int,
        seat: int,
        agents: Sequence[Any],
        names: Sequence[str],
        seed: int,
    ):
        self.rules, self.players, self.seat = rules, players, seat
        self.agents, self.names, self.seed = list(agents), list(names), seed
        self.stepped = SteppedMatch(rules, players, match_seed=seed)
        self.screen = Screen(io.StringIO())  # plain text, for the event texts only
        self.move = 0  # the human's decisions so far: the page's turn token
        # What the human saw since its last decision (what the page shows); older lines are
        # dropped, so a game's memory does not grow with the match.
        self.log: list[dict[str, Any]] = []
        self.rounds: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.decisions = 0
        self._take(self.stepped.start())
        self._advance()

    # --- what the human may know ------------------------------------------------------

    @property
    def state(self) -> State:
        """The engine state (the server's own: never sent)."""
        return self.stepped.state

    @property
    def rewards(self) -> np.ndarray:
        """Each seat's match reward so far."""
        return self.stepped.rewards

    @property
    def over(self) -> bool:
        """Whether the match has ended."""
        return self.stepped.done

    def view(self, game_id: str, baselines: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        """The page's data: what the human's seat may know (see :func:`seat_view`)."""
        state = self.state
        to_act = int(state.current_player[0])
        mask = state.legal[0] if not self.over and to_act == self.seat else None
        return seat_view(
            observe_one(state, self.seat),
            mask,
            rules=self.rules,
            players=self.players,
            seat=self.seat,
            names=self.names,
            game=game_id,
            move=self.move,
            round_number=int(state.round[0]) + 1,
            turn=int(state.turn[0]) + 1,
            since=self.log[-MAX_LOG:],
            rounds=self.rounds,
            result=self.result,
            baselines=baselines,
        )

    def record_text(self) -> str:
        """The match's record as JSON Lines (docs/rules.md §10), as
        :func:`sto_odno_env.records.record.write_records` writes it; only once the match is over
        (before, it would show every hand and the deck)."""
        if not self.over:
            raise MatchOver("the match is not over: its record would show the other hands")
        return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.record)

    @property
    def record(self) -> list[dict[str, Any]]:
        """The record events so far (the server's own copy: never sent during play)."""
        return self.stepped.record

    # --- play -------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to act, in id order."""
        return self.stepped.legal()

    def play(self, action: int, move: int) -> None:
        """The human's decision ``action``, sent from the page of turn token ``move``; then
        the agents play on. Raises :class:`MatchOver`, :class:`StaleMove` or
        :class:`MoveError` (an action that is not legal now) before changing anything."""
        if self.over:
            raise MatchOver("the match is over; start a new one")
        if move != self.move:
            raise StaleMove(
                f"stale move: it was sent from the page of move {move}, the game is at move "
                f"{self.move}; the page shows the table as it is now"
            )
        legal = self.legal_actions()
        if action not in legal:
            from ...game.cards import action_name

            deck = self.state.tables.deck
            allowed = ", ".join(f"{a} ({action_name(a, deck)})" for a in legal)
            try:
                what = f"{action} ({action_name(action, deck)})"
            except ValueError:
                what = str(action)
            raise MoveError(f"illegal move: action {what} is not legal now; legal: {allowed}")
        self.log = []
        self.move += 1
        self._step(action)
        self._advance()

    def _advance(self) -> None:
        """Forced decisions and the agents' decisions, until the human has a real decision
        or the match is over."""
        state = self.state
        while not self.over:
            seat = int(state.current_player[0])
            legal = self.legal_actions()
            if len(legal) == 1:  # forced: no one is asked (docs/rules.md §4)
                self._step(legal[0])
            elif seat == self.seat:
                return
            else:
                observation = observe_one(state, seat)
                self._step(int(self.agents[seat](observation, state.legal[0])))

    def _step(self, action: int) -> None:
        self.decisions += 1
        self._take(self.stepped.step(action))

    def _take(self, events: list[dict[str, Any]]) -> None:
        """Turn a decision's record events (with the cards each seat took) into what the
        human saw: log lines, round results and the match result."""
        tables = self.state.tables
        screen, names, seat = self.screen, self.names, self.seat
        screen.deck = tables.deck
        for event in events:
            kind = event["type"]
            text = event_text(screen, event, names, viewer=seat)
            if kind == "round_end":
                # The round's numbers only: the finishing card is in the log when it happens.
                self.rounds.append(
                    {
                        "round": len(self.rounds) + 1,
                        "finisher": event["finisher"],
                        "points": list(event["points"]),
                        "totals": list(event["totals"]),
                        "out": list(event["out"]),
                    }
                )
            elif kind == "match_end":
                place = event["ranking"].index(seat) + 1
                self.result = {
                    "ranking": list(event["ranking"]),
                    "totals": list(event["totals"]),
                    "truncated": bool(event["truncated"]),
                    "place": place,
                    "reward": float(self.rewards[seat]),
                    "rounds": len(self.rounds),
                    "lines": match_result_lines(screen, event, names, seat),
                }
            if text:
                self.log.append({"seat": event.get("player"), "kind": kind, "text": text})
