"""Masked self-play PPO for 101: ``python train/ppo.py`` (defaults: configs/train/ppo.yaml).

    python train/ppo.py [--config FILE] [--resume CHECKPOINT] [--no-progress]
        [--KEY VALUE ...] [key=value ...]

One file in the manner of CleanRL's ``ppo.py``, in its order: the args (the typed config
of ``train/config.py``), the env setup, the agent, then the algorithm: a rollout of
``rollout_steps`` learner decisions in each of ``num_envs`` games on the batched engine
(:class:`sto_odno_env.envs.learner.LearnerGames`, one learner seat each, the other seats drawn
from a league, :mod:`train.league`, at every match start), GAE advantages, and ``epochs``
passes of clipped PPO over minibatches. Masks hold everywhere: actions are sampled from the
legal ones only, the update's log-probabilities and entropy are those of the masked
distribution, and evaluation plays the most likely legal action.

The run around the algorithm (the command line, budget, warm start, evaluations, progress,
checkpoints, Ctrl-C, the summary) is ``train/run.py``'s. Written to ``--out``:
``checkpoint.pt`` (the whole run, for ``--resume``: weights, optimiser, league, counters,
the games in progress and the random state, so a resumed run continues exactly; also a
policy file), ``policy.pt`` (the same update's policy), ``best.pt`` (the best evaluated),
``evaluations.csv``, ``summary.json`` and TensorBoard logs in ``tb/``.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sto_odno_env.bots.checkpoint import (
    CheckpointError,
    TorchPolicyAgent,
    build_network,
    policy_record,
    read,
    write_atomic,
)
from sto_odno_env.game.rules import Rules
from sto_odno_env.views.observation import obs_size
from train import deferred_import, run
from train.config import ConfigError, TrainConfig
from train.imitation import estimate_seconds, warm_start
from train.masked import entropy, log_probs, make_networks, sample
from train.selfplay import SelfPlayGames
from train.tables import Tables, counts_and_sizes

if TYPE_CHECKING:
    import torch

    from train import overlap
else:  # loaded on first use, so that a bad command line fails before torch's seconds of loading
    torch = deferred_import("torch")

# --- args ------------------------------------------------------------------------------------
# The typed config, train/config.py's TrainConfig: every key is a flag (python train/ppo.py
# --help), read from configs/train/ppo.yaml, a resumed checkpoint and the command line by
# train/run.py, whose Spec for this trainer is SPEC at the end of this file.


# --- env setup -------------------------------------------------------------------------------


def make_envs(
    config: TrainConfig, rules: Rules, actor: torch.nn.Module, device: torch.device
) -> tuple[Tables, SelfPlayGames | None]:
    """The league games (one learner seat each, the league holding the current ``actor``
    in the others; at each count of ``players_mix``, train/tables.py) and the self-play
    games (``self_play_games`` at ``players``, or None)."""
    tables = Tables(config, rules, actor, device)
    self_play = None
    if config.self_play_games:
        self_play = SelfPlayGames(
            rules, config.players, config.self_play_games, config.seed, config.reward
        )
    return tables, self_play


# --- agent -----------------------------------------------------------------------------------


class Agent:
    """The actor (observation -> action logits: the network of a policy file) and the
    critic (observation -> value), on masked distributions."""

    def __init__(self, obs_size: int, hidden: tuple[int, ...], num_actions: int):
        self.actor, self.critic = make_networks(obs_size, list(hidden), num_actions)

    def parameters(self) -> list[torch.nn.Parameter]:
        return [*self.actor.parameters(), *self.critic.parameters()]

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def get_action_and_value(
        self,
        x: torch.Tensor,
        masks: torch.Tensor,
        action: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample a legal action with ``generator`` (``action`` None: the entropy is not
        computed) or score ``action``: the action, its log-probability, the masked
        distribution's entropy and the value."""
        logits = self.actor(x)
        if action is None:
            action, logprob = sample(logits, masks, generator)
            return action, logprob, torch.zeros(0), self.get_value(x)
        logprobs = log_probs(logits, masks)
        logprob = logprobs.gather(1, action[:, None]).squeeze(1)
        return action, logprob, entropy(logprobs, masks), self.get_value(x)


# --- the algorithm ---------------------------------------------------------------------------


class PPO:
    """One PPO run: the env setup, the agent, the optimiser and the rollout storage; one
    :meth:`train` call is one update (rollout, GAE, update). ``train/run.py`` drives it."""

    interruptible = True  # every update's end is captured, so a signal may cut one short
    policy_name = "policy.pt"

    def __init__(self, settings: run.Settings):
        config = self.config = settings.config
        self.rules = settings.rules
        # TRY NOT TO MODIFY: seeding
        if config.threads:
            torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        self.device = _device(config.device)
        self.generator = torch.Generator(device=self.device).manual_seed(config.seed)

        self.obs_size, self.num_actions = obs_size(self.rules), self.rules.num_actions
        self.agent = Agent(self.obs_size, config.hidden, self.num_actions)
        self.agent.actor.to(self.device)
        self.agent.critic.to(self.device)
        self.optimizer = torch.optim.Adam(
            self.agent.parameters(), lr=config.learning_rate, eps=1e-5
        )

        # env setup
        self.tables, self.self_play = make_envs(config, self.rules, self.agent.actor, self.device)
        self.next_obs = self.tables.reset(seed=config.seed)

        # ALGO Logic: storage setup (on the CPU; an update moves its batch to the device)
        shape = (config.rollout_steps, config.num_envs)
        self.obs = torch.zeros((*shape, self.obs_size))
        self.masks = torch.zeros((*shape, self.num_actions), dtype=torch.bool)
        self.actions = torch.zeros(shape, dtype=torch.long)
        self.logprobs = torch.zeros(shape)
        self.rewards = torch.zeros(shape)
        self.dones = torch.zeros(shape)  # 1 where the observation opens a new match
        self.values = torch.zeros(shape)
        self.next_done = torch.zeros(config.num_envs)
        # the learner's score against each league member (the summary's league scores)
        self.member_score = np.zeros(len(self.tables.names))
        self.member_games = np.zeros(len(self.tables.names))
        # overlapped training (train/overlap.py): the collector process, started at the
        # first update; what a resumed overlapped run hands it
        self.collector: overlap.Collector | None = None
        self.updates = settings.saved.counters.update if settings.saved is not None else 0
        self._behaviour: dict[str, Any] | None = None  # the weights of the next rollout
        self._learner_generator: torch.Tensor | None = None
        if settings.saved is not None:
            self.restore(settings.saved)

    @property
    def batch_size(self) -> int:
        """Decisions one update trains on: the learner's in the league games, and every
        seat's in the self-play games."""
        config = self.config
        return config.rollout_steps * (config.num_envs + config.self_play_games)

    def train(self, counters: run.Counters) -> run.Update:
        """One update: the rollout, GAE, and the PPO update of the agent (``overlap``: the
        update of the rollout the collector process finished, :meth:`train_overlapped`)."""
        if self.config.overlap:
            return self.train_overlapped(counters)
        episodes = self.rollout()
        self_play = self.self_play_rollout()
        advantages, returns = self.gae()
        global_step = counters.global_step + self.batch_size
        stats = self.update(advantages, returns, self_play, global_step)
        update = counters.update + 1
        if update % self.config.league.snapshot_every == 0:
            self.tables.add_snapshot(update)
        self.updates = update
        return run.Update(self.batch_size, episodes, stats)

    def train_overlapped(self, counters: run.Counters) -> run.Update:
        """One update on the rollout the collector collected (with the weights of two
        updates ago) while the last update ran; the collector goes on with the next."""
        if self.collector is None:
            self.start_collector()
        index = counters.update + 1
        rollout = self.collector.rollout(index)
        # the same update code as in one process, on the shared buffer's rows
        for name in ("obs", "masks", "actions", "logprobs", "values"):
            setattr(self, name, rollout.tensors[name])
        self.member_score, self.member_games = rollout.member_score, rollout.member_games
        global_step = counters.global_step + self.batch_size
        stats = self.update(
            rollout.tensors["advantages"], rollout.tensors["returns"], rollout.self_play,
            global_step,
        )  # fmt: skip
        self.collector.finished(index, self._network_tensors())
        self.updates = index
        return run.Update(self.batch_size, rollout.episodes, stats)

    def start_collector(self) -> None:
        """Hand the games, the league and the sampling generator to a collector process,
        which collects from the next rollout on; the update's minibatch order gets a
        generator of its own."""
        state = self.collector_state(self.updates + 1)
        if self._learner_generator is not None:  # resumed from an overlapped checkpoint
            self.generator.set_state(self._learner_generator)
        else:
            self.generator.manual_seed(_learner_seed(self.config.seed, self.updates))
        self._behaviour = self._learner_generator = None
        from train import overlap  # imports torch: not before the command line is checked

        shapes = (self.config.rollout_steps, self.config.num_envs, self.obs_size, self.num_actions)
        self.collector = overlap.Collector(
            self.config, self.rules, state, self._network_tensors(), shapes, type(self)
        )

    def _network_tensors(self) -> list[torch.Tensor]:
        return [*self.agent.actor.state_dict().values(), *self.agent.critic.state_dict().values()]

    def collector_state(self, rollout: int) -> dict[str, Any]:
        """What a collector needs to collect from rollout ``rollout`` on (plain data,
        copies): the games, the league, the self-play games, the sampling generator, the
        league scores so far and the weights it collects with (``"behaviour"``)."""
        behaviour = self._behaviour
        if behaviour is None:
            behaviour = {
                "actor": _copy(self.agent.actor.state_dict()),
                "critic": _copy(self.agent.critic.state_dict()),
            }
        generator = self.generator.get_state() if self.device.type == "cpu" else None
        return {
            "rollout": rollout,
            **self._play_state(),
            "generator": generator,
            "behaviour": behaviour,
        }

    def load_collector_state(self, state: dict[str, Any]) -> None:
        """Become the collector of :meth:`collector_state`'s data."""
        self.agent.actor.load_state_dict(state["behaviour"]["actor"])
        self.agent.critic.load_state_dict(state["behaviour"]["critic"])
        self._load_play_state(state)
        if state["generator"] is not None:
            self.generator.set_state(state["generator"])
        else:  # handed over from a learner on another device
            self.generator.manual_seed(_learner_seed(self.config.seed, state["rollout"]) + 1)
        self.next_obs = self.tables.observe()

    def rollout(self) -> int:
        """``rollout_steps`` learner decisions in every league game into the storage;
        returns the learner matches that ended."""
        episodes = 0
        for step in range(self.config.rollout_steps):
            next_obs = torch.from_numpy(self.next_obs)
            masks = torch.from_numpy(self.tables.masks()) != 0
            self.obs[step] = next_obs
            self.masks[step] = masks
            self.dones[step] = self.next_done

            # ALGO LOGIC: action logic
            with torch.no_grad():
                action, logprob, _, value = self.agent.get_action_and_value(
                    next_obs.to(self.device), masks.to(self.device), generator=self.generator
                )
            self.values[step] = value.cpu()
            self.actions[step] = action.cpu()
            self.logprobs[step] = logprob.cpu()

            # TRY NOT TO MODIFY: execute the game and log data.
            opponents = self.tables.opponents()  # who the ending matches were against
            result = self.tables.step(action.cpu().numpy())
            done = result["terminated"] | result["truncated"]
            self.rewards[step] = torch.from_numpy(result["reward"])
            self.next_obs = result["observation"]
            self.next_done = torch.from_numpy(done.astype(np.float32))
            episodes += self.tables.credit(
                opponents, done, result["reward"], self.member_score, self.member_games
            )
        return episodes

    def self_play_rollout(self) -> dict[str, torch.Tensor] | None:
        """The self-play games' rows of this update, with their own GAE (every seat's
        chain of decisions: train/selfplay.py), or None."""
        if self.self_play is None:
            return None
        config = self.config
        return self.self_play.collect(
            self.agent.actor, self.agent.critic, config.rollout_steps, self.generator,
            self.device, config.gamma, config.gae_lambda,
        )  # fmt: skip

    def gae(self) -> tuple[torch.Tensor, torch.Tensor]:
        """GAE(λ) advantages and returns of the storage; a match's end cuts the bootstrap."""
        config = self.config
        with torch.no_grad():
            next_value = self.agent.get_value(torch.from_numpy(self.next_obs).to(self.device))
            next_value = next_value.cpu()
        advantages = torch.zeros_like(self.rewards)
        lastgaelam = torch.zeros_like(next_value)
        num_steps = config.rollout_steps
        for t in reversed(range(num_steps)):
            if t == num_steps - 1:
                nextnonterminal = 1.0 - self.next_done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - self.dones[t + 1]
                nextvalues = self.values[t + 1]
            delta = self.rewards[t] + config.gamma * nextvalues * nextnonterminal - self.values[t]
            lastgaelam = delta + config.gamma * config.gae_lambda * nextnonterminal * lastgaelam
            advantages[t] = lastgaelam
        return advantages, advantages + self.values

    def update(
        self,
        advantages: torch.Tensor,
        returns: torch.Tensor,
        self_play: dict[str, torch.Tensor] | None,
        global_step: int,
    ) -> dict[str, float]:
        """Optimise the policy and value networks over the rollout; its statistics."""
        config = self.config
        # flatten the batch
        b = {
            "obs": self.obs.reshape(-1, self.obs_size),
            "masks": self.masks.reshape(-1, self.num_actions),
            "actions": self.actions.reshape(-1),
            "logp": self.logprobs.reshape(-1),
            "values": self.values.reshape(-1),
            "advantages": advantages.reshape(-1),
            "returns": returns.reshape(-1),
        }
        if self_play is not None:  # every seat's decisions of the self-play games
            b = {key: torch.cat([b[key], self_play[key]]) for key in b}
        b = {key: value.to(self.device) for key, value in b.items()}
        batch_size = b["actions"].shape[0]
        minibatch_size = min(config.minibatch_size, batch_size)

        # Annealing the rate if instructed to do so.
        if config.anneal_lr:
            frac = 1.0 - global_step / config.total_steps
            self.optimizer.param_groups[0]["lr"] = config.learning_rate * max(frac, 0.0)

        # Optimizing the policy and value network
        losses: dict[str, list[float]] = {
            k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")
        }
        for _epoch in range(config.epochs):
            b_inds = torch.randperm(batch_size, generator=self.generator, device=self.device)
            for start in range(0, batch_size - minibatch_size + 1, minibatch_size):
                mb_inds = b_inds[start : start + minibatch_size]
                _, newlogprob, entropy_all, newvalue = self.agent.get_action_and_value(
                    b["obs"][mb_inds], b["masks"][mb_inds], b["actions"][mb_inds]
                )
                logratio = newlogprob - b["logp"][mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    losses["approx_kl"].append(float(((ratio - 1) - logratio).mean()))
                    clipped = (ratio - 1.0).abs() > config.clip_coef
                    losses["clipfrac"].append(float(clipped.float().mean()))

                mb_advantages = b["advantages"][mb_inds]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (
                    mb_advantages.std() + 1e-8
                )

                # Policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # Value loss
                v_loss = 0.5 * ((newvalue - b["returns"][mb_inds]) ** 2).mean()

                entropy_loss = entropy_all.mean()
                loss = pg_loss - config.ent_coef * entropy_loss + config.vf_coef * v_loss

                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.agent.parameters(), config.max_grad_norm)
                self.optimizer.step()
                losses["policy_loss"].append(float(pg_loss.detach()))
                losses["value_loss"].append(float(v_loss.detach()))
                losses["entropy"].append(float(entropy_loss.detach()))

            if config.target_kl and np.mean(losses["approx_kl"]) > config.target_kl:
                break

        stats = {key: float(np.mean(values)) for key, values in losses.items()}
        var_y = float(b["returns"].var())
        residual = float((b["returns"] - b["values"]).var())
        stats["explained_variance"] = float("nan") if var_y == 0 else 1 - residual / var_y
        stats["learning_rate"] = self.optimizer.param_groups[0]["lr"]
        return stats

    # --- the warm start (train/imitation.py) --------------------------------------------------

    def warm_start(self, console: run.Console) -> dict[str, float]:
        """Imitate the ``warm_start`` bot (or start from its policy) before the first update."""
        config = self.config
        return warm_start(
            config, self.rules, counts_and_sizes(config), self.agent.actor, self.agent.critic,
            self.generator, self.device, console,
        )  # fmt: skip

    def warm_start_seconds(self) -> float:
        config = self.config
        return estimate_seconds(
            config, self.rules, counts_and_sizes(config), self.agent.actor, self.agent.critic,
            self.device,
        )  # fmt: skip

    # --- the run harness's side: captured state, policy files, checkpoints -------------------

    def capture(self) -> dict[str, Any]:
        """The whole run as plain data (copies) at the end of the last update: a policy file's
        entries plus ``"training"``, without the counters (the harness adds them)."""
        config = self.config
        data = policy_record(
            self.agent.actor, list(config.hidden), self.rules.to_dict(), self.tables.counts
        )
        training = data["training"] = {
            "config": json.dumps(config.to_dict()),
            "critic": _copy(self.agent.critic.state_dict()),
            # a deep copy: the next update changes Adam's moments in place
            "optimizer": copy.deepcopy(self.optimizer.state_dict()),
            "member_score": torch.from_numpy(self.member_score.copy()),
            "member_games": torch.from_numpy(self.member_games.copy()),
        }
        if self.collector is not None:
            # The games, the league and the sampling generator are the collector's, at the
            # start of the next rollout: fetched when a checkpoint is written (collect_play).
            training["overlap"] = {
                "rollout": self.updates + 1,
                "learner_generator": self.generator.get_state(),
            }
            return data
        training.update(self._play_state())
        training["generator"] = self.generator.get_state()
        if self._behaviour is not None:  # resumed overlapped, the collector not started yet
            training["overlap"] = {
                "rollout": self.updates + 1,
                "behaviour": self._behaviour,
                "learner_generator": self._learner_generator,
            }
        return data

    def _play_state(self) -> dict[str, Any]:
        """The games, the league, the self-play games and the league scores (copies)."""
        leagues, games = self.tables.get_state()
        return {
            "league": leagues,
            "games": _map_arrays(games, _bytes_tensor),
            "self_play": self._self_play_state(),
            "member_score": torch.from_numpy(self.member_score.copy()),
            "member_games": torch.from_numpy(self.member_games.copy()),
        }

    def _load_play_state(self, training: dict[str, Any]) -> None:
        self.tables.set_state(training["league"], _map_arrays(training["games"], _array))
        if self.self_play is not None:
            play = training["self_play"]
            arrays = {k: _array(v) for k, v in play["arrays"].items()}
            self.self_play.set_state({"arrays": arrays, "carry": play["carry"]})
        self.member_score = training["member_score"].numpy().copy()
        self.member_games = training["member_games"].numpy().copy()

    def collect_play(self, captured: dict[str, Any]) -> None:
        """Complete an overlapped capture with the collector's state at the start of the
        next rollout (in place; once)."""
        training = captured["training"]
        record = training.get("overlap")
        if record is None or "games" in training:
            return
        state = self.collector.state(record["rollout"])
        record["behaviour"] = state.pop("behaviour")
        state.pop("rollout")
        training.update(state)

    def policy_agent(self, captured: dict[str, Any]) -> TorchPolicyAgent:
        """The captured policy as a greedy agent (a CPU copy, independent of training)."""
        actor = build_network(self.obs_size, list(self.config.hidden), self.num_actions)
        actor.load_state_dict(captured["state_dict"])
        return TorchPolicyAgent(actor)

    def write_policy(self, captured: dict[str, Any], path: Path) -> None:
        write_atomic(path, {k: v for k, v in captured.items() if k != "training"})

    def write_checkpoint(self, captured: dict[str, Any], counters: run.Counters, out: Path) -> Path:
        self.collect_play(captured)
        path = out / "checkpoint.pt"
        write_atomic(
            path, {**captured, "training": {**captured["training"], "counters": counters.to_dict()}}
        )
        return path

    def scores(self, captured: dict[str, Any]) -> dict[str, float]:
        training = captured["training"]
        score, games = training["member_score"].numpy(), training["member_games"].numpy()
        return {
            name: float(score[i] / games[i]) for i, name in enumerate(self.tables.names) if games[i]
        }

    def describe(self) -> str:
        config = self.config
        text = (
            f"{config.num_envs} league games x {config.rollout_steps} learner decisions per "
            f"update, MLP {list(config.hidden)}, on {self.device}"
        )
        if config.self_play_games:
            text += f", {config.self_play_games} self-play games"
        return text

    def extra_summary(self) -> dict[str, Any]:
        if self.collector is None:
            return {}
        return {"overlap": {"collector_pid": self.collector.pid}}

    def close(self) -> None:
        """Stop the collector process (overlapped training)."""
        if self.collector is not None:
            self.collector.close()

    def _self_play_state(self) -> dict[str, Any] | None:
        if self.self_play is None:
            return None
        saved = self.self_play.get_state()
        return {
            "arrays": {name: _bytes_tensor(array) for name, array in saved["arrays"].items()},
            "carry": saved["carry"],
        }

    def restore(self, saved: run.Saved) -> None:
        """Continue the run of ``saved`` exactly where its update ended."""
        data, path = saved.data, saved.path
        training = data["training"]
        try:
            self.agent.actor.load_state_dict(data["state_dict"])
            self.agent.critic.load_state_dict(training["critic"])
            self.optimizer.load_state_dict(training["optimizer"])
            # The saved learning rate came with the optimiser; the config's is the one asked
            # for (the same unless the resumed run sets learning_rate).
            self.optimizer.param_groups[0]["lr"] = self.config.learning_rate
            self._load_play_state(training)
            if training["generator"] is not None:
                self.generator.set_state(training["generator"])
            record = training.get("overlap")
            if record is not None and self.config.overlap:
                # An overlapped run's checkpoint: the collector restarts from the start of
                # the next rollout with the weights it had; the update's generator is its own.
                self._behaviour = record["behaviour"]
                self._learner_generator = record["learner_generator"]
        except (KeyError, RuntimeError, ValueError) as error:
            raise CheckpointError(
                f"checkpoint {str(path)!r} does not fit this run: {error}"
            ) from None
        self.next_obs = self.tables.observe()


def _copy(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().clone() for k, v in state.items()}


def _learner_seed(seed: int, update: int) -> int:
    """The seed of an overlapped run's update generator (minibatch order) from ``update``
    on: a stream apart from the collector's sampling."""
    return seed * 7919 + 7_368_787 + 1_000_003 * update


def _map_arrays(games: Any, convert: Any) -> Any:
    """``convert`` applied to each array of one count's games (a dict) or several's (a list)."""
    if isinstance(games, list):
        return [_map_arrays(group, convert) for group in games]
    return {name: convert(value) for name, value in games.items()}


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


# --- the command line: train/run.py runs the trainer ------------------------------------------


def read_checkpoint(path: Path) -> run.Saved:
    """A ``checkpoint.pt`` for ``--resume``: its config, counters and state."""
    data = read(path)
    training = data.get("training")
    if not isinstance(training, dict):
        raise CheckpointError(
            f"checkpoint {str(path)!r} is a policy file without training state; "
            "--resume needs a checkpoint.pt written by train/ppo.py"
        )
    config = json.loads(training["config"])
    counters = run.Counters.from_dict(training["counters"], training.get("evaluations"))
    return run.Saved(path, config, {}, counters, data)


SPEC = run.Spec(
    prog="python train/ppo.py",
    description="Masked self-play PPO for 101 against a league (defaults: configs/train/ppo.yaml).",
    checkpoint="runs/ppo/checkpoint.pt",
    build=lambda settings, console: PPO(settings),
    read_checkpoint=read_checkpoint,
    outputs="checkpoint.pt, policy.pt, best.pt, evaluations.csv, summary.json, tb/",
)


def main(argv: list[str] | None = None) -> int:
    return run.main(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
