"""The commands the kit prints run as printed in the user's shell (README, "Set up"):
``scripts/train.sh`` runs ``.venv``'s python without activating it in the user's shell,
so a run's ``continue with ... --resume`` and an install hint name the interpreter as
that shell runs it (``sto_odno_env.tools.cli.python_command``): ``python`` where the
shell's ``python`` is this one, else its path (``.venv/bin/python``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from train.run.outputs import Outputs
from train.run.summary import resume_command

ROOT = Path(__file__).resolve().parents[1]
HERE = os.path.dirname(os.path.abspath(sys.executable))
SYSTEM_PATH = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if p != HERE)


def printed(path: str) -> str:
    """``python_command()`` as a process run with ``PATH=path`` from the repository prints it."""
    code = "from sto_odno_env.tools.cli import python_command; print(python_command())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def runs_in_shell(command: str, path: str) -> bool:
    """Whether a shell with ``PATH=path`` in the repository runs ``command`` and imports
    the kit with it."""
    done = subprocess.run(
        ["bash", "-c", f"{command} -c 'import sto_odno_env'"],
        cwd=ROOT,
        env={**os.environ, "PATH": path},
        capture_output=True,
    )
    return done.returncode == 0


@pytest.mark.parametrize(
    "shell",
    ["no environment active", "this environment active"],
)
def test_the_printed_interpreter_runs_in_the_shell_it_was_printed_for(shell):
    path = SYSTEM_PATH if shell == "no environment active" else f"{HERE}{os.pathsep}{SYSTEM_PATH}"
    command = printed(path)
    assert runs_in_shell(command, path), (shell, command)
    if shell == "this environment active":
        assert command == "python"
    else:  # a path: relative inside the repository, as README's .venv/bin/python
        assert command != "python" and Path(ROOT, command).resolve().samefile(sys.executable)


def test_the_resume_command_names_the_interpreter_the_shell_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    monkeypatch.chdir(ROOT)
    outputs = Outputs(tmp_path, None, False)
    outputs.saved_files = [tmp_path / "checkpoint.pt"]
    command = resume_command("python train/ppo.py", outputs, None)
    interpreter, _, rest = command.partition(" train/ppo.py ")
    assert rest == f"--resume {tmp_path / 'checkpoint.pt'}"
    assert interpreter != "python" and runs_in_shell(interpreter, SYSTEM_PATH)


def test_train_sh_runs_the_environments_python_without_activating_it():
    # What makes the printed commands name .venv/bin/python: an activated environment in
    # the script would put its python first on PATH, and the run would print "python".
    lines = (ROOT / "scripts" / "train.sh").read_text().splitlines()
    code = [line for line in lines if line and not line.startswith("#")]
    assert not any("activate" in line for line in code), code
    assert code[-1].startswith("exec .venv/bin/python train/ppo.py")
