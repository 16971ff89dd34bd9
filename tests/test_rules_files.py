"""Rule-set files a person writes by hand (issue 54 point 4): a YAML syntax error is one
line naming the file, the line and the column; an unknown key names the nearest known one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sto_odno_env.game.rules import Rules, RulesError

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "house.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_yaml_syntax_error_is_one_line_with_its_place(tmp_path):
    path = write(tmp_path, "base: classic\nname: house\nstacking: [true\n")
    with pytest.raises(RulesError) as error:
        Rules.from_yaml(path)
    message = str(error.value)
    assert "\n" not in message
    assert str(path) in message and "line 4, column 1" in message and "expected" in message


@pytest.mark.parametrize(
    ("key", "nearest"),
    [("stackng", "stacking"), ("hand-size", "hand_size"), ("max_turn", "max_turns")],
)
def test_an_unknown_key_suggests_the_nearest(tmp_path, key, nearest):
    path = write(tmp_path, f"base: classic\nname: house\n{key}: 3\n")
    with pytest.raises(RulesError, match=rf"unknown key '{key}' \(did you mean '{nearest}'\?\)"):
        Rules.from_yaml(path)


def test_a_key_like_nothing_gets_no_suggestion(tmp_path):
    path = write(tmp_path, "base: classic\nname: house\nzzz: 3\n")
    with pytest.raises(RulesError) as error:
        Rules.from_yaml(path)
    assert "did you mean" not in str(error.value) and "allowed: name," in str(error.value)


def test_a_command_prints_the_syntax_error_on_one_line(tmp_path):
    path = write(tmp_path, "name: [\n")
    done = subprocess.run(
        [sys.executable, "-m", "agents.exact", "size", "--rules", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "line 2, column 1" in done.stderr
