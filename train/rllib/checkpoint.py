"""The ``checkpoint/`` directory of ``train/rllib_ppo.py``: RLlib's own checkpoint of the
algorithm with the driver's state beside it (:data:`DRIVER_STATE`: the config, the league,
the counters and the trainer flags), written to ``checkpoint.new/`` and renamed into place
(:func:`write_checkpoint`), read back for ``--resume`` (:func:`read_checkpoint`), and
converted to a kit policy file (:func:`export_policy`, the ``--export`` command).

Ray and torch are imported on first use, not by importing this module.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sto_odno_env.bots.checkpoint import CheckpointError, policy_record, write_atomic
from sto_odno_env.game.rules import load_rules
from train import deferred_import
from train.rllib.module import module_class
from train.run.command_line import user_errors
from train.run.protocol import Counters, Record, Saved

if TYPE_CHECKING:
    import torch
    from ray.rllib.algorithms.algorithm import Algorithm
else:  # loaded on first use, so that a bad command line fails before torch's seconds of loading
    torch = deferred_import("torch")

DRIVER_STATE = "sto_odno.pt"
MODULE_DIR = Path("learner_group", "learner", "rl_module", "default_policy")


def write_checkpoint(algo: Algorithm, driver: Record, out: Path) -> Path:
    """RLlib's checkpoint of ``algo`` with ``driver`` (the driver's state) beside it, written
    to ``out/checkpoint.new/`` and renamed to ``out/checkpoint/``, which it returns."""
    final, fresh, old = out / "checkpoint", out / "checkpoint.new", out / "checkpoint.old"
    shutil.rmtree(fresh, ignore_errors=True)
    algo.save_to_path(str(fresh.resolve()))
    write_atomic(fresh / DRIVER_STATE, driver)
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(fresh, final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def read_checkpoint(path: Path) -> Saved:
    """A ``checkpoint/`` directory written here, for ``--resume``."""
    driver = path / DRIVER_STATE
    if not driver.is_file():
        raise CheckpointError(
            f"checkpoint {str(path)!r} has no {DRIVER_STATE}; --resume needs the "
            "checkpoint/ directory written by train/rllib_ppo.py"
        )
    try:
        data = torch.load(driver, map_location="cpu", weights_only=True)
        counters = Counters.from_dict(data["counters"], data.get("evaluations"))
        config = json.loads(data["config"])
    except Exception as error:  # torch's own message would advise weights_only=False
        raise CheckpointError(
            f"checkpoint {str(path)!r} is not a checkpoint of this kit: its {DRIVER_STATE} is "
            f"unreadable or foreign ({type(error).__name__}); --resume needs the checkpoint/ "
            "directory written by train/rllib_ppo.py"
        ) from None
    return Saved(path, config, data.get("flags", {}), counters, data)


def export_policy(checkpoint: str | Path, path: str | Path) -> None:
    """Convert an RLlib checkpoint written by this trainer to a kit policy file."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    checkpoint = Path(checkpoint).resolve()
    driver = checkpoint / DRIVER_STATE
    module_dir = checkpoint / MODULE_DIR
    if not driver.is_file() or not module_dir.is_dir():
        raise CheckpointError(
            f"checkpoint {str(checkpoint)!r} is not a train/rllib_ppo.py checkpoint "
            f"(no {DRIVER_STATE} or {MODULE_DIR.as_posix()})"
        )
    config = read_checkpoint(checkpoint).config  # a foreign driver state: one line, as --resume
    module_class()
    module = RLModule.from_checkpoint(str(module_dir))
    actor = getattr(module, "pi", None)  # MaskedMLP's actor; RLModule's type has no pi
    rules_spec, hidden, players = config["rules"], config["hidden"], config["players"]
    if actor is None or not isinstance(rules_spec, str | dict) or not isinstance(players, int):
        raise CheckpointError(f"checkpoint {str(checkpoint)!r} holds no kit policy to export")
    if not isinstance(hidden, list) or not all(isinstance(width, int) for width in hidden):
        raise CheckpointError(f"checkpoint {str(checkpoint)!r} has hidden {hidden!r}")
    rules = load_rules(rules_spec)
    write_atomic(path, policy_record(actor, hidden, rules.to_dict(), [players]))


def export_command(argv: list[str], prog: str) -> int:
    """``--export CHECKPOINT_DIR POLICY``: the conversion as a command (exit 2 on bad input)."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--export", nargs=2, required=True, metavar=("CHECKPOINT_DIR", "POLICY"))
    args = parser.parse_args(argv)
    try:
        export_policy(*args.export)
    except user_errors() as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.export[1]}")
    return 0
