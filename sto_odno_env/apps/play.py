"""Play 101 in the terminal against agents from the registry, or step through a record.

    python -m sto_odno_env.play [--rules PRESET|FILE] [--players P] [--opponents a,b,...]
        [--seat N] [--seed S] [--record FILE.jsonl] [--plain]
    python -m sto_odno_env.play --replay FILE.jsonl [--match K]

At your turn type a move number, a move as listed or a card (``Q♠``, ``qs``, ``10h``,
``queen of spades``), ``d`` to draw (or take a penalty), ``p`` to pass; after a queen name
a suit (``♥``, ``h`` or its number), or give it with the queen (``qs h``); ``?`` for help
and what the special cards do, ``q`` to quit. Typed moves are read by the kit's text
interface (:mod:`sto_odno_env.views.text`). In the viewer: ``n`` (or Enter) next, ``b`` back,
a record line number to jump there, ``q`` to quit. End of input and Ctrl-C leave cleanly
(exit codes 0 and 130) and save the record when ``--record`` is given; a match left
before its end is saved as unfinished (docs/rules.md §10) and replays up to there.
SIGTERM leaves as Ctrl-C does, with exit code 143.

Rounds and turns are numbered from 1 on screen; ``state.round`` counts from 0.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ..game import engine
from ..game.cards import PHASE_ORDER
from ..game.rules import PRESETS, Rules, RulesError, load_rules
from ..records.playback import Playback
from ..records.record import write_records
from ..records.stepping import SteppedMatch
from ..tools import cli
from ..tools.errors import StoOdnoError
from ..views.observation import observe_one
from ..views.screen import (
    Screen,
    event_text,
    legal_actions,
    match_result_lines,
    move_lines,
    phase_name,
    rich_available,
    round_result_lines,
    seat_lines,
    situation,
)
from ..views.text import HELP, TextActionError, opens_turn, parse_move, rules_reminder
from .labels import player_names

INTERRUPTED = cli.EXIT_STOPPED  # the shell's code for a program stopped by Ctrl-C (128 + SIGINT)
TERMINATED = 128 + signal.SIGTERM  # ... and by SIGTERM (kill)


class Quit(Exception):
    """The player asked to leave."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the program leaves as after Ctrl-C (the record saved), exit 143."""


class Reader:
    """Reads answers line by line from ``stream``; echoes them when it is not a terminal,
    so a transcript of piped input reads like a session."""

    def __init__(self, stream: TextIO, screen: Screen):
        self.stream = stream
        self.screen = screen
        self.echo = not _isatty(stream)

    def read(self, prompt: str) -> str:
        """One line without its newline; raises EOFError at the end of input."""
        self.screen.ask(prompt)
        line = self.stream.readline()
        if not line:
            self.screen.say()
            raise EOFError
        if self.echo:
            self.screen.out.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\r\n")


class HumanMatch:
    """One match: a human at ``seat`` and one policy per other seat (in seat order).

    The match is stepped one decision at a time (:class:`SteppedMatch`; forced ones taken
    here, as the engine would), so that every card a seat takes can be told: the hands
    before and after each decision show what was drawn, and who drew it says why (the
    player's own draw, or a penalty and the card that gave it). The history shows these
    draws as ``draw`` events, which are not part of the record (docs/rules.md §10 leaves
    draws out: they follow from the deck).

    The human's turns are counted per round: a turn starts at a play or a penalty to
    answer, or at the human's first decision after another seat's, so the suit after a
    queen, the card after a draw and a cover are part of the turn that led to them (a skip
    that brings the turn back starts a new one), and other seats' forced decisions count
    for nothing.
    """

    def __init__(
        self,
        rules: Rules,
        players: int,
        seat: int,
        opponents: Sequence[Any],
        names: Sequence[str],
        seed: int,
        screen: Screen,
        reader: Reader,
    ):
        self.seat, self.names, self.screen, self.reader = seat, list(names), screen, reader
        others = iter(opponents)
        self.policies = [None if p == seat else next(others) for p in range(players)]
        self.match = SteppedMatch(rules, players, seed)
        self.started = False
        self.recent: list[dict[str, Any]] = []
        self.queued: int | None = None  # a suit order typed with its queen
        self.turn = 0  # the human's turns in this round
        self.last_actor: int | None = None  # the seat of the last decision, None at a deal

    @property
    def state(self) -> engine.State:
        """The match's engine state (one game)."""
        return self.match.state

    @property
    def record(self) -> list[dict[str, Any]]:
        """The match's record events up to the last decision point (docs/rules.md §10),
        the seats' names in its header: a step cut short by Ctrl-C leaves no half of it
        here."""
        record = list(self.match.record)
        if record:
            record[0] = {**record[0], "names": list(self.names)}
        return record

    def play(self) -> None:
        """Play to the match's end; EOFError, KeyboardInterrupt and Quit pass through."""
        if not self.started:  # the deal (and an opening card's penalty)
            self.started = True
            self._gather(self.match.start())
        while not self.match.done:
            seat = int(self.state.current_player[0])
            legal = legal_actions(self.state)
            if seat == self.seat and opens_turn(self.state, self.last_actor):
                self.turn += 1
            if len(legal) == 1:  # forced: no one is asked (docs/rules.md §4)
                action = legal[0]
            elif seat == self.seat and self.queued is not None and self.queued in legal:
                action, self.queued = self.queued, None
            elif seat == self.seat:
                action = self._ask_human()
            else:
                observation = observe_one(self.state, seat)
                policy = self.policies[seat]
                assert policy is not None  # every seat but the human's has one
                action = int(policy(observation, self.state.legal[0]))
            self.last_actor = seat
            self._gather(self.match.step(action))

    def _gather(self, events: list[dict[str, Any]]) -> None:
        """Take the new events (with the cards each seat took): moves wait for the human's
        next screen, round and match results are printed as they happen."""
        for event in events:
            if event["type"] in ("round_end", "match_end"):
                self._print_recent("Moves")
                if event["type"] == "round_end":
                    self.screen.block(
                        "Round result", round_result_lines(self.screen, event, self.names)
                    )
                else:
                    lines = match_result_lines(self.screen, event, self.names, self.seat)
                    self.screen.block("Match result", lines)
            elif event["type"] == "round":
                # A new deal: a suit typed with a queen that ended the round orders nothing.
                self.turn, self.last_actor, self.queued = 0, None, None
                self.recent.append(event)
            elif event["type"] != "match":
                self.recent.append(event)

    def _print_recent(self, title: str) -> None:
        lines = [event_text(self.screen, e, self.names, self.seat) for e in self.recent]
        if lines:
            self.screen.block(title, [line for line in lines if line])
        self.recent = []

    def _ask_human(self) -> int:
        state, screen = self.state, self.screen
        if int(state.phase[0]) != PHASE_ORDER:  # after a queen only the suit prompt follows
            self._print_recent("Since your last turn")
            title = f"Round {int(state.round[0]) + 1} · your turn {self.turn}"
            hand = int(state.hand[0, self.seat])
            cards = state.tables.deck.cards
            playable = sum(1 << a for a in legal_actions(state) if a < cards)
            screen.block(
                title,
                [
                    *situation(screen, state),
                    *seat_lines(screen, state, self.names),
                    "Your hand: " + screen.hand(hand, highlight=playable),
                ],
            )
        screen.block("Legal moves", move_lines(screen, state))
        prompt = "Suit> " if int(state.phase[0]) == PHASE_ORDER else "Your move> "
        while True:
            text = self.reader.read(prompt)
            if text.strip().lower() in ("q", "quit", "exit"):
                raise Quit
            if text.strip().lower() in ("?", "help"):  # not "h": that is ♥ at the suit prompt
                screen.block("Help", [screen.text(HELP), "q quits"])
                lines = rules_reminder(state.tables.rules)
                screen.block(f"Special cards ({state.tables.rules.name})", lines)
                continue
            try:
                move = parse_move(text, state)
            except TextActionError as error:
                screen.say(screen.style(f"! {error}", "yellow"))
                continue
            self.queued = move.then  # "qs h": the suit answers the order that follows
            return move.action


def replay_session(playback: Playback, screen: Screen, reader: Reader) -> None:
    """Step through a recorded match with every hand shown: ``n``/Enter, ``b``, a line."""
    names = playback.names or [f"player {p}" for p in range(playback.players)]
    screen.deck = playback.rules.deck_spec
    index, count = 0, len(playback.frames)
    while True:
        frame = playback.frames[index]
        state = frame.state
        lines = [
            f"{number:>5}  {text}"
            for number, event in frame.events
            if (text := event_text(screen, event, names))
        ]
        unfinished = "" if playback.finished else " (unfinished)"
        screen.block(
            f"Match {playback.match}{unfinished} · round {int(state.round[0]) + 1} · lines "
            f"{frame.first}-{frame.last} of {playback.first_line}-{playback.last_line} · "
            f"step {index + 1}/{count}",
            [
                *lines,
                *situation(screen, state),
                *seat_lines(screen, state, names, shown=range(playback.players)),
                _to_act(screen, state, names),
            ],
        )
        while True:
            text = reader.read("replay [n]ext [b]ack [line] [q]uit> ").strip().lower()
            if text in ("q", "quit", "exit"):
                return
            if text in ("", "n", "next"):
                if index + 1 < count:
                    index += 1
                    break
                end = "match" if playback.finished else "record (the match was left unfinished)"
                screen.say(f"! this is the end of the {end}; b goes back, q quits")
            elif text in ("b", "back"):
                if index > 0:
                    index -= 1
                    break
                screen.say("! this is the start of the match; n goes on, q quits")
            elif text.isdigit():
                found = playback.frame_at(int(text))
                if found is not None:
                    index = found
                    break
                screen.say(
                    f"! line {text} is not in this match: lines {playback.first_line}-"
                    f"{playback.last_line}"
                )
            else:
                screen.say("! type n (next), b (back), a line number, or q (quit)")


def _to_act(screen: Screen, state: engine.State, names: Sequence[str]) -> str:
    if bool(state.done[0]):
        return "match over"
    moves = ", ".join(screen.action(action, state) for action in legal_actions(state))
    return (
        f"{screen.text(names[int(state.current_player[0])])} to act ({phase_name(state)}): {moves}"
    )


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def agent_names() -> str:
    """The agents ``--opponents`` takes, from the registry: the bots, the recommended
    policy of each rule set, then the shipped policy files, with the rules and player
    counts each plays (:mod:`sto_odno_env.bots.catalog`)."""
    from ..bots import catalog
    from ..bots.names import BOT_NAMES  # the one resolver of names (agents.load's)

    recommended = [
        f"{alias} ({rules}, {catalog.count_span(catalog.served_counts(alias))} players)"
        for alias, rules in catalog.aliases().items()
    ]
    files = [
        f"{card.name} ({card.rules}, {catalog.count_span(card.players)} players)"
        for card in catalog.policy_cards().values()
    ]
    bots = ", ".join(name + ("[:samples=N,...]" if name == "rollout" else "") for name in BOT_NAMES)
    return (
        f"bots: {bots}; the recommended trained policy of each rule set, the best measured "
        f"at each count: {', '.join(recommended)}; a specific policy file: {', '.join(files)}; "
        "or a checkpoint path (.pt, SB3 .zip)"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sto_odno_env.play",
        description="Play 101 against agents in the terminal, or step through a record.\n"
        "Rounds and turns are numbered from 1 on screen.",
        epilog="examples:\n"
        "  python -m sto_odno_env.play --opponents expert --seed 7\n"
        "  python -m sto_odno_env.play --opponents ppo-classic --record match.jsonl\n"
        "  python -m sto_odno_env.play --players 4 --opponents ppo-classic\n"
        "  python -m sto_odno_env.play --replay match.jsonl",
        formatter_class=cli.RawHelpFormatter,
    )
    parser.add_argument(
        "--rules",
        default="classic",
        help=f"a preset ({', '.join(PRESETS)}) or a YAML rules file (default: classic)",
    )
    parser.add_argument(
        "--players",
        type=int,
        help="players at the table (default: 2, or one more than the opponents listed)",
    )
    parser.add_argument(
        "--opponents",
        default="expert",
        help="agents in the other seats, comma-separated, in seat order (one name fills "
        f"every seat; default: expert). {agent_names()}",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..P-1 (default 0)")
    parser.add_argument("--seed", type=int, help="match seed (default: a random one, printed)")
    parser.add_argument("--record", metavar="FILE", help="write the match record (JSON Lines)")
    parser.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    parser.add_argument("--replay", metavar="FILE", help="step through a recorded match")
    parser.add_argument(
        "--match",
        type=int,
        default=1,
        help="with --replay: which match of the file, from 1 (default 1)",
    )
    return parser


@cli.quiet_broken_pipe
def main(
    argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the program; returns the exit code. ``stdin``/``stdout`` default to the process's.

    Output piped to a reader that leaves (``| head``) ends it quietly, the record saved."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    args = _parser().parse_args(argv)
    use_rich = not args.plain and _isatty(stdout) and rich_available()
    screen = Screen(stdout, use_rich=use_rich)
    reader = Reader(stdin, screen)
    try:
        with cli.sigterm_raises(Terminated):
            if args.replay:
                return _run_replay(args, screen, reader)
            return _run_match(args, screen, reader)
    except KeyboardInterrupt as stop:
        screen.say()
        screen.say("terminated" if isinstance(stop, Terminated) else "interrupted")
        return TERMINATED if isinstance(stop, Terminated) else INTERRUPTED


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _run_replay(args: argparse.Namespace, screen: Screen, reader: Reader) -> int:
    from ..records.replay import RecordError

    try:
        playback = Playback.load(args.replay, args.match)
    except (RecordError, OSError) as error:
        return _fail(str(error))
    with contextlib.suppress(EOFError):  # end of input just ends the viewing
        replay_session(playback, screen, reader)
    return 0


def _run_match(args: argparse.Namespace, screen: Screen, reader: Reader) -> int:
    # the agents package depends on this one
    from ..bots.registry import load as load_agent
    from ..bots.registry import split_agent_names

    names = split_agent_names(args.opponents)
    players = args.players or (len(names) + 1 if len(names) > 1 else 2)
    if len(names) == 1:
        names *= players - 1
    try:
        rules = load_rules(args.rules)
        rules.check_players(players)
        if len(names) != players - 1:
            raise RulesError(f"--opponents names {len(names)} agents for {players - 1} other seats")
        if not 0 <= args.seat < players:
            raise RulesError(f"--seat must be 0..{players - 1}, got {args.seat}")
        seed = secrets.randbelow(2**31) if args.seed is None else args.seed
        if seed < 0:
            raise RulesError(f"--seed must be >= 0, got {seed}")
        opponents = [
            load_agent(name, rules=rules, players=players, seed=seed + k)
            for k, name in enumerate(names)
        ]
        if args.record and not Path(args.record).parent.is_dir():
            raise RulesError(f"--record: folder {str(Path(args.record).parent)!r} does not exist")
    except (StoOdnoError, OSError) as error:  # RulesError, AgentError, CheckpointError
        return _fail(str(error))
    seat_labels = player_names(players, args.seat, names)
    screen.say(
        screen.text(
            f"101 · rules {rules.name} · {players} players · seed {seed} · you are seat "
            f"{args.seat} · type a move's number or name (Q♠, qs, d draws, p passes); "
            "? shows help and the special cards, q quits"
        )
    )
    screen.deck = rules.deck_spec
    match = HumanMatch(rules, players, args.seat, opponents, seat_labels, seed, screen, reader)
    code, note = 0, None
    try:
        match.play()
    except EOFError:
        note = "end of input: leaving the match"
    except Quit:
        note = "you left the match"
    except Terminated:
        code, note = TERMINATED, "terminated"
    except KeyboardInterrupt:
        code, note = INTERRUPTED, "interrupted"
    except BrokenPipeError:  # the output's reader left: save without a word, then go
        if args.record:
            _save(args.record, match, None)
        raise
    if note:
        screen.say(note)
    if args.record:
        _save(args.record, match, screen)
    return code


def _save(path: str, match: HumanMatch, screen: Screen | None) -> None:
    """Write the match's record (an unfinished match ends with an ``unfinished`` line, so
    that ``--replay`` shows it up to there); ``screen`` None saves without a word."""
    record = match.record
    try:
        write_records(path, [record])
    except OSError as error:
        if screen is not None:
            print(f"error: could not write the record: {error}", file=sys.stderr)
        return
    if screen is not None:
        finished = record[-1]["type"] == "match_end"
        what = "record" if finished else "partial record (the match is unfinished)"
        screen.say(screen.text(f"saved the {what} to {path}"))


if __name__ == "__main__":
    sys.exit(main())
