"""The set-up scripts (scripts/setup.sh, train.sh, test.sh) in a scratch checkout whose
``.venv`` only logs its calls: what each installs, once, and what a changed
``pyproject.toml`` reinstalls (their install stamp)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FAKE_PYTHON = """#!/usr/bin/env bash
echo "python $*" >> "$LOG"
"""


def fake_checkout(tmp_path: Path) -> tuple[Path, Path]:
    """The scripts and pyproject.toml in a scratch tree whose .venv's python and ruff only
    log how they were called; returns (tree, log)."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    for name in ("setup.sh", "train.sh", "test.sh"):
        (tree / "scripts" / name).write_text((ROOT / "scripts" / name).read_text())
        (tree / "scripts" / name).chmod(0o755)
    (tree / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    bin_dir = tree / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "activate").write_text(f'export PATH="{bin_dir}:$PATH"\n')
    for name in ("python", "ruff"):
        (bin_dir / name).write_text(FAKE_PYTHON.replace("python", name, 1))
        (bin_dir / name).chmod(0o755)
    return tree, tmp_path / "calls.log"


def run_script(tree: Path, log: Path, script: str, *args: str, **env: str) -> list[str]:
    """Run ``scripts/SCRIPT``; the calls it made to the fake python and ruff."""
    before = log.read_text().splitlines() if log.exists() else []
    environment = {k: v for k, v in os.environ.items() if k not in ("EXTRAS", "FORCE")}
    done = subprocess.run(
        [f"./scripts/{script}", *args], cwd=tree, env={**environment, "LOG": str(log), **env},
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines()[len(before) :] if log.exists() else []


def test_train_installs_what_training_needs_and_the_tests_add_the_rest_once(tmp_path):
    tree, log = fake_checkout(tmp_path)
    first = run_script(tree, log, "train.sh", "--minutes", "1")
    installs = [call for call in first if "pip install" in call]
    # the train extra alone: torch, SB3, tqdm, TensorBoard; no Ray (dist), no OpenSpiel (bench)
    assert installs[-1] == "python -m pip install -q -e .[train]"
    assert "python -m pip install -q torch==2.13.0" in installs
    assert first[-1] == "python train/ppo.py --minutes 1"
    assert run_script(tree, log, "train.sh") == ["python train/ppo.py"]  # nothing again
    # the tests add the rest on top, once; then neither script installs
    everything = "python -m pip install -q -e .[bench,dev,dist,eval,train]"
    tests = [c for c in run_script(tree, log, "test.sh", "--quick") if "pip install -q -e" in c]
    assert tests == [everything]
    assert not [c for c in run_script(tree, log, "test.sh", "--quick") if "pip" in c]
    assert run_script(tree, log, "train.sh") == ["python train/ppo.py"]
    # a changed input (pyproject.toml) reinstalls once, keeping every extra installed
    (tree / "pyproject.toml").write_text((tree / "pyproject.toml").read_text() + "\n# changed\n")
    assert [c for c in run_script(tree, log, "train.sh") if "pip install -q -e" in c] == [
        everything
    ]
    assert run_script(tree, log, "train.sh") == ["python train/ppo.py"]
    assert run_script(tree, log, "setup.sh", EXTRAS="dev") == []  # installed already
    again = run_script(tree, log, "setup.sh", EXTRAS="web")
    assert again[-1] == "python -m pip install -q -e .[bench,dev,dist,eval,train,web]"
    assert run_script(tree, log, "setup.sh", EXTRAS="web") == []
