"""Replaying game records (RULES.md §10) through the engine, line by line.

:func:`replay` re-runs every match of a JSON Lines record: action lines drive the engine,
and every other line must be exactly the event the engine produces at that point (a round's
deal and dealer, a reshuffle, a steal, a round end with its points and totals, the match end
and its ranking). Random events are taken from the record, after checking that they are
possible: a deck is a permutation of the 36 cards, a reshuffled stock is the pile but its
top card (in order, under ``flip``), a stolen card was in the victim's hand. The first line
that breaks the rules raises a :class:`RecordError` naming the file and the line.

    python -m sto_odno_env.replay FILE.jsonl [FILE.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from . import engine
from .cards import NUM_ACTIONS, NUM_CARDS, action_name
from .rules import Rules, RulesError

EVENT_FIELDS = {
    "match": {"version": int, "rules": dict, "players": int, "seed": int},
    "round": {"round": int, "dealer": int, "deck": list},
    "action": {"player": int, "action": int, "forced": bool},
    "reshuffle": {"stock": list},
    "steal": {"player": int, "from": int, "card": int},
    "round_end": {
        "finisher": int,
        "last_card": (int, type(None)),
        "points": list,
        "totals": list,
        "out": list,
    },
    "match_end": {"ranking": list, "totals": list, "truncated": bool},
}


class RecordError(ValueError):
    """A record that is corrupt or breaks the rules; the message names the line."""


class _Lines:
    """The parsed lines of one record file and a cursor over them."""

    def __init__(self, name: str, lines: list[tuple[int, dict[str, Any]]]):
        self.name = name
        self.lines = lines
        self.cursor = 0

    def error(self, message: str, at: int | None = None) -> RecordError:
        index = self.cursor if at is None else at
        if index < len(self.lines):
            return RecordError(f"{self.name}: line {self.lines[index][0]}: {message}")
        return RecordError(f"{self.name}: at end of file: {message}")

    def peek(self, kind: str) -> dict[str, Any]:
        """The line at the cursor, which must be a ``kind`` event."""
        if self.cursor >= len(self.lines):
            raise self.error(f"the record ends where the engine expects a {kind!r} line")
        event = self.lines[self.cursor][1]
        if event["type"] != kind:
            raise self.error(
                f"the engine expects a {kind!r} line here, the record has {event['type']!r}"
            )
        return event


def _parse(name: str, text_lines: Iterable[str]) -> _Lines:
    parsed = []
    for number, text in enumerate(text_lines, start=1):
        if not text.strip():
            continue
        try:
            event = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"{name}: line {number}: not valid JSON ({error.msg})") from None
        if not isinstance(event, dict) or event.get("type") not in EVENT_FIELDS:
            raise RecordError(
                f"{name}: line {number}: not an event; type must be one of "
                f"{', '.join(EVENT_FIELDS)}"
            )
        for field, kind in EVENT_FIELDS[event["type"]].items():
            value = event.get(field, ...)
            if (
                value is ...
                or (isinstance(value, bool) and kind is int)
                or not isinstance(value, kind)
            ):
                raise RecordError(
                    f"{name}: line {number}: {event['type']} event needs field "
                    f"{field!r} of type {getattr(kind, '__name__', kind)}, got "
                    f"{value if value is not ... else 'nothing'!r}"
                )
        parsed.append((number, event))
    return _Lines(name, parsed)


class RecordChance:
    """Chance events read from the record at its cursor, checked for possibility."""

    def __init__(self, lines: _Lines):
        self.lines = lines

    def deck(self, state, games):
        event = self.lines.peek("round")
        deck = event["deck"]
        if sorted(deck) != list(range(NUM_CARDS)) or not all(type(card) is int for card in deck):
            raise self.lines.error("the deck is not a permutation of the 36 card ids")
        return np.array([deck], dtype=np.int8)

    def first_dealer(self, state, games):
        dealer = self.lines.peek("round")["dealer"]
        if not 0 <= dealer < state.players:
            raise self.lines.error(f"dealer {dealer} is not a seat 0..{state.players - 1}")
        return np.array([dealer], dtype=np.int8)

    def shuffle(self, state, games, cards, counts):
        stock = self.lines.peek("reshuffle")["stock"]
        pile = cards[0, : counts[0]].tolist()
        if sorted(stock) != sorted(pile) or not all(type(card) is int for card in stock):
            raise self.lines.error(
                f"the reshuffled stock {stock} is not the discard pile but its top card "
                f"{sorted(pile)}"
            )
        row = np.full((1, NUM_CARDS), -1, dtype=np.int8)
        row[0, : len(stock)] = stock
        return row

    def steal(self, state, games, drawer, victim):
        event = self.lines.peek("steal")
        card = event["card"]
        if not 0 <= card < NUM_CARDS or not int(state.hand[games[0], victim[0]]) >> card & 1:
            raise self.lines.error(
                f"the stolen card {card} is not in the hand of player {int(victim[0])}"
            )
        return np.array([card], dtype=np.int8)


class _CheckingTrace:
    """Compares each event the engine emits with the record's line at the cursor."""

    def __init__(self, lines: _Lines, state_ref: list):
        self.lines = lines
        self.state_ref = state_ref

    def start_match(self, game: int) -> None:
        pass

    def emit(self, game: int, event: dict[str, Any]) -> None:
        recorded = self.lines.peek(event["type"])
        kind = event["type"]
        if kind == "match_end":
            self._check_ranking(event, recorded)
        elif kind == "round" and recorded.get("dealer") != event["dealer"]:
            raise self.lines.error(
                f"wrong dealer: the record has {recorded['dealer']}, the "
                f"rules give {event['dealer']}"
            )
        elif kind == "action":
            pass  # the replayer checked the action before applying it
        else:
            for key, value in event.items():
                if key == "version":
                    continue
                if recorded.get(key) != value:
                    raise self.lines.error(
                        f"{kind}: {key} is {recorded.get(key)!r} in the "
                        f"record, the rules give {value!r}"
                    )
        self.lines.cursor += 1

    def _check_ranking(self, event, recorded) -> None:
        for key in ("totals", "truncated"):
            if recorded[key] != event[key]:
                raise self.lines.error(
                    f"match_end: {key} is {recorded[key]!r} in the record, "
                    f"the rules give {event[key]!r}"
                )
        state = self.state_ref[0]
        ranking = recorded["ranking"]
        if sorted(ranking) != list(range(state.players)):
            raise self.lines.error(
                f"match_end: ranking {ranking} is not a permutation of the seats"
            )
        keys = engine.ranking_keys(state, np.array([0]))[0]
        if [keys[p] for p in ranking] != sorted(keys.tolist()):
            raise self.lines.error(
                f"match_end: ranking {ranking} is wrong; the rules give "
                f"{event['ranking']} (ties may be in any order)"
            )


def replay_lines(name: str, text_lines: Iterable[str]) -> int:
    """Replay the matches in ``text_lines``; return how many. Raise RecordError on a fault."""
    lines = _parse(name, text_lines)
    matches = 0
    while lines.cursor < len(lines.lines):
        header = lines.peek("match")
        if header["version"] != engine.RECORD_VERSION:
            raise lines.error(
                f"record version {header['version']} is not supported; "
                f"allowed: {engine.RECORD_VERSION}"
            )
        try:
            rules = Rules.from_dict(header["rules"])
            rules.check_players(header["players"])
        except RulesError as error:
            raise lines.error(f"bad rules: {error}") from None
        if rules.to_dict() != header["rules"]:
            raise lines.error(
                "the rules object must list every key of RULES.md §11 in canonical form"
            )
        if header["seed"] < 0:
            raise lines.error(f"seed {header['seed']} is negative")
        state_ref: list = [None]
        chance = RecordChance(lines)
        trace = _CheckingTrace(lines, state_ref)
        state = engine.empty_state(rules, header["players"], 1)
        state_ref[0] = state
        engine._start_match(state, np.array([0]), np.array([header["seed"]]), chance, trace)
        engine._settle(state, np.array([0]), chance, trace, False)
        while state.phase[0] != engine.DONE:
            event = lines.peek("action")
            player, action = event["player"], event["action"]
            current = int(state.current_player[0])
            if player != current:
                raise lines.error(f"player {player} acts, but it is player {current}'s turn")
            mask = state.legal[0]
            if not 0 <= action < NUM_ACTIONS or not mask[action]:
                legal = [f"{a} ({action_name(a)})" for a in np.flatnonzero(mask)]
                shown = action_name(action) if 0 <= action < NUM_ACTIONS else "no action"
                raise lines.error(
                    f"illegal action {action} ({shown}) for player {player} in phase "
                    f"{engine.PHASE_NAMES[state.phase[0]]}; legal: {', '.join(legal)}"
                )
            forced = int(mask.sum()) == 1
            if event["forced"] != forced:
                raise lines.error(
                    f"action {action} is marked forced={event['forced']}, but "
                    f"the player had {int(mask.sum())} legal action(s)"
                )
            engine.step(state, np.array([action]), chance=chance, trace=trace, resolve_forced=False)
        matches += 1
    return matches


def replay(path: str | Path) -> int:
    """Replay a record file through the engine; return the number of matches it holds.

    Raises :class:`RecordError` naming the line of the first event that breaks the rules.
    """
    path = Path(path)
    if not path.is_file():
        raise RecordError(f"record file {str(path)!r} does not exist")
    with path.open(encoding="utf-8") as handle:
        return replay_lines(str(path), handle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="JSON Lines record files")
    args = parser.parse_args(argv)
    status = 0
    for name in args.files:
        try:
            print(f"{name}: {replay(name)} matches replay cleanly")
        except RecordError as error:
            print(f"error: {error}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
