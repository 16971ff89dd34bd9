"""Replaying game records (docs/rules.md §10) through the engine, line by line.

:func:`replay` re-runs every match of a JSON Lines record: action lines drive the engine,
and every other line must be exactly the event the engine produces at that point (a round's
deal and dealer, a reshuffle, a steal, a round end with its points and totals, the match end
and its ranking). Random events are taken from the record, after checking that they are
possible: a deck is a permutation of the rule set's 36 (or 52) cards, a reshuffled stock is
the pile but its top card (in order, under ``flip``), a stolen card was in the victim's hand.
The first line that breaks the rules raises a :class:`RecordError` naming the file and the line.

A match that stopped before its end (a player left the terminal game) says so with an
``unfinished`` line where the next decision was due; it replays up to there. A match
without that line must run to its ``match_end``: a record cut short anywhere else fails.

    python -m sto_odno_env.replay FILE.jsonl [FILE.jsonl ...]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..game import engine
from ..game.rules import FACE_VALUE_RANKS as FACE_VALUE
from ..game.rules import Rules, RulesError
from ..tools import cli
from ..tools.errors import StoOdnoError

EVENT_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
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
    "unfinished": {},  # the match stopped here, at a decision (docs/rules.md §10)
}
UNFINISHED = {"type": "unfinished"}  # the line a writer ends a stopped match with


class RecordError(StoOdnoError):
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
            hint = ""
            if kind == "action":
                hint = "; a match stopped on purpose ends with an 'unfinished' line instead"
            raise self.error(f"the record ends where the engine expects a {kind!r} line{hint}")
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
    """Chance events read from the records at their cursors, checked for possibility."""

    def __init__(self, matches: list[_Lines]):
        self.matches = matches

    def deck(self, state, games):
        size = state.tables.deck.cards
        decks = np.empty((len(games), size), dtype=np.int8)
        for row, game in enumerate(games.tolist()):
            lines = self.matches[game]
            deck = lines.peek("round")["deck"]
            if sorted(deck) != list(range(size)) or not all(type(c) is int for c in deck):
                raise lines.error(f"the deck is not a permutation of the {size} card ids")
            decks[row] = deck
        return decks

    def first_dealer(self, state, games):
        dealers = np.empty(len(games), dtype=np.int8)
        for row, game in enumerate(games.tolist()):
            lines = self.matches[game]
            dealer = lines.peek("round")["dealer"]
            if not 0 <= dealer < state.players:
                raise lines.error(f"dealer {dealer} is not a seat 0..{state.players - 1}")
            dealers[row] = dealer
        return dealers

    def shuffle(self, state, games, cards, counts):
        stocks = np.full((len(games), state.tables.deck.cards), -1, dtype=np.int8)
        for row, game in enumerate(games.tolist()):
            lines = self.matches[game]
            stock = lines.peek("reshuffle")["stock"]
            pile = cards[row, : counts[row]].tolist()
            if sorted(stock) != sorted(pile) or not all(type(card) is int for card in stock):
                raise lines.error(
                    f"the reshuffled stock {stock} is not the discard pile but its top card "
                    f"{sorted(pile)}"
                )
            stocks[row, : len(stock)] = stock[::-1]  # a stack: the top card last
        return stocks

    def steal(self, state, games, drawer, victim):
        cards = np.empty(len(games), dtype=np.int8)
        for row, game in enumerate(games.tolist()):
            lines = self.matches[game]
            card = lines.peek("steal")["card"]
            hand = int(state.hand[game, victim[row]])
            if not 0 <= card < state.tables.deck.cards or not hand >> card & 1:
                raise lines.error(
                    f"the stolen card {card} is not in the hand of player {int(victim[row])}"
                )
            cards[row] = card
        return cards


class _CheckingTrace:
    """Compares each event the engine emits with its record's line at the cursor."""

    def __init__(self, matches: list[_Lines], state_ref: list):
        self.matches = matches
        self.state_ref = state_ref

    def start_match(self, game: int) -> None:
        pass

    def emit(self, game: int, event: dict[str, Any]) -> None:
        lines = self.matches[game]
        recorded = lines.peek(event["type"])
        kind = event["type"]
        if kind == "match_end":
            self._check_ranking(lines, game, event, recorded)
        elif kind == "round" and recorded.get("dealer") != event["dealer"]:
            raise lines.error(
                f"wrong dealer: the record has {recorded['dealer']}, the rules give "
                f"{event['dealer']}"
            )
        elif kind != "action":  # the replayer checked the action before applying it
            if kind == "match":  # the 2 to 5 points at face value: listed or not
                rules = self.state_ref[0].rules
                recorded = {**recorded, "rules": _with_face_values(recorded["rules"], rules)}
                event = {**event, "rules": _with_face_values(event["rules"], rules)}
            for key, value in event.items():
                if key != "version" and recorded.get(key) != value:
                    raise lines.error(
                        f"{kind}: {key} is {recorded.get(key)!r} in the record, the rules "
                        f"give {value!r}"
                    )
        lines.cursor += 1

    def _check_ranking(self, lines: _Lines, game: int, event, recorded) -> None:
        for key in ("totals", "truncated"):
            if recorded[key] != event[key]:
                raise lines.error(
                    f"match_end: {key} is {recorded[key]!r} in the record, the rules give "
                    f"{event[key]!r}"
                )
        state = self.state_ref[0]
        ranking = recorded["ranking"]
        if sorted(ranking) != list(range(state.players)):
            raise lines.error(f"match_end: ranking {ranking} is not a permutation of the seats")
        keys = engine.ranking_keys(state, np.array([game]))[0]
        if [keys[p] for p in ranking] != sorted(keys.tolist()):
            raise lines.error(
                f"match_end: ranking {ranking} is wrong; the rules give {event['ranking']} "
                "(ties may be in any order)"
            )


def _split_matches(lines: _Lines) -> list[_Lines]:
    """One ``_Lines`` per match, each starting at its match line."""
    if not lines.lines:
        raise RecordError(f"{lines.name}: no events; a record starts with a 'match' line")
    if lines.lines[0][1]["type"] != "match":
        lines.peek("match")  # raises: a record starts with a match line
    starts = [i for i, (_, event) in enumerate(lines.lines) if event["type"] == "match"]
    return [
        _Lines(lines.name, lines.lines[start:end])
        for start, end in zip(starts, [*starts[1:], len(lines.lines)], strict=True)
    ]


def _with_face_values(data: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """Rules data with the points of the ranks 2 to 5 filled in where a 52-card rule set
    leaves them out at their default, face value (docs/rules.md §12): a record may list them
    or not (``Rules.to_dict`` leaves them out, as the independent implementation does)."""
    points = data.get("points")
    if not any(rank in FACE_VALUE for rank in rules.deck.rank_names) or not isinstance(
        points, dict
    ):
        return data
    filled = {
        rank: int(rank)
        for rank in rules.deck.rank_names
        if rank in FACE_VALUE and rank not in points
    }
    if not filled:
        return data
    return {**data, "points": {**filled, **points}}


def _header(match: _Lines) -> tuple[Rules, int, int]:
    match.cursor = 0
    header = match.peek("match")
    if header["version"] != engine.RECORD_VERSION:
        raise match.error(
            f"record version {header['version']} is not supported; allowed: {engine.RECORD_VERSION}"
        )
    try:
        rules = Rules.from_dict(header["rules"])
        rules.check_players(header["players"])
    except RulesError as error:
        raise match.error(f"bad rules: {error}") from None
    if _with_face_values(rules.to_dict(), rules) != _with_face_values(header["rules"], rules):
        raise match.error(
            "the rules object must list every key of docs/rules.md §11 in canonical form"
        )
    if header["seed"] < 0:
        raise match.error(f"seed {header['seed']} is negative")
    return rules, header["players"], header["seed"]


def _stops_here(match: _Lines) -> bool:
    """Whether the match's record stops at its cursor with an ``unfinished`` line (where a
    decision is due), which must then be the match's last line."""
    if match.cursor >= len(match.lines) or match.lines[match.cursor][1]["type"] != "unfinished":
        return False
    if match.cursor != len(match.lines) - 1:
        raise match.error("an 'unfinished' line must be the last line of its match")
    match.cursor += 1
    return True


def _replay_batch(matches: list[_Lines], rules: Rules, players: int) -> int:
    """Replay matches of one rule set side by side in one engine batch; return how many
    of them are unfinished."""
    for match in matches:
        match.cursor = 0
    seeds = np.array([_header(match)[2] for match in matches], dtype=np.int64)
    state = engine.empty_state(rules, players, len(matches))
    chance = RecordChance(matches)
    trace = _CheckingTrace(matches, [state])
    games = np.arange(len(matches))
    engine.reset_games(state, games, seeds, chance=chance, trace=trace, resolve_forced=False)
    stopped = np.zeros(len(matches), dtype=bool)
    while True:
        live = np.flatnonzero((state.phase != engine.DONE) & ~stopped)
        ends = [game for game in live.tolist() if _stops_here(matches[game])]
        if ends:
            stopped[ends] = True
            live = np.flatnonzero((state.phase != engine.DONE) & ~stopped)
        if not live.size:
            break
        actions = np.empty(live.size, dtype=np.int64)
        players_now = state.current_player[live].tolist()
        legal_now = state.legal_bits[live].tolist()
        phases = state.phase[live].tolist()
        for row, game in enumerate(live.tolist()):
            lines = matches[game]
            event = lines.peek("action")
            player, action = event["player"], event["action"]
            if player != players_now[row]:
                raise lines.error(
                    f"player {player} acts, but it is player {players_now[row]}'s turn"
                )
            legal_bits = legal_now[row]
            if not 0 <= action < rules.num_actions or not legal_bits >> action & 1:
                raise lines.error(
                    engine.illegal_bits_message(
                        legal_bits, action, player=player, phase=phases[row], deck=rules.deck_spec
                    )
                )
            count = legal_bits.bit_count()
            if event["forced"] != (count == 1):
                raise lines.error(
                    f"action {action} is marked forced={event['forced']}, but the player had "
                    f"{count} legal action(s)"
                )
            actions[row] = action
        engine.step(state, actions, chance=chance, trace=trace, resolve_forced=False, games=live)
    for match in matches:
        if match.cursor < len(match.lines):
            raise match.error("the match is over, but its record goes on")
    return int(stopped.sum())


def replay_lines(name: str, text_lines: Iterable[str], batch: int = 512) -> int:
    """Replay the matches in ``text_lines``; return how many. Raise RecordError on a fault.

    Matches of the same rules are replayed ``batch`` at a time side by side; when one
    breaks the rules they are replayed one by one, so the error names the first bad line.
    An unfinished match (its last line ``unfinished``) counts; it replays up to that line.
    """
    return _replay_lines(name, text_lines, batch)[0]


def _replay_lines(name: str, text_lines: Iterable[str], batch: int = 512) -> tuple[int, int]:
    """(matches, unfinished matches) of :func:`replay_lines`."""
    matches = _split_matches(_parse(name, text_lines))
    groups: dict[tuple[str, int], tuple[Rules, int, list[_Lines]]] = {}
    for match in matches:
        rules, players, _ = _header(match)
        key = (json.dumps(match.lines[0][1]["rules"], sort_keys=True), players)
        groups.setdefault(key, (rules, players, []))[2].append(match)
    unfinished = 0
    try:
        for rules, players, group in groups.values():
            for start in range(0, len(group), batch):
                unfinished += _replay_batch(group[start : start + batch], rules, players)
    except RecordError:
        for match in matches:
            rules, players, _ = _header(match)
            _replay_batch([match], rules, players)
        raise
    return len(matches), unfinished


def replay(path: str | Path) -> int:
    """Replay a record file through the engine; return the number of matches it holds
    (unfinished ones included: they replay up to their ``unfinished`` line).

    Raises :class:`RecordError` naming the line of the first event that breaks the rules.
    """
    return _replay_file(path)[0]


class UnreadableRecord(RecordError):
    """A path that gives no record to check: missing, a directory, unreadable, not text."""


def _replay_file(path: str | Path) -> tuple[int, int]:
    """(matches, unfinished matches) of :func:`replay`."""
    path = Path(path)
    if path.is_dir():
        raise UnreadableRecord(f"{str(path)!r} is a directory; give a record file (.jsonl)")
    if not path.is_file():
        raise UnreadableRecord(f"record file {str(path)!r} does not exist")
    try:
        text = path.read_bytes().decode("utf-8")
    except PermissionError:
        message = f"record file {str(path)!r} cannot be read: permission denied"
        raise UnreadableRecord(message) from None
    except UnicodeDecodeError as error:
        raise UnreadableRecord(
            f"{path}: byte {error.start} is not UTF-8 text; a record is JSON Lines text"
        ) from None
    return _replay_lines(str(path), text.splitlines())


@cli.quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    """The command line: replay each file, one line per file; exit 1 if a record fails,
    2 if a file gives no record to check (as every command's bad input)."""
    parser = cli.parser(
        "sto_odno_env.replay",
        __doc__.splitlines()[0] + "\nExits 1 if a record fails, naming its first bad line; 2 "
        "if a file is missing, a directory, unreadable or not UTF-8 text.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="JSON Lines record files")
    args = parser.parse_args(argv)
    status = 0
    for name in args.files:
        try:
            count, unfinished = _replay_file(name)
            note = f" ({unfinished} unfinished: up to where play stopped)" if unfinished else ""
            print(f"{name}: {cli.plural(count, 'match', 'matches')} replay cleanly{note}")
        except RecordError as error:
            print(f"error: {error}", file=sys.stderr)
            status = max(status, 2 if isinstance(error, UnreadableRecord) else 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
