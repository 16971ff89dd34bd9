"""Bad input, table by table: every case gets one clear line, never a traceback.

Command lines: a non-zero exit and exactly one line on stderr that names what is wrong and
what is allowed (the ``expected`` text), and no output file left behind. The Python API: a
``ValueError`` (or the documented subclass) with such a message. Command lines run in
process (``main(argv)``: an exception other than ``SystemExit`` fails the test, as a
traceback would); a few run as real subprocesses to check the whole command.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import sto_odno_env  # noqa: F401  (registers StoOdno-v0)
from agents import AgentError, load
from agents import evaluate as evaluate_cli
from agents.evaluate import EvaluationError, evaluate
from sto_odno_env import sto_odno_v0
from sto_odno_env.apps import bench
from sto_odno_env.envs.aec import MatchOverError
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
from sto_odno_env.game import engine
from sto_odno_env.game.engine import IllegalActionError
from sto_odno_env.game.rules import Rules, RulesError
from sto_odno_env.records import record, replay
from sto_odno_env.records.replay import RecordError
from tests.helpers import sb3_vec_env

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "records" / "classic-2p.jsonl"
UNWRITABLE = "/proc/sto-odno-test"  # not writable even by root


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Bad input files, named by what is wrong with them."""
    root = tmp_path_factory.mktemp("bad")
    made = {
        "empty": b"",
        "blank": b"\n\n  \n",
        "binary": bytes(range(128, 256)) * 4,
        "text": b"hello, world\n",
        "json-list": b"[1, 2, 3]\n",
        "truncated": b"".join(GOLDEN.read_bytes().splitlines(keepends=True)[:300]),
        "cut-mid-line": GOLDEN.read_bytes()[:5000],
        "no-header": b'{"type": "round", "round": 0, "dealer": 0, "deck": []}\n',
        "empty-yaml": b"",
        "binary-yaml": bytes(range(128, 256)),
        "list-yaml": b"- 1\n- 2\n",
        "unknown-key-yaml": b"base: classic\njokers: 2\n",
    }
    paths = {}
    for name, data in made.items():
        paths[name] = root / f"{name}.{'yaml' if name.endswith('yaml') else 'jsonl'}"
        paths[name].write_bytes(data)
    paths["directory"] = root / "a-directory"
    paths["directory"].mkdir()
    paths["missing"] = root / "missing.jsonl"
    paths["out"] = root / "out.jsonl"
    return paths


# --- command lines ------------------------------------------------------------------------------

REC = ["--players", "2", "--matches", "1"]
EVA = ["--agents", "expert,greedy", "--matches", "2", "--no-progress"]

# (tool, argv with {name} placeholders for the files above, text the error line must hold)
CLI_CASES: list[tuple[str, list[str], str]] = [
    # record: numbers
    ("record", ["--players", "0", "--matches", "1"], "allowed: an integer >= 1"),
    ("record", ["--players", "-1", "--matches", "1"], "allowed: an integer >= 1"),
    ("record", ["--players", "7", "--matches", "1"], "allowed: 2..6"),
    ("record", ["--players", "2.5", "--matches", "1"], "'2.5' is not an integer"),
    ("record", ["--players", "2", "--matches", "0"], "allowed: an integer from 1 to"),
    ("record", ["--players", "2", "--matches", "-5"], "allowed: an integer from 1 to"),
    ("record", ["--players", "2", "--matches", "1.5"], "'1.5' is not an integer"),
    ("record", ["--players", "2", "--matches", "10" * 12], "allowed: an integer from 1 to"),
    ("record", ["--players", "2", "--matches", "two"], "'two' is not an integer"),
    ("record", [*REC, "--seed", "-1"], "allowed: an integer >= 0"),
    # record: names and keys
    ("record", [*REC, "--rules", "klassik"], "'klassik' is neither a preset"),
    ("record", [*REC, "--set", "stackng=true"], "unknown key 'stackng'"),
    ("record", [*REC, "--set", "stacking"], "expected key.path=value"),
    ("record", [*REC, "--set", "effects.6.draw=-2"], "effects.6.draw: -2 is too small"),
    ("record", ["--rules", "nines", "--players", "5", "--matches", "1"], "not allowed by"),
    # record: files
    ("record", [*REC, "--rules", "{directory}"], "is a directory; give a YAML file"),
    ("record", [*REC, "--rules", "{empty-yaml}"], "must hold a mapping of rule keys"),
    ("record", [*REC, "--rules", "{list-yaml}"], "must hold a mapping of rule keys"),
    ("record", [*REC, "--rules", "{binary-yaml}"], "is not UTF-8 text"),
    ("record", [*REC, "--rules", "{unknown-key-yaml}"], "unknown key 'jokers'"),
    ("record", [*REC, "--out", "{missing}/x.jsonl"], "does not exist; create it first"),
    ("record", [*REC, "--out", "{directory}"], "is a directory; give a file path"),
    ("record", [*REC, "--out", f"{UNWRITABLE}.jsonl"], "give a writable location"),
    # replay: files
    ("replay", ["{empty}"], "no events; a record starts with a 'match' line"),
    ("replay", ["{blank}"], "no events; a record starts with a 'match' line"),
    ("replay", ["{binary}"], "is not UTF-8 text; a record is JSON Lines text"),
    ("replay", ["{directory}"], "is a directory; give a record file"),
    ("replay", ["{missing}"], "does not exist"),
    ("replay", ["{text}"], "line 1: not valid JSON"),
    ("replay", ["{json-list}"], "line 1: not an event; type must be one of"),
    ("replay", ["{truncated}"], "the record ends where the engine expects"),
    ("replay", ["{cut-mid-line}"], "not valid JSON"),
    ("replay", ["{no-header}"], "the engine expects a 'match' line here"),
    # evaluate: numbers
    ("evaluate", [*EVA, "--batch", "0"], "allowed: an integer >= 1"),
    ("evaluate", [*EVA, "--batch", "-4"], "allowed: an integer >= 1"),
    ("evaluate", [*EVA, "--batch", "1e3"], "'1e3' is not an integer"),
    ("evaluate", [*EVA, "--matches", "3"], "not a positive multiple of 2 (each deal"),
    ("evaluate", [*EVA, "--matches", "0"], "allowed: an integer from 1 to"),
    ("evaluate", [*EVA, "--matches", "99999999999"], "allowed: an integer from 1 to"),
    ("evaluate", [*EVA, "--players", "1"], "allowed: 2..6"),
    ("evaluate", [*EVA, "--players", "4", "--matches", "6"], "allowed: e.g. 4 or 8"),
    ("evaluate", [*EVA, "--seed", "-3"], "allowed: an integer >= 0"),
    # evaluate: names
    ("evaluate", ["--agents", "expert,expret", "--no-progress"], "unknown agent 'expret'"),
    ("evaluate", ["--agents", "expert", "--no-progress"], "needs at least two agents"),
    ("evaluate", ["--agents", "rollout:depth=2,expert"], "bad parameter 'depth=2'; allowed:"),
    ("evaluate", [*EVA, "--rules", "bridge"], "'bridge' is neither a preset"),
    ("evaluate", [*EVA, "--pairs", "some"], "invalid choice: 'some'"),
    # evaluate: files
    ("evaluate", [*EVA, "--out", "{empty}"], "exists and is not a directory"),
    ("evaluate", [*EVA, "--out", f"{UNWRITABLE}/eval"], "give a writable location"),
    # bench
    ("bench", ["--seconds", "0"], "allowed: seconds > 0"),
    ("bench", ["--seconds", "-1"], "allowed: seconds > 0"),
    ("bench", ["--seconds", "nan"], "allowed: seconds > 0"),
    ("bench", ["--repeats", "0"], "allowed: an integer >= 1"),
]

MAINS: dict[str, Callable[[list[str]], Any]] = {
    "record": record.main,
    "replay": replay.main,
    "evaluate": evaluate_cli.main,
    "bench": bench.main,
}
MODULES = {
    "record": "sto_odno_env.record",
    "replay": "sto_odno_env.replay",
    "evaluate": "agents.evaluate",
    "bench": "sto_odno_env.bench",
}


def fill(argv: list[str], files: dict[str, Path]) -> list[str]:
    return [arg.format(**{name: str(path) for name, path in files.items()}) for arg in argv]


def test_the_table_is_large_enough() -> None:
    assert len(CLI_CASES) + len(API_CASES) >= 40
    assert {tool for tool, _, _ in CLI_CASES} == set(MAINS)


@pytest.mark.parametrize(("tool", "argv", "expected"), CLI_CASES, ids=lambda v: str(v)[:40])
def test_cli_bad_input(
    tool: str, argv: list[str], expected: str, files: dict[str, Path], capsys
) -> None:
    argv = fill(argv, files)
    if tool == "record" and "--out" not in argv:
        argv += ["--out", str(files["out"])]
    try:
        status = MAINS[tool](argv)
    except SystemExit as exit_info:
        status = exit_info.code
    captured = capsys.readouterr()
    assert status not in (0, None), captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert expected in lines[0], lines[0]
    assert "Traceback" not in captured.err + captured.out
    assert not files["out"].exists()  # nothing half written


@pytest.mark.parametrize(
    ("tool", "argv", "expected"),
    [
        ("record", [*REC, "--out", "/nonexistent/dir/x.jsonl"], "does not exist"),
        ("replay", ["{binary}"], "is not UTF-8 text"),
        ("replay", ["{missing}"], "does not exist"),
        ("evaluate", [*EVA, "--batch", "0"], "allowed: an integer >= 1"),
        ("bench", ["--seconds", "0"], "allowed: seconds > 0"),
    ],
)
def test_cli_bad_input_in_a_subprocess(
    tool: str, argv: list[str], expected: str, files: dict[str, Path]
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", MODULES[tool], *fill(argv, files)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2  # bad input, as for every command
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.stderr


def test_an_interrupted_write_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "records.jsonl"

    def events():
        yield [{"type": "match"}]
        raise KeyboardInterrupt  # the user stops the run half way

    with pytest.raises(KeyboardInterrupt):
        record.write_records(target, events())
    assert list(tmp_path.iterdir()) == []


# --- the Python API ---------------------------------------------------------------------------


def finished_aec_env():
    env = sto_odno_v0.env(players=2)
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        mask = observation["action_mask"]
        env.step(None if terminated or truncated else env.action_space(agent).sample(mask))
    return env


def finished_gym_env():
    env = gymnasium.make("StoOdno-v0", players=2).unwrapped
    env.reset(seed=0)
    while True:
        _, _, terminated, truncated, _ = env.step(int(env.action_masks().argmax()))
        if terminated or truncated:
            return env


def replay_file(name: str) -> Callable[[dict[str, Path]], Any]:
    return lambda files: replay.replay(files[name])


# (name, call taking the files, exception type, text the message must hold)
API_CASES: list[tuple[str, Callable[[dict[str, Path]], Any], type[Exception], str]] = [
    ("vec num_envs=0", lambda f: sb3_vec_env()(num_envs=0), ValueError, "allowed: an integer"),
    ("vec num_envs=-3", lambda f: sb3_vec_env()(num_envs=-3), ValueError, "num_envs=-3"),
    ("vector num_envs=0", lambda f: StoOdnoVectorEnv(num_envs=0), ValueError, "num_envs=0"),
    ("vector num_envs=2.5", lambda f: StoOdnoVectorEnv(2.5), ValueError, "num_envs=2.5"),
    ("opponents unknown", lambda f: sb3_vec_env()(2, opponents="expret"), AgentError, "expret"),
    (
        "opponents count",
        lambda f: StoOdnoVectorEnv(2, players=3, opponents=["expert"]),
        ValueError,
        "expected 2 policies",
    ),
    ("players=7", lambda f: gymnasium.make("StoOdno-v0", players=7), RulesError, "allowed"),
    ("rules unknown", lambda f: gymnasium.make("StoOdno-v0", rules="uno"), RulesError, "'uno'"),
    (
        "reward unknown",
        lambda f: gymnasium.make("StoOdno-v0", reward="points"),
        ValueError,
        "allowed",
    ),
    (
        "illegal_action unknown",
        lambda f: sto_odno_v0.env(illegal_action="ignore"),
        ValueError,
        "allowed",
    ),
    (
        "learner_seat out of range",
        lambda f: gymnasium.make("StoOdno-v0", players=2, learner_seat=2),
        ValueError,
        "not a seat 0..1",
    ),
    ("last() after the end", lambda f: finished_aec_env().last(), MatchOverError, "reset()"),
    (
        "step after the episode",
        lambda f: finished_gym_env().step(0),
        gymnasium.error.ResetNeeded,
        "call reset() first",
    ),
    (
        "illegal action",
        lambda f: engine.step(engine.init("classic", 2, 1, seed=0), np.array([41])),
        IllegalActionError,
        "legal actions:",
    ),
    (
        "unknown rules key",
        lambda f: Rules.preset("classic").replace(jokers=2),
        RulesError,
        "jokers",
    ),
    ("deck size", lambda f: Rules.preset("classic").replace(deck=40), RulesError, "deck: 40"),
    ("replay empty", replay_file("empty"), RecordError, "no events"),
    ("replay binary", replay_file("binary"), RecordError, "not UTF-8"),
    ("replay directory", replay_file("directory"), RecordError, "is a directory"),
    ("replay truncated", replay_file("truncated"), RecordError, "the record ends"),
    ("agent unknown", lambda f: load("alphazero"), AgentError, "allowed: random"),
    ("rollout budget", lambda f: load("rollout:samples=0"), AgentError, ">= 1"),
    (
        "evaluate matches=3",
        lambda f: evaluate(["expert", "greedy"], "classic", 2, 3, 0, progress=False),
        EvaluationError,
        "allowed: e.g. 2 or 4",
    ),
    (
        "evaluate batch=0",
        lambda f: evaluate(["expert", "greedy"], "classic", 2, 2, 0, batch=0, progress=False),
        EvaluationError,
        "allowed: an integer >= 1",
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "error", "expected"), API_CASES, ids=[case[0] for case in API_CASES]
)
def test_api_bad_input(
    name: str,
    call: Callable[[dict[str, Path]], Any],
    error: type[Exception],
    expected: str,
    files: dict[str, Path],
) -> None:
    with pytest.raises(error) as info:
        call(files)
    assert expected in str(info.value)
    assert "\n" not in str(info.value).strip()  # one line


def test_opponents_by_name_are_the_registry_agents() -> None:
    env = sb3_vec_env()(num_envs=2, players=3, opponents=["expert", "greedy"])
    assert [type(policy).__name__ for policy in env.games.opponents] == [
        "ExpertAgent",
        "GreedyAgent",
    ]
    single = gymnasium.make("StoOdno-v0", players=2, opponents="expert").unwrapped
    assert type(single.games.opponents[0]).__name__ == "ExpertAgent"
    vector = StoOdnoVectorEnv(num_envs=2)
    vector.set_opponents("greedy")
    assert type(vector.games.opponents[0]).__name__ == "GreedyAgent"
