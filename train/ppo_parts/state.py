"""What a PPO run saves and hands over: its checkpoint (for exact ``--resume``) and the state
it gives the collector process of overlapped training (``train/ppo_parts/overlap.py``).

:class:`PPOState` is the run-harness side of :class:`train.ppo.PPO` (which inherits it),
in the manner of Stable-Baselines3's ``BaseAlgorithm.save``/``load`` beside its ``PPO``:
``train/ppo.py`` keeps the algorithm, this module everything that turns the live objects
into plain data and back.

A checkpoint is a policy file (``sto_odno_env/bots/checkpoint.py``'s record) plus
``"training"``: the config, the critic, Adam's state, the league scores, the games in
progress (numpy arrays as raw bytes, so ``torch.load(weights_only=True)`` reads them), the
league and its snapshots, the self-play games, the sampling generator and the counters.
An overlapped run's checkpoint of update ``k`` also holds ``"overlap"``: the weights the
collector samples rollout ``k + 1`` with (``behaviour``: update ``k - 1``'s) and the
learner's own generator (minibatch order); the games are the collector's at the start of
rollout ``k + 1``. So a resumed run, in either mode, continues as the uninterrupted one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

import numpy as np

from sto_odno_env.bots import checkpoint
from sto_odno_env.bots.checkpoint import CheckpointError
from train import deferred_import
from train.run.protocol import Counters, Saved

if TYPE_CHECKING:
    import torch

    from sto_odno_env.game.rules import Rules
    from train.config_keys import TrainConfig
    from train.ppo_parts.overlap import Collector
    from train.ppo_parts.selfplay import SelfPlayGames
    from train.ppo_parts.tables import Tables
else:  # loaded on first use, so that a bad command line fails before torch's seconds of loading
    torch = deferred_import("torch")

# Plain data (tensors, numbers, strings, lists and dicts of them): what a checkpoint holds.
Record = dict[str, Any]
Weights = dict[str, "torch.Tensor"]  # a network's state_dict


class OverlapRecord(TypedDict, total=False):
    """``"training"``'s ``"overlap"``: an overlapped run's hand-over (module docstring)."""

    rollout: int  # the rollout the collector collects next
    behaviour: dict[str, Weights]  # the weights it collects with: "actor", "critic"
    learner_generator: torch.Tensor | None  # the learner's generator state (minibatch order)


class TrainingRecord(TypedDict, total=False):
    """A checkpoint's ``"training"``: what a policy file lacks to continue the run. The play
    state (:meth:`PPOState.play_state`) is missing from an overlapped capture until
    :meth:`PPOState.collect_play` fetches it; ``counters`` is there once written."""

    config: str  # the TrainConfig as JSON
    critic: Weights
    optimizer: dict[str, Any]  # torch.optim.Optimizer.state_dict(), as torch types it
    member_score: torch.Tensor
    member_games: torch.Tensor
    league: Any  # Tables.get_state()'s leagues (one count's dict, or a list of them)
    games: Any  # Tables.get_state()'s games, their arrays as _bytes_tensor's records
    self_play: Record | None  # SelfPlayGames' arrays (as bytes) and carry
    generator: torch.Tensor | None  # the sampling generator's state
    overlap: OverlapRecord
    counters: Record  # Counters.to_dict()
    evaluations: str  # older checkpoints: the evaluations beside the counters


class PolicyRecord(TypedDict):
    """A policy file's entries (``sto_odno_env.bots.checkpoint.policy_record``'s)."""

    format: str
    version: int
    obs_size: int
    hidden: list[int]
    num_actions: int
    state_dict: Weights  # the actor's
    rules: dict[str, Any] | None  # Rules.to_dict()
    players: list[int] | None
    observation_version: int
    package_version: str


class PPOCapture(PolicyRecord):
    """A captured PPO run (:meth:`PPOState.capture`), the ``checkpoint.pt`` it writes: a
    policy file's entries and ``"training"``."""

    training: TrainingRecord


class PPOState:
    """Capture and restore of a PPO run (see the module docstring). The attributes below are
    :class:`train.ppo.PPO`'s."""

    config: TrainConfig
    rules: Rules
    device: torch.device
    generator: torch.Generator
    optimizer: torch.optim.Optimizer
    tables: Tables
    self_play: SelfPlayGames | None
    member_score: np.ndarray
    member_games: np.ndarray
    next_obs: np.ndarray
    updates: int
    collector: Collector | None
    obs_size: int
    num_actions: int
    policy_name = "policy.pt"

    # the weights and generator an overlapped checkpoint hands the collector it restarts
    _behaviour: Record | None = None
    _learner_generator: torch.Tensor | None = None

    def networks(self) -> tuple[torch.nn.Module, torch.nn.Module]:
        """The actor and the critic."""
        raise NotImplementedError

    # --- the checkpoint ---------------------------------------------------------------------

    def capture(self) -> PPOCapture:
        """The whole run as plain data (copies) at the end of the last update: a policy
        file's entries plus ``"training"``, without the counters (the harness adds them)."""
        actor, critic = self.networks()
        config = self.config
        record = checkpoint.policy_record(
            actor, list(config.hidden), self.rules.to_dict(), self.tables.counts
        )
        training: TrainingRecord = {
            "config": json.dumps(config.to_dict()),
            "critic": _copy(critic.state_dict()),
            # a deep copy: the next update changes Adam's moments in place
            "optimizer": copy.deepcopy(self.optimizer.state_dict()),
            "member_score": torch.from_numpy(self.member_score.copy()),
            "member_games": torch.from_numpy(self.member_games.copy()),
        }
        data = cast(PPOCapture, {**record, "training": training})  # policy_record's keys
        if self.collector is not None:
            # The games, the league and the sampling generator are the collector's, at the
            # start of the next rollout: fetched when a checkpoint is written (collect_play).
            training["overlap"] = {
                "rollout": self.updates + 1,
                "learner_generator": self.generator.get_state(),
            }
            return data
        training.update(cast(TrainingRecord, self.play_state()))
        training["generator"] = self.generator.get_state()
        if self._behaviour is not None:  # resumed overlapped, the collector not started yet
            training["overlap"] = {
                "rollout": self.updates + 1,
                "behaviour": self._behaviour,
                "learner_generator": self._learner_generator,
            }
        return data

    def restore(self, saved: Saved) -> None:
        """Continue the run of ``saved`` exactly where its update ended."""
        # read_checkpoint checked a policy file with a "training" dict; a key missing from
        # it fails below as a checkpoint that does not fit
        data, path = cast(PPOCapture, saved.data), saved.path
        training = data["training"]
        actor, critic = self.networks()
        try:
            actor.load_state_dict(data["state_dict"])
            critic.load_state_dict(training["critic"])
            self.optimizer.load_state_dict(training["optimizer"])
            # The saved learning rate came with the optimiser; the config's is the one asked
            # for (the same unless the resumed run sets learning_rate).
            self.optimizer.param_groups[0]["lr"] = self.config.learning_rate
            self.load_play_state(training)
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

    def collect_play(self, captured: PPOCapture) -> None:
        """Complete an overlapped capture with the collector's state at the start of the
        next rollout (in place; once)."""
        training = captured["training"]
        record = training.get("overlap")
        if record is None or "games" in training or self.collector is None:
            return
        state = self.collector.state(record["rollout"])
        record["behaviour"] = state.pop("behaviour")
        state.pop("rollout")
        training.update(cast(TrainingRecord, state))

    def write_policy(self, captured: PPOCapture, path: Path) -> None:
        """The captured policy as a policy file (written whole or not at all)."""
        checkpoint.write_atomic(path, {k: v for k, v in captured.items() if k != "training"})

    def write_checkpoint(self, captured: PPOCapture, counters: Counters, out: Path) -> Path:
        """The captured run and ``counters`` as ``out/checkpoint.pt``; its path."""
        self.collect_play(captured)
        path = out / "checkpoint.pt"
        training = {**captured["training"], "counters": counters.to_dict()}
        checkpoint.write_atomic(path, {**captured, "training": training})
        return path

    def policy_agent(self, captured: PPOCapture) -> checkpoint.TorchPolicyAgent:
        """The captured policy as a greedy agent (a CPU copy, independent of training)."""
        actor = checkpoint.build_network(self.obs_size, list(self.config.hidden), self.num_actions)
        actor.load_state_dict(captured["state_dict"])
        return checkpoint.TorchPolicyAgent(actor)

    def scores(self, captured: PPOCapture) -> dict[str, float]:
        """The learner's score against each league member in the training games."""
        training = captured["training"]
        score, games = training["member_score"].numpy(), training["member_games"].numpy()
        return {
            name: float(score[i] / games[i]) for i, name in enumerate(self.tables.names) if games[i]
        }

    def describe(self) -> str:
        """One line: the games, the network and the device."""
        config = self.config
        text = (
            f"{config.num_envs} league games x {config.rollout_steps} learner decisions per "
            f"update, MLP {list(config.hidden)}, on {self.device}"
        )
        if config.self_play_games:
            text += f", {config.self_play_games} self-play games"
        return text

    def extra_summary(self) -> Record:
        if self.collector is None:
            return {}
        return {"overlap": {"collector_pid": self.collector.pid}}

    def close(self) -> None:
        """Stop the collector process (overlapped training)."""
        if self.collector is not None:
            self.collector.close()

    # --- the games, the league and the self-play games ----------------------------------------

    def play_state(self) -> Record:
        """The games, the league, the self-play games and the league scores (copies)."""
        leagues, games = self.tables.get_state()
        self_play = None
        if self.self_play is not None:
            saved = self.self_play.get_state()
            arrays = {name: _bytes_tensor(array) for name, array in saved["arrays"].items()}
            self_play = {"arrays": arrays, "carry": saved["carry"]}
        return {
            "league": leagues,
            "games": _map_arrays(games, _bytes_tensor),
            "self_play": self_play,
            "member_score": torch.from_numpy(self.member_score.copy()),
            "member_games": torch.from_numpy(self.member_games.copy()),
        }

    def load_play_state(self, training: TrainingRecord | Record) -> None:
        """Take the games, league, self-play games and scores of :meth:`play_state`."""
        self.tables.set_state(training["league"], _map_arrays(training["games"], _array))
        if self.self_play is not None:
            play = training["self_play"]
            assert play is not None  # self_play_games is a fixed key: the saved run had them
            arrays = {k: _array(v) for k, v in play["arrays"].items()}
            self.self_play.set_state({"arrays": arrays, "carry": play["carry"]})
        self.member_score = training["member_score"].numpy().copy()
        self.member_games = training["member_games"].numpy().copy()

    # --- the collector's hand-over (train/ppo_parts/overlap.py) -----------------------------------

    def handover(self, rollout: int) -> Record:
        """What a collector needs to collect from rollout ``rollout`` on (plain data,
        copies): the games, the league, the self-play games, the sampling generator, the
        league scores so far and the weights it collects with (``"behaviour"``)."""
        behaviour = self._behaviour
        if behaviour is None:
            actor, critic = self.networks()
            behaviour = {"actor": _copy(actor.state_dict()), "critic": _copy(critic.state_dict())}
        generator = self.generator.get_state() if self.device.type == "cpu" else None
        return {"rollout": rollout, **self.play_state(), "generator": generator,
                "behaviour": behaviour}  # fmt: skip

    def take_over(self, state: Record) -> None:
        """Become the collector of :meth:`handover`'s data."""
        actor, critic = self.networks()
        actor.load_state_dict(state["behaviour"]["actor"])
        critic.load_state_dict(state["behaviour"]["critic"])
        self.load_play_state(state)
        if state["generator"] is not None:
            self.generator.set_state(state["generator"])
        else:  # handed over from a learner on another device
            self.generator.manual_seed(learner_seed(self.config.seed, state["rollout"]) + 1)
        self.next_obs = self.tables.observe()

    def learner_generator(self) -> None:
        """The learner's generator once the collector samples: the minibatch order's own
        stream (a resumed overlapped run's saved one, else a fresh seed); the hand-over
        weights are the collector's from now on."""
        if self._learner_generator is not None:
            self.generator.set_state(self._learner_generator)
        else:
            self.generator.manual_seed(learner_seed(self.config.seed, self.updates))
        self._behaviour = self._learner_generator = None


def read_checkpoint(path: Path) -> Saved:
    """A ``checkpoint.pt`` for ``--resume``: its config, counters and state."""
    data = checkpoint.read(path)
    training = data.get("training")
    if not isinstance(training, dict):
        raise CheckpointError(
            f"checkpoint {str(path)!r} is a policy file without training state; "
            "--resume needs a checkpoint.pt written by train/ppo.py"
        )
    try:
        config = json.loads(training["config"])
        counters = Counters.from_dict(training["counters"], training.get("evaluations"))
    except (KeyError, TypeError, ValueError) as error:
        raise CheckpointError(
            f"checkpoint {str(path)!r} is not a checkpoint of this kit ({error!r} missing or "
            "unreadable); --resume needs a checkpoint.pt written by train/ppo.py"
        ) from None
    return Saved(path, config, {}, counters, data)


def learner_seed(seed: int, update: int) -> int:
    """The seed of an overlapped run's update generator (minibatch order) from ``update``
    on: a stream apart from the collector's sampling."""
    return seed * 7919 + 7_368_787 + 1_000_003 * update


def _copy(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().clone() for k, v in state.items()}


def _map_arrays(games: Any, convert: Callable[[Any], Any]) -> Any:
    """``convert`` applied to each array of one count's games (a dict) or several's (a list)."""
    if isinstance(games, list):
        return [_map_arrays(group, convert) for group in games]
    return {name: convert(value) for name, value in games.items()}


def _bytes_tensor(array: np.ndarray) -> Record:
    """A numpy array as plain data: raw bytes (uint8 tensor), dtype and shape."""
    raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
    return {"bytes": torch.from_numpy(raw.copy()), "dtype": array.dtype.str,
            "shape": list(array.shape)}  # fmt: skip


def _array(data: Record) -> np.ndarray:
    raw = data["bytes"].numpy()
    return raw.view(np.dtype(data["dtype"])).reshape(data["shape"]).copy()
