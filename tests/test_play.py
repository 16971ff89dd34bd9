"""The terminal game and record viewer (``python -m sto_odno_env.play``), driven by input.

Most tests call ``play.main`` in-process with text streams (fast); a few run the module as
a subprocess to check what only a real process shows: exit codes, SIGINT, no traceback.
"""

from __future__ import annotations

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

from sto_odno_env import engine
from sto_odno_env.cards import (
    NUM_CARDS,
    ORDER_BASE,
    PHASE_ORDER,
    RANK_NAMES,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    card_name,
    rank_of,
    suit_of,
)
from sto_odno_env.play import MoveError, main, parse_move
from sto_odno_env.playback import Playback
from sto_odno_env.replay import replay

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
            assert parse_move(text, state) == card, text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty line"),
        ("   ", "empty line"),
        ("zz", "is not a card"),
        ("11s", "is not a card"),
        ("99", "there is no move 99"),
        ("0", "there is no move 0"),
        ("p", "you cannot pass now"),
    ],
)
def test_bad_moves_are_explained(text, message):
    state = _state_with_phase(None)
    with pytest.raises(MoveError, match=message):
        parse_move(text, state)


def test_suit_prompt_after_a_queen():
    state = _state_with_phase(PHASE_ORDER)
    assert parse_move("h", state) == ORDER_BASE + 3
    assert parse_move("♥", state) == ORDER_BASE + 3
    assert parse_move("Hearts", state) == ORDER_BASE + 3
    assert parse_move("d", state) == ORDER_BASE + 2  # a suit here, not a draw
    assert parse_move("1", state) == ORDER_BASE
    with pytest.raises(MoveError, match="not a suit"):
        parse_move("qs", state)


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
    assert messages[0].startswith("'zz' is not a card")
    assert messages[1].startswith("empty line")
    assert messages[2].startswith("you do not hold")
    assert messages[3].startswith("there is no move 99")
    assert messages[4].startswith("you cannot pass now")
    assert tried_illegal, "no position with a held card that cannot be played"
    assert any(m.startswith(f"{tried_illegal[0]} cannot be played now") for m in messages)
    for message in messages:  # every message is followed by a new prompt
        after = printed[printed.index("! " + message) :]
        assert after.split("\n", 1)[1].startswith(("Your move> ", "Suit> "))
    assert "== Match result ==" in printed


def test_help_and_quit(tmp_path):
    record = tmp_path / "left.jsonl"
    code, out = run(["--seed", "1", "--record", str(record)], "?\nq\n")
    assert code == 0
    assert "q quits" in out.split("Your move> ?", 1)[1]
    assert "you left the match" in out and "partial record" in out
    assert json.loads(record.read_text().splitlines()[0])["type"] == "match"


# --- leaving ---------------------------------------------------------------------------


def test_end_of_input_leaves_and_saves(tmp_path):
    record = tmp_path / "eof.jsonl"
    code, out = run(["--seed", "2", "--record", str(record)], "1\n")
    assert code == 0
    assert (
        "end of input" in out
        and f"saved the partial record (the match is unfinished) to {record}" in out
    )
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert events[0]["type"] == "match" and any(e["type"] == "action" for e in events)


class _Interrupting(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


def test_ctrl_c_in_process(tmp_path):
    record = tmp_path / "int.jsonl"
    code, out = run(["--seed", "2", "--record", str(record)], stdin=_Interrupting())
    assert code == 130
    assert "interrupted" in out and record.exists()


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


def test_ctrl_c_leaves_cleanly_and_saves_the_record(tmp_path):
    record = tmp_path / "sigint.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "sto_odno_env.play", "--seed", "3", "--record", str(record)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        # A test run started in the background inherits SIGINT ignored, and so would the
        # player: give it the default disposition, as a terminal's Ctrl-C finds it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _read_until(process.stdout, "Your move> ")
        process.send_signal(signal.SIGINT)
        # Not communicate(): it closes stdin, and on a loaded machine the player could read
        # that end of input (and quit normally) before the interrupt is handled.
        process.wait(timeout=30)
        out, err = process.stdout.read(), process.stderr.read()
    finally:
        process.kill()
    assert process.returncode == 130
    assert b"Traceback" not in err and err == b""
    assert b"interrupted" in out and b"saved the partial record" in out
    assert json.loads(record.read_text().splitlines()[0])["type"] == "match"


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
    return re.findall(r"^== Match \d+ · lines (\d+-\d+) ", output, flags=re.M)


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
    assert re.search(r"^== Match 2 · lines 419-", out, flags=re.M)


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
