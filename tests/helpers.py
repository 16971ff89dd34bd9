"""Helpers shared by several test files (the scenario tests have theirs in
``scenario_helpers.py``; fixtures live in ``conftest.py``)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from sto_odno_env.bots.policy import BasePolicy

# optional module -> the extra of pyproject.toml that installs it
EXTRAS = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tqdm": "train",
    "matplotlib": "eval",
    "openskill": "eval",
    "rich": "play",
    "PIL": "picture",
    "nbclient": "notebooks",
    "ipykernel": "notebooks",
    "ray": "dist",
    "pyspiel": "openspiel",
    "shimmy": "bench",
}


def need(module: str) -> ModuleType:
    """``module``, or skip the test when it is not installed, naming the extra that
    installs it (so a base install, ``pip install -e .`` plus pytest and hypothesis, skips
    what it cannot run instead of failing)."""
    extra = EXTRAS.get(module)
    hint = f"pip install -e '.[{extra}]'" if extra else f"pip install {module}"
    return pytest.importorskip(module, reason=f"needs {module} ({hint})")


def needs(*modules: str) -> pytest.MarkDecorator:
    """A mark that skips the test unless every one of ``modules`` is installed, naming the
    extra that installs it (for tests that need a module only inside the package)."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    extras = sorted({EXTRAS.get(m, m) for m in missing})
    return pytest.mark.skipif(
        bool(missing),
        reason=f"needs {', '.join(missing)} (pip install -e '.[{','.join(extras)}]')",
    )


def sb3_vec_env() -> type:
    """The stable-baselines3 VecEnv class, or skip the test without stable-baselines3."""
    need("stable_baselines3")
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    return StoOdnoVecEnv


def crc_choice(observation: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic "random" legal action: a function of the observation and mask only,
    so the same position gets the same action in any env."""
    legal = np.flatnonzero(mask)
    return int(legal[zlib.crc32(np.ascontiguousarray(observation).tobytes()) % len(legal)])


class CrcPolicy(BasePolicy):
    """:func:`crc_choice` for every row of a batch."""

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([crc_choice(o, m) for o, m in zip(observations, masks, strict=True)])


def set_bits(bits: int | np.integer) -> list[int]:
    """The ids of the set bits of a card or action mask, lowest first."""
    value = int(bits)
    return [i for i in range(value.bit_length()) if value >> i & 1]


def play_a_match_in_the_aec_env(
    agent, rules, players: int, seed: int, max_steps: int | None = None
) -> None:
    """``agent`` in every seat of one AEC match (or its first ``max_steps`` steps: a match
    at six players runs to thousands); an illegal action raises there."""
    from sto_odno_env import sto_odno_v0

    env = sto_odno_v0.env(rules=rules, players=players, illegal_action="raise")
    env.reset(seed=seed)
    for _ in env.agent_iter(max_iter=max_steps or 2**63):
        observation, _, terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = agent(observation["observation"], observation["action_mask"])
        env.step(action)


def default_sigint() -> None:
    """``preexec_fn`` for a child that a test stops with SIGINT. A test run started in the
    background by a shell without job control has SIGINT ignored, and so do its pytest-xdist
    workers; a child inherits that disposition across exec, and Python then installs no
    KeyboardInterrupt handler, so the child would sleep through the signal (intermittently:
    a worker that has run the notebook test has a SIGINT handler again). A user's Ctrl-C
    reaches a program whose SIGINT is at its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(
    command: Sequence[str], *, cwd: Path, env: dict[str, str] | None = None, **popen: object
) -> subprocess.Popen[str]:
    """``command`` as a real process with its output and errors piped as text, SIGINT at its
    default (:func:`default_sigint`) and unbuffered output (so a test reads each line as it
    is printed). ``env`` holds variables added to this process's environment."""
    return subprocess.Popen(
        list(command),
        cwd=cwd,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
        **popen,  # type: ignore[arg-type]
    )


@dataclass(frozen=True)
class Stopped:
    """How a process stopped by :func:`stop_when_ready` ended."""

    returncode: int
    read: str  # what ``ready`` read before the signal
    stdout: str  # the rest of the output, after the signal
    stderr: str  # the rest of the errors, after the signal
    seconds: float  # from the signal to the exit


def stop_when_ready(
    command: Sequence[str],
    signum: int,
    ready: Callable[[subprocess.Popen[str]], str],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    settle: float = 0.0,
    timeout: float = 60,
) -> Stopped:
    """Start ``command`` (:func:`start`), let ``ready`` read from it (asserting what it
    reads) until the moment to stop it, wait ``settle`` seconds more, send ``signum`` and
    collect the rest. The process is killed if anything fails on the way."""
    process = start(command, cwd=cwd, env=env)
    try:
        read = ready(process)
        time.sleep(settle)
        signalled = time.monotonic()
        process.send_signal(signum)
        out, err = process.communicate(timeout=timeout)
        seconds = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return Stopped(process.returncode, read, out, err, seconds)


def lines_starting(
    *prefixes: str, stream: str = "stderr"
) -> Callable[[subprocess.Popen[str]], str]:
    """A ``ready`` for :func:`stop_when_ready`: reads one line of the process's ``stream``
    ("stdout" or "stderr") per prefix, asserting that each starts with its prefix (a prefix
    ending in a newline is the whole line); returns the lines."""

    def ready(process: subprocess.Popen[str]) -> str:
        lines = ""
        for prefix in prefixes:
            line = getattr(process, stream).readline()
            lines += line
            assert line.startswith(prefix), lines
        return lines

    return ready


def stop_name(signum: int) -> str:
    """How a command's one stop line names ``signum``: Ctrl-C for SIGINT, else SIGTERM."""
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def assert_stopped(stopped: Stopped) -> None:
    """The stopped exit code (130) and no traceback in the output or the errors."""
    assert stopped.returncode == 130, (
        f"exit {stopped.returncode}\n{stopped.stdout}\n{stopped.stderr}"
    )
    assert "Traceback" not in stopped.stderr + stopped.stdout, stopped.stderr
