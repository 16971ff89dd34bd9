"""Every code block of the README and ``docs/*.md`` runs as written.

* ```` ```python ```` blocks run in a fresh interpreter, from the repository root.
* ```` ```bash ```` blocks whose commands are all ``python -m ...`` or ``python train/...``
  run through bash from the repository root, with this interpreter's directory first on
  ``PATH`` (so ``python`` is the one running the tests and globs expand as in a shell). A
  block that shows a usage line (``[--flag ...]``) is checked by running its module with
  ``--help``.
* A block that trains (``python train/...``) or uses a run's output (``runs/...``) runs in
  order in a scratch directory of its own, so each command finds what the commands before
  it wrote (``--resume runs/rllib/checkpoint`` after the run that wrote it). Where a
  documented command would take minutes, the arguments in :data:`CHEAP` are appended to
  it (a later flag or ``key=value`` wins); every other command runs as written.
* Interactive commands (``sto_odno_env.apps.play``) run with no input (or the input piped to
  them in the block): they show the first screen and leave at the end of the input, exit
  0, so every flag of the example is checked (``tests/test_play.py`` plays whole matches).
* Other bash blocks (setup, pip, the scripts) must be listed in :data:`NOT_RUN` with the
  reason, so a new block cannot go untested silently.
* The ```` ```yaml ```` rule set in ``docs/rules.md`` must be the classic preset.

Examples that take more than a few seconds are marked slow (the whole suite runs them).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sto_odno_env.game.rules import Rules
from tests.helpers import needs

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DOCS.append(REPO / "tests" / "data" / "records" / "README.md")

# Bash commands that are not run here, by their first word(s), and why.
NOT_RUN = {
    "./scripts/": "sets up .venv and runs the suite or training: what CI itself runs",
    "pip install": "installs packages (the test environment has them)",
    "python -m venv": "creates a virtual environment (setup, not an example)",
    "ray start": "starts a Ray cluster's nodes (tests/test_rllib.py simulates a two-node one)",
    "python train/rllib_ppo.py --address": "needs a running Ray cluster (tests/test_rllib.py)",
}
TRAINS = ("python train/",)
# A documented command that takes minutes as written -> what is appended to it here.
CHEAP_PPO = (
    "--minutes 2 --total-steps 2048 num_envs=64 rollout_steps=8 warm_start_decisions=4096 "
    "eval_matches=20 overlap=false"
)
CHEAP = {
    "python train/ppo.py --config lab/policies/ppo-encyclopedia.yaml --out runs/encyclopedia": (
        CHEAP_PPO
    ),
    "python train/distill.py --policy ppo-classic-first --players 4 --decisions 100000 "
    "--out runs/distill": "--decisions 40 --batch 16 --teacher search:samples=2 --epochs 1",
    "python -m agents.evaluate --agents runs/distill/policy.pt --against expert --players 4 "
    "--matches 400": "--matches 8",
    "python train/rllib_ppo.py --env-runners 2 --num-envs 256 --minutes 30 --out runs/rllib": (
        "--total-steps 4096 rollout_steps=8 warm_start=none eval_matches=20"
    ),
}
# Blocks (file name, text in the block) that take longer than a few seconds here.
SLOW = [
    ("README.md", "MaskablePPO"),
    ("README.md", "--matches 10000"),
    ("README.md", "sto_odno_env.record"),
    ("ladder.md", "rollout"),
    ("evaluation.md", ""),  # search matches and a best-response run
    ("environments.md", "check_env"),
    ("training.md", ""),
    ("play.md", "ppo-classic"),  # loads torch
    ("README.md", "ppo-classic"),  # loads torch and plays 400 matches
    ("openspiel.md", "mcts"),  # OpenSpiel's searches: seconds a decision
]

# Text in a block -> the optional module it needs (a base install skips the block).
NEEDS = {
    "rgb_array": "PIL",
    "check_env": "PIL",  # Gymnasium's checker renders every mode
    "table_rgb": "PIL",
    "MaskablePPO": "sb3_contrib",
    "sto_odno_env.envs.sb3": "stable_baselines3",
    "agents.evaluate": "openskill",
    "train/": "torch",
    "starlette": "starlette",  # the web table (the web extra)
    "textarena": "textarena",  # the TextArena env (the text extra)
    "pyspiel": "pyspiel",  # the OpenSpiel game (the openspiel extra)
}

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[tuple[str, str]]:
    """(id, code) of every block in ``language``, in file order."""
    found = []
    for path in DOCS:
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1) == language:
                line = text[: match.start()].count("\n") + 1
                found.append((f"{path.relative_to(REPO)}:{line}", match.group(2)))
    return found


def commands(code: str) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments dropped."""
    joined = code.replace("\\\n", " ")
    result = []
    for line in joined.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            result.append(re.sub(r"\s+", " ", line))
    return result


def marks(block_id: str, code: str) -> list:
    name = Path(block_id.split(":")[0]).name
    slow = any(name == file and text in code for file, text in SLOW)
    needed = sorted({module for text, module in NEEDS.items() if text in code})
    return ([pytest.mark.slow] if slow else []) + ([needs(*needed)] if needed else [])


def params(language: str) -> list:
    # bash blocks run commands in subprocesses: the whole suite runs them
    command = [pytest.mark.slow] if language == "bash" else []
    return [
        pytest.param(code, id=block_id, marks=[*marks(block_id, code), *command])
        for block_id, code in blocks(language)
    ]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    return env


def run(argv: list[str], timeout: int = 600, cwd: Path = REPO) -> subprocess.CompletedProcess:
    result = subprocess.run(
        argv,
        cwd=cwd,
        env=environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_the_docs_have_blocks_to_run() -> None:
    assert len(blocks("python")) >= 4
    assert len(blocks("bash")) >= 4


@pytest.mark.parametrize("code", params("python"))
def test_python_block_runs(code: str) -> None:
    run([sys.executable, "-c", code])


@pytest.mark.parametrize("code", params("bash"))
def test_bash_block_runs(code: str, tmp_path: Path) -> None:
    runnable = []
    for command in commands(code):
        if any(command.startswith(prefix) for prefix in NOT_RUN):
            continue
        piped = command.rsplit(" | ", 1)[-1]  # `printf ... | python -m ...`: input for it
        assert piped.startswith(("python -m ", *TRAINS)), (
            f"{command!r} is neither a `python -m` or `python train/` command nor listed in NOT_RUN"
        )
        if " [-" in command:
            # a usage line: the module or script must exist and explain itself
            words = command.split()
            target = ["-m", words[2]] if words[1] == "-m" else [str(REPO / words[1])]
            assert "usage:" in run([sys.executable, *target, "--help"]).stdout
        else:
            runnable.append(command)
    if not runnable:
        return
    cwd = REPO
    if any(command.startswith(TRAINS) or "runs/" in command for command in runnable):
        if any("rllib_ppo" in command for command in runnable):
            pytest.importorskip("ray")
        cwd = scratch(tmp_path)
        runnable = [f"{command} {CHEAP.get(command, '')}".strip() for command in runnable]
    run(["bash", "-euo", "pipefail", "-c", "\n".join(runnable)], cwd=cwd)


def scratch(tmp_path: Path) -> Path:
    """A working directory with the repository's scripts, configs, shipped policies'
    configs (sto_odno_env/bots/policies/*.yaml) and docs (a config may warm-start from a
    stage kept there), and no runs/."""
    for name in ("train", "configs", "sto_odno_env", "docs", "lab"):
        (tmp_path / name).symlink_to(REPO / name)
    return tmp_path


def test_the_cheap_commands_are_documented() -> None:
    documented = {command for _, code in blocks("bash") for command in commands(code)}
    assert set(CHEAP) <= documented, set(CHEAP) - documented


def test_the_config_table_of_docs_training_is_the_configs() -> None:
    from train import config
    from train.config_keys import TRAINING_DOC

    text = TRAINING_DOC.read_text(encoding="utf-8")
    assert config.render_doc(text) == text, "run: python -m train.config --write"


@pytest.mark.parametrize("code", params("yaml"))
def test_yaml_rule_sets_are_the_presets(code: str) -> None:
    data = yaml.safe_load(code)
    assert Rules.from_dict(data) == Rules.preset(data["name"])


def test_docs_point_only_inside_the_repository() -> None:
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        assert "RULES.md" not in text, path
        assert "../shared" not in text and "/work/" not in text, path
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            assert (path.parent / target).exists(), f"{path.name}: link to missing {target}"
