"""Expert iteration, one step: distil a search agent's decisions into the policy it searches with.

``python train/distill.py --policy ppo-classic --players 4 --decisions 200000 --out runs/distill``

* **Collect (DAgger's positions).** The student plays one seat of ``--batch`` games against
  ``--opponent`` (the seat moves round the table each match), on its own moves, so the
  positions are those it reaches. The teacher labels each of its decisions with a choice:
  by default ``search`` rolling out with the student itself (a policy-improvement step over
  sampled deals); with ``--targets values``, every legal action's mean outcome gain over
  the search's default choice (its rollout policy's) in the same sampled deals, and the
  standard error (``RolloutAgent.action_values``).
* **Fit.** From the student's own weights, the actor minimises the cross-entropy of the
  labels under the masked distribution. Where the search found nothing better the labels
  agree with the student and anchor the rest of its play. With ``--temperature`` the
  target is the student's own distribution tilted by ``exp(gain / temperature)`` (the
  KL-regularised policy improvement by the search's estimates), so every position pulls by
  as much as its gains say rather than by one noisy choice. ``--hidden`` widens the student
  first, keeping its play (new units start silent).

The result is a policy file of the student's sizes (or ``--hidden``'s) and player counts,
which ``agents.load`` plays without search; a student's critic stays with it where the
widths are its own (a search can value rollouts with it, ``outcome=value``: the next step
of the iteration). The labelled positions are kept beside it (``positions.npz``), so a fit
can be repeated without the search.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sto_odno_env.bots.checkpoint import (
    CheckpointError,
    build_network,
    policy_record,
    read,
    with_value,
    write_atomic,
)
from sto_odno_env.bots.names import AgentError, policy_names, policy_path
from sto_odno_env.bots.registry import load as load_agent
from sto_odno_env.game import engine
from sto_odno_env.game.rules import Rules, RulesError, load_rules
from sto_odno_env.tools import cli
from sto_odno_env.tools.errors import StoOdnoError
from sto_odno_env.views.observation import obs_size, observe
from train.ppo_parts.masked import log_probs, make_networks, masked_logits, widen_into, widens

POSITION_KEYS = ("obs", "masks", "labels", "own")  # what a fit needs of a positions file
OUTPUTS = ("policy.pt", "positions.npz", "summary.json")  # what --out receives
PROG = "python train/distill.py"
VALUE_KEYS = ("gain", "error")  # what a fit to the teacher's action values needs besides


def collect(
    student: Any,
    teacher: Any,
    opponent: Any,
    rules: Rules,
    players: int,
    batch: int,
    decisions: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    values: bool = False,
) -> dict[str, np.ndarray]:
    """At least ``decisions`` of the student's positions (those with a choice) from games of
    the student in one seat against ``opponent`` in the others, each labelled by ``teacher``:
    ``obs``, ``masks``, ``labels`` (the teacher's action), ``own`` (the student's) and
    ``seat`` (the student's seat). With ``values`` (a search teacher: its
    ``action_values``) also ``gain`` and ``error``, each legal action's mean outcome gain
    over the teacher's baseline and its standard error.
    ``progress`` gets the labelled positions of each engine step."""
    keys = (*POSITION_KEYS, "seat", *(VALUE_KEYS if values else ()))
    parts: dict[str, list[np.ndarray]] = {key: [] for key in keys}
    state = engine.init(rules, players, batch, seed=seed)
    student_seat = np.arange(batch) % players
    labelled = 0
    while labelled < decisions:
        seats = state.current_player.astype(np.intp)
        obs = observe(state, seats)
        legal = engine.legal_mask(state)
        actions = np.zeros(batch, dtype=np.int64)
        mine = seats == student_seat
        theirs = np.flatnonzero(~mine)
        if theirs.size:
            actions[theirs] = opponent.act(obs[theirs], legal[theirs])
        rows = np.flatnonzero(mine)
        if rows.size:
            actions[rows] = student.act(obs[rows], legal[rows])
            choice = rows[(legal[rows] != 0).sum(axis=1) > 1]
            if choice.size:
                parts["obs"].append(obs[choice])
                parts["masks"].append(legal[choice] != 0)
                if values:
                    label, _, gain, error = teacher.action_values(obs[choice], legal[choice])
                    parts["gain"].append(gain.astype(np.float32))
                    parts["error"].append(error.astype(np.float32))
                else:
                    label = teacher.act(obs[choice], legal[choice])
                parts["labels"].append(np.asarray(label))
                parts["own"].append(actions[choice].copy())
                parts["seat"].append(seats[choice].astype(np.int8))
                labelled += choice.size
                if progress is not None:
                    progress(choice.size)
        state, _, done = engine.step(state, actions, auto_reset=True)
        student_seat[done] = (student_seat[done] + 1) % players
    return {key: np.concatenate(value) for key, value in parts.items()}


def fit(
    network: torch.nn.Module,
    positions: dict[str, np.ndarray],
    epochs: int,
    minibatch: int,
    learning_rate: float,
    seed: int,
    temperature: float | None = None,
) -> dict[str, float]:
    """Fit ``network`` (a policy's actor) to the teacher by cross-entropy; returns the
    cross-entropy and the agreement with the target's best action before and after.

    The target is the teacher's label, or with ``temperature`` (positions with ``gain``)
    the network's own masked distribution tilted by the teacher's action values,
    ``π(a) · exp(gain(a) / temperature)`` renormalised: the KL-regularised improvement of
    the policy by the search's estimates, which keeps the policy where the search found
    nothing and moves it by as much as the estimated gains say."""
    obs = torch.as_tensor(positions["obs"], dtype=torch.float32)
    masks = torch.as_tensor(positions["masks"])
    if temperature is None:
        target = torch.nn.functional.one_hot(
            torch.as_tensor(positions["labels"], dtype=torch.int64), masks.shape[1]
        ).float()
    else:
        if "gain" not in positions:
            raise DistillError(
                "a fit with a temperature needs positions labelled with action values "
                "(train/distill.py --targets values)"
            )
        with torch.no_grad():
            prior = log_probs(network(obs), masks)
        gain = torch.as_tensor(positions["gain"], dtype=torch.float32)
        target = torch.softmax(masked_logits(prior + gain / temperature, masks), dim=1)
    best = target.argmax(1)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate)

    def loss_of(rows: torch.Tensor | slice) -> tuple[torch.Tensor, torch.Tensor]:
        logp = log_probs(network(obs[rows]), masks[rows])
        return -(target[rows] * logp).sum(1).mean(), logp

    def measure() -> tuple[float, float]:
        with torch.no_grad():
            cross_entropy, logp = loss_of(slice(None))
            return float(cross_entropy), float((logp.argmax(1) == best).float().mean())

    before = measure()
    for _ in range(epochs):
        order = torch.randperm(best.shape[0], generator=generator)
        for start in range(0, best.shape[0], minibatch):
            loss, _ = loss_of(order[start : start + minibatch])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
    after = measure()
    return {
        "cross_entropy_before": before[0],
        "agreement_before": before[1],
        "cross_entropy": after[0],
        "agreement": after[1],
    }


class DistillError(StoOdnoError):
    """A setting or a file that the command cannot use, with what is allowed."""


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog=PROG, description=__doc__, formatter_class=cli.HelpFormatter)
    parser.add_argument(
        "--policy",
        required=True,
        help=f"the student: {', '.join(policy_names())} or a .pt policy file",
    )
    parser.add_argument(
        "--teacher", default="search", help="the labelling agent (search: rolls out the student)"
    )
    parser.add_argument(
        "--targets", choices=("choice", "values"), default="choice",
        help="what the teacher labels: its single choice, or (a search teacher) every legal "
        "action's gain over its baseline, fitted as a soft target at --temperature",
    )  # fmt: skip
    parser.add_argument(
        "--temperature", type=cli.positive_float,
        help="fit the soft target, the policy tilted by exp(gain / TEMPERATURE), to positions "
        "labelled with --targets values (without it: fit the labels)",
    )  # fmt: skip
    parser.add_argument("--opponent", default="expert", help="the other seats")
    parser.add_argument("--rules", default="classic", help="preset name or YAML file")
    parser.add_argument("--players", default="4", help="comma-separated player counts")
    parser.add_argument(
        "--claim", help="comma-separated player counts the distilled file claims (default: "
        "the student's; a policy distilled at one table can be shipped for that table only)",
    )  # fmt: skip
    parser.add_argument(
        "--decisions", type=cli.positive_int, default=100_000, help="labelled per count"
    )
    parser.add_argument("--batch", type=cli.positive_int, default=256, help="games side by side")
    parser.add_argument(
        "--hidden", help="widen the student to these widths first, keeping its play "
        "(comma-separated, one per hidden layer; without it: the student's own)",
    )  # fmt: skip
    parser.add_argument("--epochs", type=cli.positive_int, default=4)
    parser.add_argument("--minibatch", type=cli.positive_int, default=1024)
    parser.add_argument("--learning-rate", type=cli.positive_float, default=1e-4)
    parser.add_argument("--seed", type=cli.natural_int, default=0)
    parser.add_argument(
        "--threads", type=cli.positive_int, default=1,
        help="torch CPU threads (1, as the trainers: runs side by side share the cores best)",
    )  # fmt: skip
    parser.add_argument("--out", required=True, help="directory for policy.pt and its record")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace another distillation's files in --out"
    )
    parser.add_argument(
        "--positions",
        help="comma-separated positions.npz files to fit to instead of collecting new ones",
    )
    args = parser.parse_args(argv)
    written: list[Path] = []  # the files this command has finished, for a stop's line
    try:
        _check_out(Path(args.out), args.overwrite)
        with cli.stopping():
            return _run(args, written)
    except (CheckpointError, DistillError, AgentError, RulesError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        if not written:
            return cli.stopped(stop, "nothing written", PROG)
        kept = written[0]
        return cli.stopped(
            stop, f"partial result: {kept} is kept (the labelled positions; fit them with "
            f"--positions {kept}); policy.pt not written", PROG,
        )  # fmt: skip


def _check_out(out: Path, overwrite: bool) -> None:
    """``--out`` must be a folder that can be written and holds no other distillation
    (unless ``overwrite``)."""
    problem = cli.output_problem(out, directory=True)
    if problem:
        raise DistillError(f"--out: {problem}")
    held = [name for name in OUTPUTS if (out / name).exists()]
    if held and not overwrite:
        raise DistillError(
            f"--out {str(out)!r} holds another distillation ({', '.join(held)}); give "
            "another --out, or add --overwrite to replace its files"
        )


def _counts(text: str, rules: Rules, option: str = "--players") -> list[int]:
    """The player counts of ``option``, each allowed by ``rules``."""
    counts = []
    for item in text.split(","):
        if not item.strip().isdigit():
            raise DistillError(f"{option}: {item!r} is not a player count; allowed: "
                               "comma-separated integers, e.g. 3,4")  # fmt: skip
        rules.check_players(int(item))
        counts.append(int(item))
    return counts


def student_file(name: str, counts: list[int]) -> Path:
    """The policy file ``--policy`` names at the run's counts (one resolver of names:
    :mod:`sto_odno_env.bots.names`); a rule set's policy that is another file at some of
    them is refused, since the student is one network."""
    files = {players: policy_path(name, players) for players in counts}
    if len(set(files.values())) > 1:
        each = "; ".join(f"{players}: {path.stem}" for players, path in files.items())
        raise DistillError(f"--policy {name!r} is a different file at these counts ({each}); "
                           "allowed: one file's name, or counts it plays by one file")  # fmt: skip
    return files[counts[0]]


def _student_network(record: dict[str, Any], widths: str | None) -> tuple[torch.nn.Module, list]:
    """The student's actor, widened to ``widths`` (comma-separated, the same depth, no
    narrower) keeping its play exactly, and its hidden widths."""
    hidden = list(record["hidden"])
    if widths is None:
        network = build_network(record["obs_size"], hidden, record["num_actions"])
        network.load_state_dict(record["state_dict"])
        return network, hidden
    wider = [int(item) for item in widths.split(",") if item.strip().isdigit()]
    if len(wider) != len(widths.split(",")) or not widens(hidden, wider):
        raise DistillError(f"--hidden {widths!r}: the student's widths are {hidden}; allowed: "
                           f"{len(hidden)} comma-separated widths, none narrower")  # fmt: skip
    network, _ = make_networks(record["obs_size"], wider, record["num_actions"])
    widen_into(network, record["state_dict"])
    return network, wider


def _read_positions(files: str) -> dict[str, np.ndarray]:
    """The positions of one or more ``positions.npz`` files, joined."""
    allowed = "allowed: positions.npz files written by train/distill.py"
    parts = []
    for file in files.split(","):
        try:
            stored = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as error:
            raise DistillError(f"--positions: cannot read {file!r} ({error}); {allowed}") from None
        if not isinstance(stored, np.lib.npyio.NpzFile):
            raise DistillError(f"--positions: {file!r} is not an .npz archive; {allowed}")
        with stored:
            missing = [key for key in POSITION_KEYS if key not in stored.files]
            if missing:
                raise DistillError(f"--positions: {file!r} has no {', '.join(missing)}; {allowed}")
            parts.append({key: stored[key] for key in stored.files})
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _run(args: argparse.Namespace, written: list[Path]) -> int:
    """Label (or read) the positions, fit, write; ``written`` gets each finished file."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rules = load_rules(args.rules)
    counts = _counts(args.players, rules)
    claimed = _counts(args.claim, rules, "--claim") if args.claim else None
    path = student_file(args.policy, counts)
    record = read(path)
    if record["obs_size"] != obs_size(rules):
        raise CheckpointError(f"{path} has {record['obs_size']} inputs; {args.rules} has "
                              f"{obs_size(rules)}")  # fmt: skip
    network, hidden = _student_network(record, args.hidden)  # refused before any labelling
    if args.temperature is not None and not args.positions and args.targets != "values":
        raise DistillError("--temperature fits action values: collect them with --targets "
                           "values, or fit stored ones with --positions")  # fmt: skip
    teacher_spec = args.teacher
    if teacher_spec == "search":
        teacher_spec = f"search:policy={args.policy}"
    with cli.output_directory(args.out) as out:  # removed again if left empty by a stop
        return _label_and_fit(args, rules, counts, claimed, path, record, network, hidden,
                              teacher_spec, out, written)  # fmt: skip


def _label_and_fit(
    args: argparse.Namespace, rules: Rules, counts: list[int], claimed: list[int] | None,
    path: Path, record: dict[str, Any], network: torch.nn.Module, hidden: list[int],
    teacher_spec: str, out: Path, written: list[Path],
) -> int:  # fmt: skip
    if args.positions:
        positions = _read_positions(args.positions)
        if positions["obs"].shape[1] != record["obs_size"]:
            raise DistillError(f"--positions hold observations of {positions['obs'].shape[1]}; "
                               f"{path} takes {record['obs_size']}")  # fmt: skip
        # The summary says what the stored positions hold, not the collecting defaults.
        teacher_spec = "the --positions files"
        if "players" in positions:
            counts = sorted(int(count) for count in np.unique(positions["players"]))
    else:
        parts = []
        for index, players in enumerate(counts):
            student = load_agent(args.policy, rules, players)
            teacher = load_agent(teacher_spec, rules, players, seed=args.seed + index)
            opponent = load_agent(args.opponent, rules, players, seed=args.seed + index)
            if args.targets == "values" and not hasattr(teacher, "action_values"):
                raise DistillError(f"--targets values needs a search teacher (rollout or "
                                   f"search); {teacher_spec!r} gives no action values")  # fmt: skip
            print(f"{players} players: labelling {args.decisions} positions with {teacher_spec}",
                  flush=True)  # fmt: skip
            started = time.perf_counter()
            part = collect(student, teacher, opponent, rules, players, args.batch,
                           args.decisions, args.seed + 1_000_003 * index,
                           values=args.targets == "values")  # fmt: skip
            part["players"] = np.full(part["labels"].shape, players, dtype=np.int8)
            moved = float((part["labels"] != part["own"]).mean())
            print(f"{players} players: {part['labels'].size} positions in "
                  f"{time.perf_counter() - started:.0f} s, the teacher differs in {moved:.3f}",
                  flush=True)  # fmt: skip
            parts.append(part)
        positions = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
        with cli.atomic_open(out / "positions.npz", "wb") as handle:
            # numpy's stubs match **arrays against allow_pickle: bool too; no key here is that
            np.savez_compressed(handle, **positions)  # type: ignore[arg-type]
        written.append(out / "positions.npz")
    stats = fit(network, positions, args.epochs, args.minibatch, args.learning_rate, args.seed,
                args.temperature)  # fmt: skip
    claimed = claimed or record["players"]
    policy = policy_record(network, hidden, record["rules"], claimed)
    if "value_state_dict" in record and hidden == list(record["hidden"]):
        # The student's critic stays with it: the fit moves few of its choices, so the
        # critic still values this play, and a search can roll out with it (outcome=value).
        policy = with_value(policy, record["value_state_dict"], record["value_reward"])
    write_atomic(out / "policy.pt", policy)
    summary = {"policy": args.policy, "teacher": teacher_spec, "opponent": args.opponent,
               "players": counts, "positions": int(positions["labels"].size),
               "teacher_differs": float((positions["labels"] != positions["own"]).mean()),
               "temperature": args.temperature, "hidden": hidden, "claims": claimed,
               **stats}  # fmt: skip
    text = json.dumps(summary, indent=1) + "\n"
    with cli.atomic_open(out / "summary.json") as handle:
        handle.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
