"""train/run/command_line.py: the checked command line: a folder holding another run is
refused with what to do, a rule set's player counts are checked, and only the kit's errors
are the command line's."""

from __future__ import annotations

from pathlib import Path

import pytest

from sto_odno_env.game.rules import RulesError
from train import ppo
from train.config import load_config
from train.config_keys import ConfigError
from train.run.command_line import as_text, check_out, check_rules, parse, user_errors
from train.run.protocol import Counters, Saved


def test_a_folder_holding_another_run_is_refused_with_what_to_do(tmp_path: Path) -> None:
    check_out(ppo.SPEC, tmp_path / "new", None, overwrite=False)  # absent: fine
    (tmp_path / "checkpoint.pt").write_text("a run")
    with pytest.raises(ConfigError) as refused:
        check_out(ppo.SPEC, tmp_path, None, overwrite=False)
    message = str(refused.value)
    assert "holds another run (checkpoint.pt)" in message
    assert f"--resume {tmp_path / 'checkpoint.pt'}" in message and "--overwrite" in message
    check_out(ppo.SPEC, tmp_path, None, overwrite=True)
    resumed = Saved(tmp_path / "checkpoint.pt", {}, {}, Counters(), {})
    check_out(ppo.SPEC, tmp_path, resumed, overwrite=False)  # resuming the run that is there
    with pytest.raises(ConfigError, match="is a file"):
        check_out(ppo.SPEC, tmp_path / "checkpoint.pt", None, overwrite=False)


def test_the_rule_sets_player_counts_bound_players_and_the_mix() -> None:
    assert check_rules(load_config(None, {"players": 3}, [])).name == "classic"
    with pytest.raises(ConfigError, match=r"do not allow \[9\] players"):
        check_rules(load_config(None, {"players_mix": [2, 9]}, []))
    with pytest.raises(RulesError):
        check_rules(load_config(None, {"rules": "micro", "players": 3}, []))


def test_values_read_as_an_error_line_writes_them() -> None:
    assert [as_text(v) for v in (None, True, [128, 64], 0.5)] == [
        "none",
        "true",
        "[128, 64]",
        "0.5",
    ]


def test_an_unknown_key_is_the_command_lines_error_and_a_bare_value_error_is_not() -> None:
    with pytest.raises(ConfigError, match="unknown key 'learning_rat'"):
        parse(ppo.SPEC, ["learning_rat=1e-4", "--out", "/tmp/unused-sto-odno"])
    assert isinstance(ConfigError("x"), user_errors())
    assert not isinstance(ValueError("shapes (3,) (4,)"), user_errors())
