"""Ship a trained policy: ``python train/ship.py RUN_DIR NAME [--which best|latest]``.

Copies the run's policy (``best.pt``, the best evaluated, or ``policy.pt``, the latest)
into ``sto_odno_env/bots/policies/NAME.pt`` without the training state (weights and what they were
trained for only), with the run's config as ``NAME.yaml`` and its training summary and
evaluations as ``NAME.json`` beside it. ``agents.load(NAME)`` then plays it. Where the
shipped weights are the checkpoint's (always with ``--which latest``), the critic trained
beside them is shipped too, with the reward mode it estimates (``search:outcome=value``
values its rollouts with it); ``best.pt``'s own critic is not kept, so ``best`` ships the
actor alone unless the best policy is the latest. The run's
output folder, wherever it was, is recorded as ``runs/NAME`` in both, so that a shipped
file names no path of the machine it was trained on and its config reruns in a checkout.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

import torch
import yaml

from sto_odno_env.bots.catalog import POLICY_DIR
from sto_odno_env.bots.checkpoint import CheckpointError, read, with_value, write_atomic


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python train/ship.py", description=__doc__)
    parser.add_argument("run", help="a train/ppo.py output directory")
    parser.add_argument("name", help="the policy's name, e.g. ppo-classic-6p")
    parser.add_argument("--which", choices=("best", "latest"), default="best")
    parser.add_argument("--dest", default=str(POLICY_DIR), help="folder of shipped policies")
    args = parser.parse_args(argv)
    run = Path(args.run)
    source = run / ("best.pt" if args.which == "best" else "policy.pt")
    try:
        policy = read(source)
        checkpoint = read(run / "checkpoint.pt")
    except CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    policy.pop("training", None)
    trained = json.loads(checkpoint["training"]["config"])
    if _same_weights(policy["state_dict"], checkpoint["state_dict"]):
        policy = with_value(policy, checkpoint["training"]["critic"], trained["reward"])
    dest = Path(args.dest)
    dest.mkdir(parents=True, exist_ok=True)
    write_atomic(dest / f"{args.name}.pt", policy)
    config = _relocated(trained, run, args.name)
    (dest / f"{args.name}.yaml").write_text(
        f"# train/ppo.py config of {args.name} (from {run.name})\n"
        + yaml.safe_dump(config, sort_keys=False)
    )
    with (run / "evaluations.csv").open() as handle:
        evaluations = list(csv.DictReader(handle))
    summary = _relocated(json.loads((run / "summary.json").read_text()), run, args.name)
    record = {"name": args.name, "source": source.name, "summary": summary,
              "evaluations": evaluations}  # fmt: skip
    (dest / f"{args.name}.json").write_text(json.dumps(record, indent=1) + "\n")
    critic = " with its critic" if "value_state_dict" in policy else ""
    print(f"shipped {source}{critic} as {dest / (args.name + '.pt')}")
    return 0


def _same_weights(first: dict, second: dict) -> bool:
    return first.keys() == second.keys() and all(
        torch.equal(first[key], second[key]) for key in first
    )


def _relocated(value: Any, run: Path, name: str) -> Any:
    """``value`` with every path in the run's folder (absolute or relative to here)
    rewritten to the same path under ``runs/NAME``, the folder the shipped config trains
    into."""
    if isinstance(value, dict):
        return {key: _relocated(item, run, name) for key, item in value.items()}
    if isinstance(value, list):
        return [_relocated(item, run, name) for item in value]
    if isinstance(value, str) and "/" in value:
        try:
            inside = Path(value).resolve().relative_to(run.resolve())
        except (ValueError, OSError):
            return value
        return Path("runs", name, inside).as_posix()
    return value


if __name__ == "__main__":
    sys.exit(main())
