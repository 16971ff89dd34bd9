"""Masked self-play PPO for 101: ``python train/ppo.py`` (defaults: configs/train/ppo.yaml).

    python train/ppo.py [--config FILE] [--rules R] [--players P] [--total-steps N]
        [--minutes M] [--num-envs B] [--seed S] [--device cpu|cuda|auto] [--out DIR]
        [--resume CHECKPOINT] [key=value ...]

One file in the manner of CleanRL's ``ppo.py``: B games on the batched engine
(:class:`sto_odno_env.learner.LearnerGames`), one learner seat each, the other seats drawn
from a league (:mod:`train.league`) at every match start. Each update collects
``rollout_steps`` learner decisions per game, computes GAE advantages and runs ``epochs``
passes of clipped PPO over minibatches. Masks hold everywhere: actions are sampled from
the legal ones only, the update's log-probabilities and entropy are those of the masked
distribution, and evaluation plays the most likely legal action.

Written to ``--out``: ``checkpoint.pt`` (the whole run, for ``--resume``; also a policy
file), ``policy.pt`` (the latest policy), ``best.pt`` (the best evaluated policy),
``evaluations.csv``, ``summary.json`` and TensorBoard logs in ``tb/``. Checkpoints are
written every ``checkpoint_every_minutes``, at the end and on Ctrl-C; ``--resume``
continues exactly where the checkpoint was taken (weights, optimiser, league, counters,
games in progress and random state).
"""

from __future__ import annotations

import argparse
import csv
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import torch

from agents.checkpoint import (
    CheckpointError,
    TorchPolicyAgent,
    check_fits,
    policy_record,
    read,
    write_atomic,
)
from agents.registry import AgentError
from agents.registry import load as load_agent
from sto_odno_env.learner import LearnerGames
from sto_odno_env.observation import obs_size
from sto_odno_env.rules import Rules, RulesError, load_rules
from train.config import ConfigError, flag_values, load_config
from train.evaluation import Evaluation, evaluate
from train.imitation import warm_start
from train.league import League
from train.masked import entropy, log_probs, make_networks, sample
from train.selfplay import SelfPlayGames

FLAGS = {  # flag -> (config key, type, help)
    "--rules": ("rules", str, "rules preset or YAML file"),
    "--players": ("players", int, "players at each table, 2..6"),
    "--total-steps": ("total_steps", int, "stop after this many learner decisions"),
    "--minutes": ("minutes", float, "stop after this many minutes of wall clock (0: none)"),
    "--num-envs": ("num_envs", int, "games stepped at once"),
    "--seed": ("seed", int, "seed of the games, the league and the network"),
    "--device": ("device", str, "cpu, cuda or auto"),
    "--out": ("out", str, "directory for checkpoints, logs and results"),
}


class Trainer:
    """One PPO run: the networks, the league, the games and the counters."""

    def __init__(self, config: dict[str, Any], rules: Rules):
        self.config = config
        self.rules = rules
        self.players = config["players"]
        self.device = _device(config["device"])
        if config["threads"]:
            torch.set_num_threads(config["threads"])
        seed = config["seed"]
        torch.manual_seed(seed)
        self.generator = torch.Generator(device=self.device).manual_seed(seed)
        self.obs_size, self.num_actions = obs_size(rules), rules.num_actions
        self.actor, self.critic = make_networks(self.obs_size, config["hidden"], self.num_actions)
        self.actor.to(self.device)
        self.critic.to(self.device)
        self.optimizer = torch.optim.Adam(
            [*self.actor.parameters(), *self.critic.parameters()],
            lr=config["learning_rate"],
            eps=1e-5,
        )
        self.league = League(
            config["league"],
            rules,
            self.players,
            config["num_envs"],
            self.actor,
            seed,
            self.device,
        )
        self.games = LearnerGames(
            rules,
            self.players,
            config["num_envs"],
            opponents=self.league,
            reward=config["reward"],
            illegal_action="raise",
        )
        self.observations = self.games.reset(seed=seed)
        self.self_play = (
            SelfPlayGames(rules, self.players, config["self_play_games"], seed, config["reward"])
            if config["self_play_games"]
            else None
        )
        self.update = 0
        self.global_step = 0
        self.episodes = 0
        self.elapsed = 0.0  # training seconds over every session of the run
        self.best_rate = -1.0
        self.warm_started = config["warm_start"] == "none"
        self.evaluations: list[dict[str, Any]] = []
        self.member_score = np.zeros(len(self.league.members))
        self.member_games = np.zeros(len(self.league.members))

    # --- collecting and learning ----------------------------------------------------------

    @property
    def decisions_per_update(self) -> int:
        """Decisions one update trains on: the learner's in the league games, and every
        seat's in the self-play games."""
        games = self.config["num_envs"] + self.config["self_play_games"]
        return self.config["rollout_steps"] * games

    def collect(self) -> dict[str, torch.Tensor]:
        """``rollout_steps`` learner decisions in every game, with the data PPO needs."""
        steps, batch = self.config["rollout_steps"], self.config["num_envs"]
        shape = (steps, batch)
        buffer = {
            "obs": torch.zeros((*shape, self.obs_size)),
            "masks": torch.zeros((*shape, self.num_actions), dtype=torch.bool),
            "actions": torch.zeros(shape, dtype=torch.long),
            "logp": torch.zeros(shape),
            "values": torch.zeros(shape),
            "rewards": torch.zeros(shape),
            "starts": torch.zeros(shape),  # 1 where the observation opens an episode
        }
        starts = np.zeros(batch, dtype=np.float32)
        for step in range(steps):
            observations = torch.from_numpy(self.observations)
            masks = torch.from_numpy(self.games.masks()) != 0
            with torch.no_grad():
                obs_device = observations.to(self.device)
                legal = masks.to(self.device)
                actions, logp = sample(self.actor(obs_device), legal, self.generator)
                values = self.critic(obs_device).squeeze(-1)
            opponents = self.league.assign.copy()
            result = self.games.step(actions.cpu().numpy())
            ended = result["terminated"] | result["truncated"]
            buffer["obs"][step] = observations
            buffer["masks"][step] = masks
            buffer["actions"][step] = actions.cpu()
            buffer["logp"][step] = logp.cpu()
            buffer["values"][step] = values.cpu()
            buffer["rewards"][step] = torch.from_numpy(result["reward"])
            buffer["starts"][step] = torch.from_numpy(starts)
            starts = ended.astype(np.float32)
            self._count_results(opponents, ended, result["reward"])
            self.observations = result["observation"]
        self.next_starts = torch.from_numpy(starts)
        if self.self_play is not None:
            config = self.config
            buffer["self_play"] = self.self_play.collect(
                self.actor, self.critic, steps, self.generator, self.device,
                config["gamma"], config["gae_lambda"],
            )  # fmt: skip
        self.global_step += self.decisions_per_update
        return buffer

    def _count_results(self, opponents: np.ndarray, ended: np.ndarray, reward: np.ndarray):
        """Credit each ended match's score, (reward + 1) / 2, to the members it was against."""
        games = np.flatnonzero(ended)
        if not games.size:
            return
        self.episodes += games.size
        score = (reward[games] + 1.0) / 2.0
        for column in range(opponents.shape[1]):
            members = opponents[games, column]
            np.add.at(self.member_score, members, score)
            np.add.at(self.member_games, members, 1)

    def advantages(self, buffer: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """GAE(λ) advantages and returns; an episode's end cuts the bootstrap."""
        config = self.config
        with torch.no_grad():
            next_obs = torch.from_numpy(self.observations).to(self.device)
            next_value = self.critic(next_obs).squeeze(-1).cpu()
        values, rewards, starts = buffer["values"], buffer["rewards"], buffer["starts"]
        advantages = torch.zeros_like(rewards)
        running = torch.zeros_like(next_value)
        steps = rewards.shape[0]
        for step in reversed(range(steps)):
            if step == steps - 1:
                following, going_on = next_value, 1.0 - self.next_starts
            else:
                following, going_on = values[step + 1], 1.0 - starts[step + 1]
            delta = rewards[step] + config["gamma"] * following * going_on - values[step]
            running = delta + config["gamma"] * config["gae_lambda"] * going_on * running
            advantages[step] = running
        return advantages, advantages + values

    def learn(self, buffer: dict[str, torch.Tensor]) -> dict[str, float]:
        """The PPO update over the collected data; returns its statistics."""
        config = self.config
        buffer = dict(buffer)
        self_play = buffer.pop("self_play", None)
        advantages, returns = self.advantages(buffer)
        flat = {key: value.reshape(-1, *value.shape[2:]) for key, value in buffer.items()}
        flat["advantages"] = advantages.reshape(-1)
        flat["returns"] = returns.reshape(-1)
        if self_play is not None:  # every seat's decisions of the self-play games
            flat = {key: torch.cat([flat[key], self_play[key]]) for key in self_play}
        flat = {key: value.to(self.device) for key, value in flat.items()}
        size = flat["actions"].shape[0]
        minibatch = min(config["minibatch_size"], size)
        if config["anneal_lr"]:
            fraction = 1.0 - self.global_step / config["total_steps"]
            self.optimizer.param_groups[0]["lr"] = config["learning_rate"] * max(fraction, 0.0)
        stats: dict[str, list[float]] = {
            k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")
        }
        for _ in range(config["epochs"]):
            order = torch.randperm(size, generator=self.generator, device=self.device)
            for start in range(0, size - minibatch + 1, minibatch):
                rows = order[start : start + minibatch]
                masks = flat["masks"][rows]
                logp_all = log_probs(self.actor(flat["obs"][rows]), masks)
                logp = logp_all.gather(1, flat["actions"][rows, None]).squeeze(1)
                log_ratio = logp - flat["logp"][rows]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                    clipped = (ratio - 1.0).abs() > config["clip_coef"]
                    stats["clipfrac"].append(float(clipped.float().mean()))
                advantage = flat["advantages"][rows]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                low, high = 1 - config["clip_coef"], 1 + config["clip_coef"]
                policy_loss = torch.max(
                    -advantage * ratio, -advantage * ratio.clamp(low, high)
                ).mean()
                value = self.critic(flat["obs"][rows]).squeeze(-1)
                value_loss = 0.5 * ((value - flat["returns"][rows]) ** 2).mean()
                spread = entropy(logp_all, masks).mean()
                loss = policy_loss - config["ent_coef"] * spread + config["vf_coef"] * value_loss
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(
                    [*self.actor.parameters(), *self.critic.parameters()],
                    config["max_grad_norm"],
                )
                self.optimizer.step()
                stats["policy_loss"].append(float(policy_loss.detach()))
                stats["value_loss"].append(float(value_loss.detach()))
                stats["entropy"].append(float(spread.detach()))
            if config["target_kl"] and np.mean(stats["approx_kl"]) > config["target_kl"]:
                break
        summary = {key: float(np.mean(values)) for key, values in stats.items()}
        variance = float(flat["returns"].var())
        residual = float((flat["returns"] - flat["values"]).var())
        summary["explained_variance"] = float("nan") if variance == 0 else 1 - residual / variance
        summary["learning_rate"] = self.optimizer.param_groups[0]["lr"]
        self.update += 1
        if self.update % config["league"]["snapshot_every"] == 0:
            self.league.add_snapshot(self.update)
        return summary

    def warm_start(self) -> dict[str, float]:
        """Imitate the ``warm_start`` bot before the first update (:mod:`train.imitation`)."""
        started = time.perf_counter()
        stats = warm_start(
            self.config, self.rules, self.players, self.actor, self.critic, self.generator,
            self.device,
        )  # fmt: skip
        self.elapsed += time.perf_counter() - started
        self.warm_started = True
        return stats

    # --- evaluation -----------------------------------------------------------------------

    def policy_agent(self) -> TorchPolicyAgent:
        """The current policy as a greedy agent (a CPU copy, independent of training)."""
        actor, _ = make_networks(self.obs_size, self.config["hidden"], self.num_actions)
        actor.load_state_dict({k: v.cpu() for k, v in self.actor.state_dict().items()})
        return TorchPolicyAgent(actor)

    def evaluate(self) -> Evaluation:
        """Duplicate deals against ``eval_opponent`` (the same deals every time)."""
        config = self.config
        name = config["eval_opponent"]
        opponent = load_agent(name, self.rules, self.players, seed=config["seed"])
        result = evaluate(
            self.policy_agent(),
            opponent,
            name,
            self.rules,
            self.players,
            config["eval_matches"],
            seed=config["seed"] + 100_003,
        )
        self.evaluations.append(result.row(self.update, self.global_step, self.elapsed / 60))
        return result

    # --- checkpoints ----------------------------------------------------------------------

    def policy_data(self) -> dict[str, Any]:
        """A policy file's entries for the current weights."""
        return policy_record(
            self.actor, self.config["hidden"], self.rules.to_dict(), [self.players]
        )

    def capture(self) -> dict[str, Any]:
        """The whole run as plain data, at an update boundary."""
        data = self.policy_data()
        games = self.games.get_state()
        data["training"] = {
            "config": json.dumps(self.config),
            "critic": {k: v.detach().cpu().clone() for k, v in self.critic.state_dict().items()},
            "optimizer": self.optimizer.state_dict(),
            "league": self.league.get_state(),
            "games": {name: _bytes_tensor(array) for name, array in games.items()},
            "self_play": self._self_play_state(),
            "generator": self.generator.get_state(),
            "counters": {
                "update": self.update,
                "global_step": self.global_step,
                "episodes": self.episodes,
                "elapsed": self.elapsed,
                "best_rate": self.best_rate,
                "warm_started": self.warm_started,
            },
            "member_score": torch.from_numpy(self.member_score.copy()),
            "member_games": torch.from_numpy(self.member_games.copy()),
            "evaluations": json.dumps(self.evaluations),
        }
        return data

    def _self_play_state(self) -> dict[str, Any] | None:
        if self.self_play is None:
            return None
        saved = self.self_play.get_state()
        return {
            "arrays": {name: _bytes_tensor(array) for name, array in saved["arrays"].items()},
            "carry": saved["carry"],
        }

    def restore(self, data: dict[str, Any], path: Path) -> None:
        """Continue the run saved in ``data`` (read from ``path``)."""
        training = data.get("training")
        if not isinstance(training, dict):
            raise CheckpointError(
                f"checkpoint {str(path)!r} is a policy file without training state; "
                "--resume needs a checkpoint.pt written by train/ppo.py"
            )
        saved = json.loads(training["config"])
        saved.setdefault("self_play_games", 0)  # runs from before the key
        for key in ("hidden", "num_envs", "players", "self_play_games"):
            if saved[key] != self.config[key]:
                raise CheckpointError(
                    f"checkpoint {str(path)!r} was trained with {key}={saved[key]!r}; "
                    f"this run has {key}={self.config[key]!r} (they must match to resume)"
                )
        try:
            self.actor.load_state_dict(data["state_dict"])
            self.critic.load_state_dict(training["critic"])
            self.optimizer.load_state_dict(training["optimizer"])
            # The saved learning rate came with the optimiser; the config's is the one asked
            # for (the same unless the resumed run overrides learning_rate).
            self.optimizer.param_groups[0]["lr"] = self.config["learning_rate"]
            self.league.set_state(training["league"])
            games = {name: _array(value) for name, value in training["games"].items()}
            self.games.set_state(games)
            if self.self_play is not None:
                saved_play = training["self_play"]
                self.self_play.set_state(
                    {
                        "arrays": {k: _array(v) for k, v in saved_play["arrays"].items()},
                        "carry": saved_play["carry"],
                    }
                )
            self.generator.set_state(training["generator"])
        except (KeyError, RuntimeError, ValueError) as error:
            raise CheckpointError(
                f"checkpoint {str(path)!r} does not fit this run: {error}"
            ) from None
        counters = training["counters"]
        self.update = int(counters["update"])
        self.global_step = int(counters["global_step"])
        self.episodes = int(counters["episodes"])
        self.elapsed = float(counters["elapsed"])
        self.best_rate = float(counters["best_rate"])
        self.warm_started = bool(counters.get("warm_started", True))
        self.member_score = training["member_score"].numpy().copy()
        self.member_games = training["member_games"].numpy().copy()
        self.evaluations = json.loads(training["evaluations"])
        self.observations = self.games.observe()


def _bytes_tensor(array: np.ndarray) -> dict[str, Any]:
    """A numpy array as plain data: raw bytes (uint8 tensor), dtype and shape."""
    raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
    return {
        "bytes": torch.from_numpy(raw.copy()),
        "dtype": array.dtype.str,
        "shape": list(array.shape),
    }


def _array(data: dict[str, Any]) -> np.ndarray:
    raw = data["bytes"].numpy()
    return raw.view(np.dtype(data["dtype"])).reshape(data["shape"]).copy()


def _device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            "device=cuda is not allowed here: torch sees no CUDA device; allowed: cpu, auto"
        )
    return torch.device(name)


# --- the command line ---------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python train/ppo.py",
        description="Masked self-play PPO for 101 (defaults: configs/train/ppo.yaml). "
        "Writes checkpoint.pt, policy.pt, best.pt, evaluations.csv, summary.json and "
        "TensorBoard logs (tb/) to --out.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--config", default=None, help="training config YAML (default: configs/train/ppo.yaml)"
    )
    for flag, (_, kind, text) in FLAGS.items():
        parser.add_argument(flag, type=str, default=None, help=f"{text} ({kind.__name__})")
    parser.add_argument("--resume", default=None, help="checkpoint.pt of a run to continue")
    parser.add_argument("--no-progress", action="store_true", help="log lines, no bar")
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="override any config key, e.g. learning_rate=1e-4 league.expert=0.5",
    )
    return parser.parse_intermixed_args(argv)


def prepare(argv: list[str] | None) -> tuple[Trainer, argparse.Namespace]:
    """Parse and check everything, then build the trainer (resumed if asked)."""
    args = parse_args(argv)
    config = load_config(args.config, flag_values(args, FLAGS), args.overrides)
    rules = load_rules(config["rules"])
    rules.check_players(config["players"])
    load_agent(config["eval_opponent"], rules, config["players"])  # a bad name fails now
    out = Path(config["out"])
    if out.exists() and not out.is_dir():
        raise ConfigError(f"out={str(out)!r} is a file; allowed: a directory path")
    resume = None
    if args.resume:
        resume = read(args.resume)
        check_fits(resume, args.resume, rules, config["players"])
    out.mkdir(parents=True, exist_ok=True)
    trainer = Trainer(config, rules)
    if resume is not None:
        trainer.restore(resume, Path(args.resume))
    return trainer, args


def run(trainer: Trainer, args: argparse.Namespace) -> dict[str, Any]:
    """The training loop with its logs, evaluations and checkpoints; returns the summary."""
    from tqdm import tqdm

    config = trainer.config
    out = Path(config["out"])
    writer = _tensorboard(out / "tb")
    budget = config["minutes"] * 60 if config["minutes"] else float("inf")
    session_start = time.perf_counter()
    last_checkpoint = last_eval = session_start
    boundary = trainer.capture()
    bar = tqdm(
        total=config["total_steps"],
        initial=min(trainer.global_step, config["total_steps"]),
        unit="step",
        unit_scale=True,
        dynamic_ncols=True,
        disable=args.no_progress,
        mininterval=1.0,
    )
    interrupted = False
    latest: Evaluation | None = None
    # Ctrl-C and kill (SIGTERM) both save the checkpoint; a shell starts background jobs
    # with SIGINT ignored, so the usual handler is put back for this loop.
    previous_handlers = {
        number: signal.signal(number, _raise_interrupt)
        for number in (signal.SIGINT, signal.SIGTERM)
    }
    if trainer.update == 0 and config["eval_every_minutes"]:
        latest = _evaluate(trainer, writer, out, bar, args)
    if not trainer.warm_started:
        stats = trainer.warm_start()
        _say(
            f"warm start: imitated {config['warm_start']} over "
            f"{config['warm_start_decisions']:,} decisions: agreement "
            f"{stats.get('agreement', 0):.3f}, value error {stats.get('value_loss', 0):.3f}",
            bar, args,
        )  # fmt: skip
        if config["eval_every_minutes"]:
            latest = _evaluate(trainer, writer, out, bar, args)
            last_eval = time.perf_counter()
        boundary = trainer.capture()
    try:
        while trainer.global_step < config["total_steps"]:
            if time.perf_counter() - session_start >= budget:
                break
            started = time.perf_counter()
            buffer = trainer.collect()
            collected = time.perf_counter()
            stats = trainer.learn(buffer)
            now = time.perf_counter()
            trainer.elapsed += now - started
            boundary = trainer.capture()
            decisions = trainer.decisions_per_update
            stats["steps_per_second"] = decisions / (now - started)
            stats["collect_steps_per_second"] = decisions / (collected - started)
            _log_update(trainer, writer, stats)
            bar.update(decisions)
            bar.set_postfix_str(_postfix(trainer, stats, latest))
            if (
                config["eval_every_minutes"]
                and now - last_eval >= 60 * config["eval_every_minutes"]
            ):
                latest = _evaluate(trainer, writer, out, bar, args)
                boundary = trainer.capture()
                last_eval = time.perf_counter()
            if now - last_checkpoint >= 60 * config["checkpoint_every_minutes"]:
                write_atomic(out / "checkpoint.pt", boundary)
                last_checkpoint = time.perf_counter()
    except KeyboardInterrupt:
        interrupted = True
        bar.write("interrupted: saving the last finished update")
    bar.close()
    for number, handler in previous_handlers.items():
        signal.signal(number, handler)
    write_atomic(out / "checkpoint.pt", boundary)
    if (
        not interrupted
        and config["eval_every_minutes"]
        and (not trainer.evaluations or trainer.evaluations[-1]["update"] != trainer.update)
    ):
        latest = _evaluate(trainer, writer, out, None, args)
        write_atomic(out / "checkpoint.pt", trainer.capture())
    policy = trainer.policy_data()
    write_atomic(out / "policy.pt", policy)
    summary = _summary(trainer, interrupted)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    _print_summary(summary)
    if writer is not None:
        writer.close()
    return summary


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _evaluate(trainer: Trainer, writer, out: Path, bar, args) -> Evaluation:
    result = trainer.evaluate()
    row = trainer.evaluations[-1]
    if writer is not None:
        writer.add_scalar(f"eval/{result.opponent}", result.rate, trainer.global_step)
        writer.add_scalar(f"eval/{result.opponent}_low", result.low, trainer.global_step)
    if result.rate > trainer.best_rate:
        trainer.best_rate = result.rate
        write_atomic(out / "best.pt", trainer.policy_data())
    write_evaluations(out / "evaluations.csv", trainer.evaluations)
    line = (
        f"update {trainer.update} step {trainer.global_step:,} "
        f"({row['minutes']:.1f} min): {result.describe()}"
    )
    _say(line, bar, args)
    return result


def _say(line: str, bar, args) -> None:
    if bar is not None and not args.no_progress:
        bar.write(line)
    else:
        print(line, flush=True)


def write_evaluations(path: Path, rows: list[dict[str, Any]]) -> None:
    """``evaluations.csv``, written whole (temporary file, then rename)."""
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    temporary.replace(path)


def _tensorboard(path: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # pragma: no cover - tensorboard is in the train extra
        print("tensorboard is not installed: no TensorBoard logs", file=sys.stderr)
        return None
    return SummaryWriter(str(path))


def _member_rates(trainer: Trainer) -> dict[str, float]:
    return {
        name: float(trainer.member_score[i] / trainer.member_games[i])
        for i, name in enumerate(trainer.league.names)
        if trainer.member_games[i]
    }


def _log_update(trainer: Trainer, writer, stats: dict[str, float]) -> None:
    if writer is None:
        return
    step = trainer.global_step
    for key, value in stats.items():
        writer.add_scalar(f"train/{key}", value, step)
    for name, rate in _member_rates(trainer).items():
        writer.add_scalar(f"league/{name}", rate, step)


def _postfix(trainer: Trainer, stats: dict[str, float], latest: Evaluation | None) -> str:
    rates = _member_rates(trainer)
    shown = " ".join(f"{n}={rates[n]:.2f}" for n in ("current", "expert", "greedy") if n in rates)
    text = f"{stats['steps_per_second']:,.0f} steps/s {shown}"
    if latest is not None:
        text += f" | eval {latest.rate:.3f} [{latest.low:.3f},{latest.high:.3f}]"
    return text


def _summary(trainer: Trainer, interrupted: bool) -> dict[str, Any]:
    return {
        "updates": trainer.update,
        "learner_steps": trainer.global_step,
        "episodes": trainer.episodes,
        "minutes": round(trainer.elapsed / 60, 2),
        "steps_per_second": round(trainer.global_step / max(trainer.elapsed, 1e-9)),
        "interrupted": interrupted,
        "league_scores": {k: round(v, 4) for k, v in _member_rates(trainer).items()},
        "latest_evaluation": trainer.evaluations[-1] if trainer.evaluations else None,
        "best_rate": trainer.best_rate if trainer.evaluations else None,
        "out": trainer.config["out"],
    }


def _print_summary(summary: dict[str, Any]) -> None:
    rows = [
        ("updates", f"{summary['updates']:,}"),
        ("learner decisions", f"{summary['learner_steps']:,}"),
        ("matches finished", f"{summary['episodes']:,}"),
        ("training minutes", f"{summary['minutes']:.1f}"),
        ("decisions/s", f"{summary['steps_per_second']:,}"),
    ]
    latest = summary["latest_evaluation"]
    if latest:
        rows.append(
            (
                f"vs {latest['opponent']}",
                f"{latest['rate']:.3f} [{latest['low']:.3f}, {latest['high']:.3f}] "
                f"({latest['matches']} matches)",
            )
        )
    for name, rate in summary["league_scores"].items():
        rows.append((f"league score vs {name}", f"{rate:.3f}"))
    rows.append(("written to", summary["out"]))
    width = max(len(name) for name, _ in rows)
    print("\nsummary" + (" (interrupted)" if summary["interrupted"] else ""))
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


def main(argv: list[str] | None = None) -> int:
    try:
        trainer, args = prepare(argv)
    except (ConfigError, RulesError, AgentError, CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    run(trainer, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
