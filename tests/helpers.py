"""Helpers shared by several test files (the scenario tests have theirs in
``scenario_helpers.py``; fixtures live in ``conftest.py``)."""

from __future__ import annotations

import importlib.util
import signal
import zlib
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
