"""The terminal game and record viewer (``python -m sto_odno_env.play``), driven by input.

Most tests call ``play.main`` in-process with text streams (fast); a few run the module as
a subprocess to check what only a real process shows: exit codes, SIGINT, no traceback.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from sto_odno_env.apps.play import main
from sto_odno_env.game import engine
from sto_odno_env.game.cards import (
    NUM_CARDS,
    ORDER_BASE,
    PHASE_ORDER,
    RANK_NAMES,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    card_name,
    parse_card,
    rank_of,
    suit_of,
)
from sto_odno_env.game.rules import Rules, load_rules
from sto_odno_env.records.playback import Playback
from sto_odno_env.records.replay import replay
from sto_odno_env.views.text import TextActionError, parse_action
from tests.helpers import default_sigint

ROOT = Path(__file__).resolve().parent.parent
RECORDS = Path(__file__).resolve().parent / "data" / "records"
GOLDEN = RECORDS / "classic-2p.jsonl"
FIRST_MOVES = "1\n" * 5000  # more answers than any match asks for


class Responder(io.StringIO):
    """Input that answers each prompt by looking at everything printed so far."""

    def __init__(self, out: io.StringIO, answer):
        super().__init__()
        self.out, self.answer = out, answer

    def readline(self, *args) -> str:
        line = self.answer(self.out.getvalue())
        return "" if line is None else line + "\n"


def run(argv: list[str], text: str = "", stdin=None):
    """``main`` with ``text`` as input; returns (exit code, printed text)."""
    out = io.StringIO()
    code = main(argv, stdin if stdin is not None else io.StringIO(text), out)
    return code, out.getvalue()


def last_screen(output: str) -> tuple[list[str], list[str]]:
    """The human's hand and the legal moves on the last screen of a plain transcript."""
    hands = re.findall(r"^  Your hand: (.*)$", output, flags=re.M)
    tail = output[output.rindex("== Legal moves ==") :]
    moves = re.findall(r"^ +\d+\) (.*)$", tail.split("\n==", 1)[0], flags=re.M)
    return (hands[-1].split() if hands else []), moves


# --- a whole match ----------------------------------------------------------------------


@pytest.mark.slow  # a command in a subprocess
def test_whole_match_through_a_pipe(tmp_path):
    record = tmp_path / "match.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "sto_odno_env.play", "--seed", "1", "--record", str(record)],
        input=FIRST_MOVES,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "seed 1" in out and "Your move> 1" in out
    assert "== Round result ==" in out and "== Match result ==" in out
    assert "saved the record" in out
    assert replay(record) == 1  # the human's match is a valid record
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert events[-1]["type"] == "match_end"
    assert any(e["type"] == "action" and e["forced"] for e in events)
    assert "(forced)" in out  # forced moves are marked on screen


def test_three_players_seat_and_opponents():
    code, out = run(
        ["--players", "3", "--opponents", "greedy,random", "--seat", "2", "--seed", "5"],
        FIRST_MOVES,
    )
    assert code == 0
    assert "greedy (seat 0)" in out and "random (seat 1)" in out
    assert "== Since your last turn ==" in out and "== Match result ==" in out
    assert re.search(r"^  \d\. You  total", out, flags=re.M)


def test_one_opponent_name_fills_every_seat():
    code, out = run(["--players", "3", "--opponents", "random", "--seed", "2", "--seat", "1"], "")
    assert code == 0
    assert "random (seat 0)" in out and "random (seat 2)" in out
    assert "end of input" in out


def test_screen_shows_the_table():
    code, out = run(["--seed", "3", "--opponents", "greedy"], "")
    assert code == 0
    assert re.search(r"^  top card \S+ (· ordered suit \S )?· stock \d+", out, flags=re.M)
    assert re.search(r"^  [ >][ D] greedy \(seat 1\)\s+\d+ cards?\s+total +0$", out, flags=re.M)
    hand, moves = last_screen(out)
    assert hand and moves
    assert all(re.fullmatch(r"play \S+|draw|pass", move) for move in moves)


# --- typed moves -------------------------------------------------------------------------


def _state_with_phase(phase: int | None, seed: int = 0) -> engine.State:
    """A classic 2-player state, played randomly until ``phase`` (None: the first one)."""
    generator = np.random.default_rng(seed)
    state = engine.init("classic", 2, 1, seed=seed)
    while phase is not None and int(state.phase[0]) != phase:
        if bool(state.done[0]):
            state = engine.init("classic", 2, 1, seed=int(generator.integers(1 << 30)))
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(1)))
    return state


def test_card_texts_all_name_the_card():
    state = _state_with_phase(None)
    hand = int(state.hand[0, int(state.current_player[0])])
    legal = int(state.legal_bits[0])
    for card in range(NUM_CARDS):
        if not (hand >> card & 1 and legal >> card & 1):
            continue
        rank, suit = RANK_NAMES[rank_of(card)], suit_of(card)
        for text in (
            card_name(card),
            (rank + SUIT_LETTERS[suit]).lower(),
            rank + SUIT_LETTERS[suit],
            f" {rank.lower()}{SUIT_SYMBOLS[suit]} ",
        ):
            assert parse_action(text, state) == card, text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty answer"),
        ("   ", "empty answer"),
        ("zz", "is not a move"),
        ("11s", "is not a move"),
        ("99", "there is no move 99"),
        ("0", "there is no move 0"),
        ("p", "you cannot pass now"),
    ],
)
def test_bad_moves_are_explained(text, message):
    state = _state_with_phase(None)
    with pytest.raises(TextActionError, match=message):
        parse_action(text, state)


def test_suit_prompt_after_a_queen():
    state = _state_with_phase(PHASE_ORDER)
    assert parse_action("h", state) == ORDER_BASE + 3
    assert parse_action("♥", state) == ORDER_BASE + 3
    assert parse_action("Hearts", state) == ORDER_BASE + 3
    assert parse_action("d", state) == ORDER_BASE + 2  # a suit here, not a draw
    assert parse_action("1", state) == ORDER_BASE
    with pytest.raises(TextActionError, match="not a suit"):
        parse_action("qs", state)


def test_a_queen_then_a_typed_suit():
    """Play the first queen held, by its card text, and order hearts with ``h``."""
    out = io.StringIO()
    done = []

    def answer(printed: str) -> str:
        if printed.endswith("Suit> ") and not done:
            done.append(True)
            return "h"
        if printed.endswith("Your move> ") and not done:
            _, moves = last_screen(printed)
            queens = [move[5:] for move in moves if move.startswith("play Q")]
            if queens:
                return queens[0].lower().replace("♠", "s").replace("♥", "h")
        return "1"

    code = main(["--seed", "11", "--opponents", "random"], Responder(out, answer), out)
    assert code == 0 and done
    assert "Suit> h\n" in out.getvalue() and "You: order ♥" in out.getvalue()


def test_each_bad_input_gets_a_message_and_a_new_prompt():
    """Unknown card, empty line, card not in hand, move number out of range, pass when
    not legal, a held card that is not legal now; then the match goes on to its end."""
    out = io.StringIO()
    todo = ["zz", "", "NOT_HELD", "99", "p"]
    tried_illegal = []

    def answer(printed: str) -> str:
        if todo:
            text = todo.pop(0)
            if text == "NOT_HELD":
                hand, _ = last_screen(printed)
                text = next(card_name(c) for c in range(NUM_CARDS) if card_name(c) not in hand)
            return text
        if printed.endswith("Your move> ") and not tried_illegal:
            hand, moves = last_screen(printed)
            illegal = [card for card in hand if f"play {card}" not in moves]
            if illegal:
                tried_illegal.append(illegal[0])
                return illegal[0].lower()
        return "1"

    code = main(["--seed", "7", "--opponents", "random"], Responder(out, answer), out)
    printed = out.getvalue()
    assert code == 0
    messages = re.findall(r"^! (.*)$", printed, flags=re.M)
    assert messages[0].startswith("'zz' is not a move")
    assert messages[1].startswith("empty answer")
    assert messages[2].startswith("you do not hold")
    assert messages[3].startswith("there is no move 99")
    assert messages[4].startswith("you cannot pass now")
    assert tried_illegal, "no position with a held card that cannot be played"
    assert any(m.startswith(f"{tried_illegal[0]} cannot be played now") for m in messages)
    for message in messages:  # every message is followed by a new prompt
        after = printed[printed.index("! " + message) :]
        assert after.split("\n", 1)[1].startswith(("Your move> ", "Suit> "))
    assert "== Match result ==" in printed


def _replays_unfinished(record: Path) -> str:
    """Check a record left before the match's end: it replays, ends with its
    ``unfinished`` line, and the viewer steps to where play stopped and says so."""
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert events[0]["type"] == "match" and events[-1] == {"type": "unfinished"}
    assert replay(record) == 1
    code, out = run(["--replay", str(record)], "n\n" * 2000 + "q\n")
    assert code == 0
    assert re.search(r"^== Match 1 \(unfinished\) · round 1 · lines 1-", out, flags=re.M)
    last = out.rsplit("== Match 1", 1)[1]
    assert "the record stops here: the match was left unfinished" in last
    assert " to act (" in last  # the decision that was due
    assert "! this is the end of the record (the match was left unfinished)" in out
    return out


def test_help_and_quit(tmp_path):
    record = tmp_path / "left.jsonl"
    code, out = run(["--seed", "1", "--record", str(record)], "?\n1\n1\nq\n")
    assert code == 0
    helped = out.split("Your move> ?", 1)[1]
    assert "q quits" in helped
    # the special cards of classic, from its tables: the 8 covers, the queen orders a suit
    assert "8: must be covered" in helped and "Q: goes on any card; you order the suit" in helped
    assert "you left the match" in out and "partial record" in out
    _replays_unfinished(record)


def test_help_names_the_agents_of_the_registry():
    """``--help`` lists the bots and the shipped policies from sto_odno_env.bots.registry."""
    from sto_odno_env.bots.registry import BOTS, SHIPPED

    result = subprocess.run(
        [sys.executable, "-m", "sto_odno_env.play", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert SHIPPED, "no policies shipped in sto_odno_env/bots/policies"
    for name in [*BOTS, *SHIPPED]:
        assert name in text, name
    assert "ppo-classic (classic, 2–6 players)" in text
    assert "numbered from 1" in text


# --- leaving ---------------------------------------------------------------------------


def test_end_of_input_leaves_and_saves(tmp_path):
    record = tmp_path / "eof.jsonl"
    code, out = run(["--seed", "2", "--record", str(record)], "1\n")
    assert code == 0
    assert (
        "end of input" in out
        and f"saved the partial record (the match is unfinished) to {record}" in out
    )
    _replays_unfinished(record)


class _Interrupting(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


def test_ctrl_c_in_process(tmp_path):
    record = tmp_path / "int.jsonl"
    code, out = run(["--seed", "2", "--record", str(record)], stdin=_Interrupting())
    assert code == 130
    assert "interrupted" in out and record.exists()
    _replays_unfinished(record)


def _read_until(stream, marker: str, timeout: float = 60.0) -> str:
    """Read a subprocess's unbuffered output until ``marker`` appears."""
    data, deadline = b"", time.monotonic() + timeout
    while marker.encode() not in data:
        assert time.monotonic() < deadline, data.decode(errors="replace")
        ready, _, _ = select.select([stream], [], [], 1.0)
        if ready:
            chunk = os.read(stream.fileno(), 4096)
            assert chunk, data.decode(errors="replace")
            data += chunk
    return data.decode()


@pytest.mark.slow  # a command in a subprocess
@pytest.mark.parametrize(
    ("stop", "code", "word"),
    [(signal.SIGINT, 130, b"interrupted"), (signal.SIGTERM, 143, b"terminated")],
    ids=["ctrl-c", "sigterm"],
)
def test_a_signal_leaves_cleanly_and_saves_the_record(stop, code, word, tmp_path):
    """Ctrl-C (SIGINT) and kill (SIGTERM) at the prompt: no traceback, the record saved
    as an unfinished match that replays."""
    record = tmp_path / "signal.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "sto_odno_env.play", "--seed", "3", "--record", str(record)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        preexec_fn=default_sigint,
    )
    try:
        _read_until(process.stdout, "Your move> ")
        process.send_signal(stop)
        # Not communicate(): it closes stdin, and on a loaded machine the player could read
        # that end of input (and quit normally) before the interrupt is handled.
        process.wait(timeout=30)
        out, err = process.stdout.read(), process.stderr.read()
    finally:
        process.kill()
    assert process.returncode == code
    assert b"Traceback" not in err and err == b""
    assert word in out and b"saved the partial record" in out
    _replays_unfinished(record)


# --- errors before the match -----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponents", "nosuch"], "unknown agent 'nosuch'"),
        (["--rules", "missing.yaml"], "missing.yaml"),
        (["--rules", "nosuch"], "neither a preset"),
        (["--players", "9"], "players: 9 is not allowed"),
        (["--players", "3", "--opponents", "random,greedy,expert"], "3 agents for 2 other"),
        (["--seat", "2"], "--seat must be 0..1"),
        (["--record", "/no/such/dir/x.jsonl"], "does not exist"),
        (["--replay", "/no/such/file.jsonl"], "does not exist"),
        (["--replay", str(GOLDEN), "--match", "9"], "holds matches 1..2"),
    ],
)
def test_setup_errors_are_one_line(argv, message, capsys):
    code, out = run(argv, "")
    err = capsys.readouterr().err
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_unknown_agent_in_a_process_has_no_traceback():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sto_odno_env.play",
            "--opponents",
            "expert,nosuch",
            "--players",
            "3",
        ],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr.startswith("error: unknown agent 'nosuch'")
        and "Traceback" not in result.stderr
    )


# --- rich on a terminal, plain without rich ----------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_rich_screen_on_a_terminal():
    pytest.importorskip("rich")
    out = _Terminal()
    code = main(["--seed", "4", "--opponents", "greedy"], io.StringIO(FIRST_MOVES), out)
    printed = out.getvalue()
    assert code == 0
    assert "╭─ Legal moves" in printed and "Match result" in printed
    assert "\x1b[31m" in printed  # red suits


def test_plain_text_without_rich(monkeypatch):
    monkeypatch.setitem(sys.modules, "rich", None)  # as if the play extra were not installed
    out = _Terminal()
    code = main(["--seed", "4", "--opponents", "greedy"], io.StringIO(FIRST_MOVES), out)
    assert code == 0 and "== Match result ==" in out.getvalue()


# --- the record viewer -------------------------------------------------------------------


def _headers(output: str) -> list[str]:
    return re.findall(r"^== Match \d+ · round \d+ · lines (\d+-\d+) ", output, flags=re.M)


def test_replay_steps_forward_back_and_to_a_line():
    code, out = run(["--replay", str(GOLDEN)], "n\n\nb\n75\nzz\n999\nb\nq\n")
    assert code == 0
    assert _headers(out) == ["1-2", "3-3", "4-4", "3-3", "75-75", "74-74"]
    assert "! type n (next), b (back)" in out
    assert "! line 999 is not in this match: lines 1-418" in out
    first = out.split("replay [n]ext")[0]  # every hand is shown
    assert re.search(r"^  >  player 0   5 cards  total   0  (\S+ ){4}\S+$", first, flags=re.M)
    assert re.search(r"^   D player 1   4 cards  total   0  (\S+ ){3}\S+$", first, flags=re.M)


def test_replay_ends_and_starts_are_told():
    code, out = run(["--replay", str(GOLDEN), "--match", "2"], "b\n")
    assert code == 0
    assert "! this is the start of the match" in out
    assert re.search(r"^== Match 2 · round 1 · lines 419-", out, flags=re.M)


@pytest.mark.parametrize(
    "name", ["classic-2p.jsonl", "classic-2p-steal.jsonl", "classic-3p-stacking.jsonl"]
)
def test_playback_reaches_the_recorded_result(name):
    """The match with the most chance events (reshuffles, steals) replays to its end."""
    lines = [json.loads(text) for text in (RECORDS / name).read_text().splitlines() if text]
    starts = [i for i, event in enumerate(lines) if event["type"] == "match"] + [len(lines)]
    matches = [lines[a:b] for a, b in itertools.pairwise(starts)]
    chance = [sum(e["type"] in ("reshuffle", "steal") for e in match) for match in matches]
    number = int(np.argmax(chance)) + 1
    playback = Playback.load(RECORDS / name, number)
    final = playback.frames[-1].state
    assert bool(final.done[0])
    assert final.totals[0].tolist() == matches[number - 1][-1]["totals"]
    assert playback.last_line - playback.first_line + 1 == len(matches[number - 1])
    assert playback.frame_at(playback.first_line) == 0


# --- cards taken: every draw in the history ----------------------------------------------

STACKED = "base: classic\nname: stacked-steal\nstacking: true\nlast_card_effects: true\n"
STACKED += "empty_stock: steal\n"
_CARD = r"(?:10|[6-9JQKA])[♠♣♦♥]"


def _account_for_every_card(out: str, rules: Rules) -> dict[str, int]:
    """Replay the history of a plain transcript on the seats' card counts and the human's
    hand, and check them against every screen: each card a seat gains must be a line of
    "Since your last turn" (an opponent's without its cards). Returns what was seen."""
    hand_size, blind = rules.hand_size, rules.opening == "dealer_blind"
    seen = dict.fromkeys([OWN, TO_YOU, TO_OTHERS, OPENING, CAUSE, "screens"], 0)
    seat_line = re.compile(r"^  [ >][ D] (.+?)\s+(\d+) cards?\s+total\s+-?\d+( +out)?$")
    names = list(dict.fromkeys(m.group(1) for m in map(seat_line.match, out.splitlines()) if m))
    counts: dict[str, int] | None = None  # what the history says each seat holds
    on_screen: dict[str, int] = {}
    hand: set[str] | None = None
    out_seats: set[str] = set()
    previous = ""
    for raw in out.splitlines():
        line = raw.strip()
        if seat := seat_line.match(raw):
            name, count = seat.group(1), int(seat.group(2))
            if seat.group(3):
                out_seats.add(name)
            elif counts is not None:
                assert counts[name] == count, (name, counts, line)
                seen["screens"] += 1
            on_screen[name] = count
        elif line.startswith("Your hand: "):
            cards = set(line.removeprefix("Your hand: ").split()) - {"-"}
            if hand is not None:
                assert hand == cards, (hand, cards)
            hand, counts = cards, dict(on_screen)  # from here on the history must agree
        elif m := re.fullmatch(r"round \d+ dealt by (.+)", line):
            counts = {n: hand_size for n in names if n not in out_seats}
            if blind:
                counts[m.group(1)] -= 1  # the dealer's last card opens the pile
            hand = None
        elif m := re.fullmatch(r"(.+?): play (" + _CARD + r")( \(forced\))?", line):
            if counts is not None:
                counts[m.group(1)] -= 1
            if m.group(1) == "You" and hand is not None:
                hand.remove(m.group(2))
        elif m := re.fullmatch(r"(.+?): (?:draw|pass)( \(forced\))? → (.+)", line):
            who, taken = m.group(1), m.group(3)
            if who == "You":
                cards = taken.split()
                assert all(re.fullmatch(_CARD, c) for c in cards), line
                if hand is not None:
                    hand |= set(cards)
                seen[OWN] += 1
            else:
                assert re.fullmatch(r"\d+ cards?", taken), f"an opponent's cards shown: {line}"
                cards = [None] * int(taken.split()[0])
            if counts is not None:
                counts[who] += len(cards)
        elif m := re.fullmatch(
            r"(.+?) takes? (\d+) cards? \(penalty of (" + _CARD + r")\)(: (.+))?", line
        ):
            who, number = m.group(1), int(m.group(2))
            # the card named is one that makes the next player draw, in these rules
            assert rules.effect_of(parse_card(m.group(3), rules.deck_spec)).draw > 0, line
            seen[CAUSE] += 1
            if who == "You":
                cards = m.group(5).split()
                assert len(cards) == number and all(re.fullmatch(_CARD, c) for c in cards)
                if hand is not None:
                    hand |= set(cards)
                seen[TO_YOU] += 1
            else:
                assert m.group(4) is None, f"an opponent's cards shown: {line}"
                seen[TO_OTHERS] += 1
            if counts is not None:
                counts[who] += number
            seen[OPENING] += previous.startswith("round ") and "dealt by" in previous
        elif m := re.fullmatch(r"(.+?) steals (\S+) from (.+)", line):
            if counts is not None:
                counts[m.group(1)] += 1
                counts[m.group(3)] -= 1
            if hand is not None and m.group(1) == "You":
                hand.add(m.group(2))
            if hand is not None and m.group(3) == "You":
                hand.discard(m.group(2))
        elif line.startswith("round over"):
            counts = hand = None
        previous = line
    return seen


OWN, TO_YOU, TO_OTHERS, OPENING = "own draw", "penalty to you", "penalty to another", "opening"
CAUSE = "penalty with its card"


@pytest.mark.parametrize(
    ("rules", "players", "opponents", "seeds", "expected"),
    [
        ("classic", 2, "expert", range(4), (OWN, TO_YOU, TO_OTHERS, OPENING)),
        ("classic", 3, "random", range(3), (OWN, TO_YOU, TO_OTHERS, OPENING)),
        ("yard", 3, "greedy,random", range(3), (OWN, TO_YOU, TO_OTHERS)),  # steals
        # leader_plays (no opening card), until_playable (draws of several cards)
        ("encyclopedia", 2, "random", range(3), (OWN, TO_YOU, TO_OTHERS)),
        # a stacked penalty is taken by a draw (own), the last card's penalty is not
        ("STACKED", 3, "random", range(3), (OWN, TO_YOU, TO_OTHERS)),
    ],
)
def test_every_card_taken_is_in_the_history(rules, players, opponents, seeds, expected, tmp_path):
    """The history since the human's last turn accounts for every card each seat took:
    the counts on each screen and the human's hand follow from the lines shown, with the
    human's cards named and an opponent's only counted."""
    if rules == "STACKED":
        rules = str(tmp_path / "stacked.yaml")
        Path(rules).write_text(STACKED)
    loaded = load_rules(rules)
    seen: dict[str, int] = {}
    for seed in seeds:
        argv = ["--rules", rules, "--players", str(players), "--opponents", opponents]
        code, out = run([*argv, "--seed", str(seed)], FIRST_MOVES)
        assert code == 0 and "== Match result ==" in out
        found = _account_for_every_card(out, loaded)
        seen = {key: seen.get(key, 0) + value for key, value in found.items()}
    assert seen["screens"] > 50 and all(seen[kind] for kind in expected), seen


def test_the_penalties_of_the_issue_repro_are_shown():
    """issue 18's repro: two sixes in a row make the human take a card each time."""
    code, out = run(["--opponents", "expert", "--seed", "7"], "qd\nhearts\nd\n1\nqh\nc\njh\n")
    assert code == 0
    history = out.split("Your move> jh", 1)[1].split("== Round", 1)[0]
    assert re.findall(r"^  (.*)$", history, flags=re.M) == [
        "You: play J♥",
        "expert (seat 1): play 6♥",
        "You take 1 card (penalty of 6♥): 8♦",
        "expert (seat 1): play 6♠",
        "You take 1 card (penalty of 6♠): A♦",
        "expert (seat 1): draw (forced) → 1 card",
        "expert (seat 1): pass (forced)",
    ]
    assert "You: draw → 7♠" in out and "expert (seat 1) takes 2 cards (penalty of 7" in out


# --- in a real terminal (a pseudo-terminal) -----------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


class _PseudoTerminal:
    """The player run in a pseudo-terminal, as a person's terminal runs it: rich sees a
    terminal and draws panels, and the text read back is what the screen shows."""

    def __init__(self, argv: list[str]):
        pty = pytest.importorskip("pty")
        self.master, slave = pty.openpty()
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "50"}
        env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sto_odno_env.play", *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            close_fds=True,
            preexec_fn=default_sigint,
        )
        os.close(slave)
        self.seen = ""

    def read_until(self, marker: str, timeout: float = 60.0) -> str:
        """What the screen shows (escape codes removed) up to ``marker``."""
        deadline = time.monotonic() + timeout
        data = b""
        while marker not in (text := _ANSI.sub("", data.decode(errors="replace"))):
            assert time.monotonic() < deadline, text
            ready, _, _ = select.select([self.master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the other side closed
                    chunk = b""
                assert chunk, text
                data += chunk
        self.seen += text
        return text

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 30) -> str:
        """The rest of the output, once the player has exited."""
        self.process.wait(timeout=timeout)
        rest = b""
        with contextlib.suppress(OSError):
            while select.select([self.master], [], [], 0.5)[0] and (
                chunk := os.read(self.master, 4096)
            ):
                rest += chunk
        os.close(self.master)
        return _ANSI.sub("", rest.decode(errors="replace"))


def test_replay_prompt_reads_right_in_a_terminal():
    """rich would take ``[n]``, ``[b]`` and ``[q]`` for markup (``replay ext ack uit>``)."""
    pytest.importorskip("rich")
    terminal = _PseudoTerminal(["--replay", str(GOLDEN)])
    try:
        screen = terminal.read_until("[q]uit> ")
        assert "replay [n]ext [b]ack [line] [q]uit> " in screen
        assert "╭─ Match 1 · round 1 · lines 1-2" in screen  # rich's panels: a terminal
        terminal.type("n")
        assert "replay [n]ext [b]ack [line] [q]uit> " in terminal.read_until("[q]uit> ")
        terminal.type("q")
        terminal.finish()
    finally:
        terminal.process.kill()
    assert terminal.process.returncode == 0


def test_a_match_in_a_terminal_with_brackets_in_the_record_name(tmp_path):
    """The game's prompt, help and messages print as written, a ``[x]`` file name too;
    ``q`` leaves and the unfinished match replays."""
    pytest.importorskip("rich")
    record = tmp_path / "[x] match.jsonl"
    terminal = _PseudoTerminal(["--seed", "3", "--record", str(record)])
    try:
        screen = terminal.read_until("Your move> ")
        turn = re.search(r"╭─ Round 1 · your turn (\d+) ", screen)
        assert turn and "╭─ Legal moves" in screen
        terminal.type("?")
        helped = terminal.read_until("Your move> ")
        assert "Special cards (classic)" in helped and "Q: goes on any card; you order" in helped
        terminal.type("zz")
        assert "! 'zz' is not a move" in terminal.read_until("Your move> ")
        terminal.type("1")
        screen = terminal.read_until("> ")  # the next turn, or a suit after a queen
        if screen.endswith("Suit> "):
            terminal.type("h")
            screen = terminal.read_until("Your move> ")
        after = f"╭─ Round 1 · your turn {int(turn.group(1)) + 1} "
        assert after in screen or "round over" in screen
        terminal.type("q")
        rest = terminal.finish()
    finally:
        terminal.process.kill()
    assert terminal.process.returncode == 0
    assert f"saved the partial record (the match is unfinished) to {record}" in rest
    assert replay(record) == 1


# --- a reader that leaves: ``... | head`` -------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["sto_odno_env.play", "--seed", "1", "--record", "{tmp}/left.jsonl"],
        ["sto_odno_env.play", "--replay", str(GOLDEN)],
        ["sto_odno_env.record", "--players", "2", "--matches", "2", "--out", "{tmp}/r.jsonl"],
        ["sto_odno_env.replay", str(GOLDEN), str(GOLDEN)],
    ],
    ids=["play", "play-replay", "record", "replay"],
)
def test_a_closed_pipe_ends_quietly(argv, tmp_path):
    """As ``... | head`` does: the output's reader is gone before the command writes. It
    stops without a traceback, with the shell's status for it (141), its files whole."""
    argv = [part.replace("{tmp}", str(tmp_path)) for part in argv]
    read, write = os.pipe()
    os.close(read)  # the reader has left
    try:
        result = subprocess.run(
            [sys.executable, "-m", *argv],
            input=FIRST_MOVES,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(write)
    assert result.stderr == "" and result.returncode == 141
    for path in tmp_path.glob("*.jsonl"):
        assert replay(path) >= 1
    assert not list(tmp_path.glob(".*.tmp"))


def test_rounds_are_numbered_from_1_everywhere_a_person_reads():
    """The viewer, the text table (``render_mode="ansi"``) and the picture all call the
    record's round 1 (``state.round`` 1) "round 2"; the terminal game's title does too."""
    from sto_odno_env.views.picture import table_svg
    from sto_odno_env.views.render import render_game

    playback = Playback.load(GOLDEN)
    index = next(i for i, frame in enumerate(playback.frames) if int(frame.state.round[0]) == 1)
    frame = playback.frames[index]
    assert "round 2 · turn" in table_svg(frame.state)
    assert render_game(frame.state).startswith("round 2 · turn")
    code, out = run(["--replay", str(GOLDEN)], f"{frame.first}\nq\n")
    assert code == 0 and re.search(rf"^== Match 1 · round 2 · lines {frame.first}-", out, re.M)
    deal = next(event for _, event in frame.events if event["type"] == "round")
    assert deal["round"] == 1 and "round 2 dealt by" in out
    code, out = run(["--seed", "1"], FIRST_MOVES)
    assert "== Round 1 · your turn 1 ==" in out and "== Round 2 · your turn 1 ==" in out
    assert "round 2 dealt by" in out and "round 0" not in out.lower()


@pytest.mark.parametrize("players", [2, 4])
def test_turn_numbers_count_the_players_own_turns(players):
    """Within a round the human's turn numbers go 1, 2, 3, ...: one more per turn of the
    human, whatever the other seats and the forced decisions did; a number is skipped
    only for a turn of the human's own that was forced (shown in the history), and kept
    when the turn goes on (a cover, the card just drawn)."""
    code, out = run(
        ["--seed", "5", "--players", str(players), "--opponents", "random"], FIRST_MOVES
    )
    assert code == 0
    rounds = re.split(r"^== Round result ==$", out, flags=re.M)
    checked = 0
    for text in rounds:
        screens = re.split(r"^== Round \d+ · your turn (\d+) ==$", text, flags=re.M)
        numbers = [int(n) for n in screens[1::2]]
        histories = screens[0::2]
        for index, (a, b) in enumerate(itertools.pairwise(numbers)):
            between, body = histories[index + 1], histories[index + 2].split("==", 1)[0]
            if b == a:  # the same turn goes on: a card to cover, or the card just drawn
                assert "must be covered" in body or "drawn: " in body, (a, body)
                continue
            forced_turns = len(re.findall(r"^  You: \S+.*\(forced\)", between, flags=re.M))
            assert a < b <= a + 1 + forced_turns, (a, b, between)
            checked += 1
        if numbers:
            assert numbers[0] in (1, 2), numbers
    assert checked > 10


def test_the_viewer_names_the_seats_as_the_match_did(tmp_path):
    """The terminal game writes the seats' names in the record's header (an optional
    field the replayer passes over); the viewer shows them, and a record without them
    (the golden ones) still says "player k"."""
    record = tmp_path / "named.jsonl"
    code, _ = run(["--seed", "2", "--opponents", "greedy", "--record", str(record)], "1\nq\n")
    assert code == 0 and replay(record) == 1
    header = json.loads(record.read_text().splitlines()[0])
    assert header["names"] == ["You", "greedy (seat 1)"]
    code, out = run(["--replay", str(record)], "q\n")
    assert code == 0
    assert re.search(r"^  [ >][ D] You +\d+ cards", out, flags=re.M)
    assert re.search(r"^  [ >][ D] greedy \(seat 1\) +\d+ cards", out, flags=re.M)
    assert "player 0" not in out
    header["names"] = ["You"]  # one name for two seats
    lines = record.read_text().splitlines()
    bad = tmp_path / "bad-names.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, out = run(["--replay", str(bad)], "q\n")
    assert code == 2


def test_a_queen_and_its_suit_in_one_answer():
    """``qs h`` at the move prompt plays the queen and orders hearts without a suit prompt."""
    out = io.StringIO()
    answered = []

    def answer(printed: str) -> str | None:
        if answered:
            return None
        _, moves = last_screen(printed)
        queens = [m.split()[1] for m in moves if m.startswith("play Q")]
        if printed.endswith("Your move> ") and queens:
            answered.append(queens[0])
            return f"play {queens[0]} hearts"
        return "1"

    for seed in range(40):
        answered.clear()
        out = io.StringIO()
        code = main(["--seed", str(seed)], Responder(out, answer), out)
        if answered:
            break
    assert code == 0 and answered
    after = out.getvalue().split(f"Your move> play {answered[0]} hearts", 1)[1]
    assert not after.lstrip("\n").startswith("Suit> ")
    assert "Suit> " not in after.split("Your move> ", 1)[0]
    assert f"You: play {answered[0]}" in after and "You: order ♥" in after


def test_a_new_deal_drops_a_suit_typed_with_the_queen_that_ended_the_round():
    """A queen that finishes a round orders nothing: the suit typed with it must not
    answer the next round's suit order (say the dealer's, on an opening queen)."""
    from sto_odno_env.apps.play import HumanMatch, Reader
    from sto_odno_env.views.screen import Screen

    screen = Screen(io.StringIO())
    reader = Reader(io.StringIO(), screen)
    match = HumanMatch(load_rules("classic"), 2, 0, [None], ["You", "bot"], 0, screen, reader)
    match.queued = match.state.tables.deck.order_base + 3  # "qs h", the queen ending the round
    match._gather([{"type": "round", "round": 1, "dealer": 0}])
    assert match.queued is None


def test_two_runs_best_files_get_seat_names_that_tell_them_apart():
    from sto_odno_env.apps.labels import player_names

    names = player_names(4, 0, ["runs/a/best.pt", "runs/b/best.pt", "expert"])
    assert names == ["You", "a/best (seat 1)", "b/best (seat 2)", "expert (seat 3)"]
    # The same folder name in two places: as many folders as it takes.
    names = player_names(3, 2, ["x/ppo/best.pt", "y/ppo/best.pt"])
    assert names == ["x/ppo/best (seat 0)", "y/ppo/best (seat 1)", "You"]
