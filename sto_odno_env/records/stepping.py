"""A live match stepped one decision at a time: :class:`SteppedMatch`, the driver of the
terminal game, the web table and the TextArena env.

The engine runs with ``resolve_forced=False``, so the caller takes every decision, forced
ones (one legal action) included, and :class:`ForcedTrace` marks them in the record as
docs/rules.md §10 does. :class:`DealWatch` notes each seat's hand whenever a round is
dealt, so that :func:`with_draws` can tell the cards each seat took, as
:func:`sto_odno_env.views.text.event_text` reads them. Replaying a finished record is
:mod:`sto_odno_env.records.playback`'s job.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..game import engine
from ..game.rules import Rules, load_rules
from ..views.text import legal_actions


class DealWatch:
    """The engine's own chance, noting each seat's hand whenever a round is dealt (the hands
    the last round ended with) and the seats still in, who are dealt the next round."""

    def __init__(self) -> None:
        self.inner = engine.RANDOM_CHANCE
        self.deals: list[tuple[list[int], int]] = []

    def deck(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        self.deals.append(([int(h) for h in state.hand[0]], int(state.in_match[0])))
        return self.inner.deck(state, games)

    def first_dealer(self, state, games):
        return self.inner.first_dealer(state, games)

    def shuffle(self, state, games, cards, counts):
        return self.inner.shuffle(state, games, cards, counts)

    def steal(self, state, games, drawer, victim):
        return self.inner.steal(state, games, drawer, victim)


def with_draws(
    events: Sequence[dict[str, Any]],
    before: list[int] | None,
    deals: Sequence[tuple[list[int], int]],
    now: list[int],
    hand_size: int,
    cards: int,
) -> list[dict[str, Any]]:
    """Copies of ``events`` (one decision's record events) with the cards each seat took:
    ``drawn`` on the action of the seat that drew, ``draw`` events for a penalty taken by
    another seat (or at a round's opening card) with its ``cause`` (the card played, or
    the opening card), as :func:`sto_odno_env.views.text.event_text` reads them.

    The events split at each ``round`` line. A part's cards taken are its hands at its end
    (``deals``: the hands when the next round was dealt; ``now`` for the last part) less its
    hands at its start (``before`` the decision, or every card dealt), less stolen cards.
    """
    starts = [i for i, event in enumerate(events) if event["type"] == "round"]
    bounds = [0, *starts, len(events)]
    ends = [hands for hands, _ in deals] + [now]
    result: list[dict[str, Any]] = []
    for part, (first, stop) in enumerate(itertools.pairwise(bounds)):
        piece = [dict(event) for event in events[first:stop]]
        action = next((e for e in piece if e["type"] == "action"), None)
        cause = None  # the card whose penalty a seat took without a decision of its own
        if part == 0:
            if before is None:  # the match's start: nothing was held before the deal
                result += piece
                continue
            start = before
            if action is not None and action["action"] < cards:
                cause = action["action"]
        else:
            deck, seats_in = piece[0]["deck"], deals[part - 1][1]
            count = seats_in.bit_count() * hand_size  # the cards dealt
            start = [sum(1 << card for card in deck[:count])] * len(ends[part])
            cause = deck[count - 1]  # the opening card: the dealer's last, turned up (§3)
        taken = [end & ~begin for end, begin in zip(ends[part], start, strict=True)]
        for event in piece:
            if event["type"] == "steal":
                taken[event["player"]] &= ~(1 << event["card"])
        notes = []
        for seat, bits in enumerate(taken):
            drawn = [card for card in range(cards) if bits >> card & 1]
            if not drawn:
                continue
            if action is not None and seat == action["player"]:
                action["drawn"] = drawn
            else:
                notes.append({"type": "draw", "player": seat, "cards": drawn, "cause": cause})
        at = next(
            (i for i, e in enumerate(piece) if e["type"] in ("round_end", "match_end")),
            len(piece),
        )
        result += piece[:at] + notes + piece[at:]
    return result


class ForcedTrace(engine.Trace):
    """The record of a match stepped one decision at a time: the caller says whether the
    decision it steps is forced (one legal action), as the record marks it (docs/rules.md
    §10)."""

    forced = False

    def emit(self, game: int, event: dict[str, Any]) -> None:
        if event["type"] == "action":
            event["forced"] = self.forced
        super().emit(game, event)


class SteppedMatch:
    """One match stepped one decision at a time, forced decisions included (the caller
    takes them, so that each card a seat takes can be told), as the terminal game and the
    text env play it.

    :meth:`start` and :meth:`step` return the record events the decision led to, copied,
    with the cards each seat took (:func:`with_draws`: ``drawn`` on the action of a seat
    that drew, ``draw`` events with their ``cause`` for a penalty taken), ready for
    :func:`sto_odno_env.views.text.event_text`. :attr:`record` is the match's record so far
    (docs/rules.md §10); draws are not part of it. :attr:`rewards` add up each seat's
    match reward (the engine's: +1 for the winner to −1 for the last, docs/rules.md §8).
    """

    def __init__(
        self, rules: Rules | str, players: int, seed: int = 0, *, match_seed: int | None = None
    ):
        """``seed`` as :func:`sto_odno_env.game.engine.init` takes it, or ``match_seed``: the
        engine's match seed itself (a game of a batch replayed alone)."""
        self.trace = ForcedTrace(1)
        self.chance = DealWatch()
        self.state = engine.init(
            load_rules(rules),
            players,
            1,
            seed=seed,
            seeds=None if match_seed is None else [match_seed],
            trace=self.trace,
            chance=self.chance,
            resolve_forced=False,
        )
        self.complete = 0  # record events up to the last decision point (what is saved)
        self.rewards = np.zeros(players, dtype=np.float64)  # each seat's match reward so far

    @property
    def record(self) -> list[dict[str, Any]]:
        """The record events up to the last decision point: a step cut short (Ctrl-C)
        leaves no half of it here."""
        return self.trace.current[0][: self.complete]

    @property
    def done(self) -> bool:
        """Whether the match is over."""
        return bool(self.state.done[0])

    def legal(self) -> list[int]:
        """The legal actions of the player to act, in id order."""
        return legal_actions(self.state)

    def start(self) -> list[dict[str, Any]]:
        """The events of the deal (and of an opening card's penalty)."""
        return self._gather(None)

    def step(self, action: int) -> list[dict[str, Any]]:
        """Apply ``action`` for the player to act (forced when it is the only legal one);
        returns the events it led to. An illegal action raises ValueError."""
        legal = self.legal()
        if action not in legal:
            raise ValueError(f"action {action} is not legal now; legal: {legal}")
        hands = self._hands()
        self.trace.forced = len(legal) == 1
        _, rewards, _ = engine.step(
            self.state,
            np.array([action]),
            trace=self.trace,
            chance=self.chance,
            resolve_forced=False,
        )
        self.rewards += rewards[0]
        return self._gather(hands)

    def _hands(self) -> list[int]:
        return [int(hand) for hand in self.state.hand[0]]

    def _gather(self, before: list[int] | None) -> list[dict[str, Any]]:
        events = self.trace.current[0][self.complete :]
        self.complete = len(self.trace.current[0])
        deals, self.chance.deals = self.chance.deals, []
        tables = self.state.tables
        return with_draws(events, before, deals, self._hands(), tables.hand_size, tables.deck.cards)
