"""The kit's one error family (sto_odno_env/tools/errors.py): every error the kit raises
for input it refuses is a ``StoOdnoError``, still a ``ValueError``; a command line reports
those as one line and exit 2, and lets any other ``ValueError`` (a bug) end with its
traceback."""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil

import pytest

from sto_odno_env import StoOdnoError
from sto_odno_env.game.rules import RulesError, load_rules

# The exceptions the kit defines that are not refusals of input, and why.
NOT_INPUT = {
    "sto_odno_env.apps.play.Quit": "the player typed q: control flow",
    "sto_odno_env.interop.openspiel.chance.Need": "a chance outcome is due: control flow",
    "sto_odno_env.interop.openspiel.chance.RoundsOver": "the match's rounds ran out: control flow",
    "sto_odno_env.envs.sharded.WorkerError": "a worker process failed: a RuntimeError",
    "train.ppo_parts.overlap.CollectorError": "the collector process failed: a RuntimeError",
    "train.ppo_parts.overlap._Stop": "the collector's stop: control flow",
}


def kit_exceptions() -> dict[str, type[Exception]]:
    """Every Exception subclass defined in the kit's packages, by dotted name; modules
    whose optional dependency is missing are left out."""
    found = {}
    for package in ("sto_odno_env", "agents", "train"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            try:
                module = importlib.import_module(info.name)
            except ImportError:  # an extra that is not installed
                continue
            for _, value in inspect.getmembers(module, inspect.isclass):
                if value.__module__ == info.name and issubclass(value, Exception):
                    found[f"{info.name}.{value.__qualname__}"] = value
    return found


def test_every_error_of_the_kit_is_a_sto_odno_error() -> None:
    found = kit_exceptions()
    assert {"sto_odno_env.game.rule_values.RulesError", "train.config_keys.ConfigError"} <= set(
        found
    )
    outside = sorted(
        name
        for name, error in found.items()
        if not issubclass(error, StoOdnoError) and name not in NOT_INPUT
    )
    assert not outside, f"errors outside the family (derive from StoOdnoError): {outside}"
    stale = sorted(
        name for name in NOT_INPUT if name in found and issubclass(found[name], StoOdnoError)
    )
    assert not stale, f"in the family now; drop from NOT_INPUT: {stale}"


def test_a_kit_error_is_still_a_value_error() -> None:
    with pytest.raises(ValueError, match="neither a preset"):
        load_rules("no-such-preset")
    assert issubclass(StoOdnoError, ValueError)


def test_the_trainers_command_line_reports_a_kit_error_and_lets_a_bug_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from train.run import session

    def refuse(spec, argv):
        raise RulesError("rules 'nope': no rule set of that name")

    monkeypatch.setattr(session, "parse", refuse)
    assert session.main(spec=None, argv=[]) == 2  # type: ignore[arg-type]

    def broken(spec, argv):
        raise ValueError("operands could not be broadcast together with shapes (3,) (4,)")

    monkeypatch.setattr(session, "parse", broken)
    with pytest.raises(ValueError, match="broadcast"):
        session.main(spec=None, argv=[])  # type: ignore[arg-type]


def test_the_terminal_game_reports_a_kit_error_and_lets_a_bug_through(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sto_odno_env.apps import play
    from sto_odno_env.bots import registry

    def missing(name, **kwargs):
        raise registry.AgentError(f"unknown agent {name!r}")

    monkeypatch.setattr(registry, "load", missing)
    argv = ["--plain", "--opponents", "random", "--seed", "0"]
    assert play.main(argv, stdin=io.StringIO("q\n"), stdout=io.StringIO()) == 2
    assert "unknown agent 'random'" in capsys.readouterr().err

    def broken(name, **kwargs):
        raise ValueError("could not broadcast input array from shape (3,) into shape (4,)")

    monkeypatch.setattr(registry, "load", broken)
    with pytest.raises(ValueError, match="broadcast"):
        play.main(argv, stdin=io.StringIO("q\n"), stdout=io.StringIO())
