"""The self-play league: who sits in each opponent seat of each training game.

Members: the policy being trained (``current``), frozen snapshots of it taken every K
updates (slots filled in turn, the oldest replaced once ``max_snapshots`` are held), and the
heuristic bots of ``agents``. At every match start each opponent seat of the game draws a
member with the config's weights (``snapshots`` is shared evenly among the snapshots held;
before the first snapshot its weight goes to ``current``). A game whose slot is refilled
mid-match plays on against the newer snapshot.

The league is a *table of opponents* for :class:`sto_odno_env.envs.learner.LearnerGames`: one
batched call per member per round of moves, for all the games and seats that member plays.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import torch

from sto_odno_env.bots.registry import load as load_agent
from sto_odno_env.game.rules import Rules
from train.config_keys import LEAGUE_BOTS, LeagueConfig
from train.ppo_parts.masked import sample

if TYPE_CHECKING:
    from torch import nn


@runtime_checkable
class _Seeded(Protocol):
    """A league bot that draws from a generator of its own (the checkpoint keeps its state)."""

    generator: np.random.Generator


class NetworkPlayer:
    """A policy network that samples its moves (as the learner does while collecting)."""

    def __init__(self, network: nn.Module, generator: torch.Generator, device: torch.device):
        self.network = network
        self.generator = generator
        self.device = device

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            obs = torch.as_tensor(observations, device=self.device)
            legal = torch.as_tensor(masks, device=self.device) != 0
            actions, _ = sample(self.network(obs), legal, self.generator)
        return actions.cpu().numpy()


class League:
    """Opponents drawn per game and seat at match start (see the module docstring)."""

    def __init__(
        self,
        weights: LeagueConfig,
        rules: Rules,
        players: int,
        batch: int,
        current: nn.Module,
        seed: int,
        device: torch.device,
    ):
        self.players = players
        self.device = device
        self.max_snapshots = weights.max_snapshots
        self.generator = torch.Generator(device=device)
        self.reseed(seed)
        self.current = current
        self.snapshots = [copy.deepcopy(current).eval() for _ in range(self.max_snapshots)]
        for snapshot in self.snapshots:
            snapshot.requires_grad_(False)
        self.filled = 0  # snapshot slots holding a snapshot
        self.next_slot = 0
        self.snapshot_updates: list[int] = [-1] * self.max_snapshots
        self.bots = {name: load_agent(name, rules, players, seed=seed) for name in LEAGUE_BOTS}
        self.names = (
            ["current"] + [f"snapshot-{i}" for i in range(self.max_snapshots)] + list(LEAGUE_BOTS)
        )
        players_of = [NetworkPlayer(current, self.generator, device)]
        players_of += [NetworkPlayer(net, self.generator, device) for net in self.snapshots]
        self.members = players_of + [self.bots[name] for name in LEAGUE_BOTS]
        self.weight_current = weights.current
        self.weight_snapshots = weights.snapshots
        self.weight_bots = [getattr(weights, name) for name in LEAGUE_BOTS]
        self.assign = np.zeros((batch, players - 1), dtype=np.int16)
        self.pinned: int | None = None  # the member in every opponent seat (pin)

    def reseed(self, seed: int, index: int | None = None) -> None:
        """The league's random streams (opponent draws, the networks' sampling) for
        ``seed``; ``index`` gives each of several copies of the league (RLlib's env
        runners) streams of its own."""
        if index is None:
            self.rng = np.random.default_rng([seed, 0x1EA6])
            self.generator.manual_seed(seed * 7919 + 17)
        else:
            self.rng = np.random.default_rng([seed, index, 0x1EA6])
            self.generator.manual_seed(seed * 7919 + 17 + 104_729 * index)

    # --- membership -----------------------------------------------------------------------

    def pin(self, agent: Any, name: str) -> None:
        """Seat ``agent`` in every opponent seat of every game from now on, the league's
        draws aside (``train/exploit.py``: the frozen candidate a best response trains
        against). It takes the last bot's member slot, so per-member counts keep their
        size, and the summary's league scores show it as ``name``."""
        slot = len(self.members) - 1
        self.members[slot] = agent
        self.names[slot] = name
        self.pinned = slot
        self.assign[...] = slot

    def probabilities(self) -> np.ndarray:
        """Each member's chance to take an opponent seat at a match start."""
        weights = np.zeros(len(self.members))
        if self.pinned is not None:
            weights[self.pinned] = 1.0
            return weights
        weights[0] = self.weight_current
        if self.filled:
            weights[1 : 1 + self.filled] = self.weight_snapshots / self.filled
        else:
            weights[0] += self.weight_snapshots
        weights[1 + self.max_snapshots :] = self.weight_bots
        return weights / weights.sum()

    def add_snapshot(self, update: int) -> None:
        """Freeze a copy of the current policy into the next slot."""
        slot = self.next_slot
        self.snapshots[slot].load_state_dict(self.current.state_dict())
        self.snapshot_updates[slot] = update
        self.next_slot = (slot + 1) % self.max_snapshots
        self.filled = min(self.filled + 1, self.max_snapshots)

    # --- the LearnerGames table protocol --------------------------------------------------

    def start_matches(self, games: np.ndarray) -> None:
        """Draw the opponents of ``games`` for their new matches."""
        draws = self.rng.choice(
            len(self.members), size=(len(games), self.players - 1), p=self.probabilities()
        )
        self.assign[games] = draws

    def act_games(
        self,
        games: np.ndarray,
        positions: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> np.ndarray:
        """The moves of the opponents to act in ``games`` (one call per member)."""
        members = self.assign[games, positions - 1]
        actions = np.empty(len(games), dtype=np.int64)
        for member in np.unique(members).tolist():
            rows = np.flatnonzero(members == member) if members.size > 1 else slice(None)
            actions[rows] = self.members[member].act(observations[rows], masks[rows])
        return actions

    # --- saving a run ---------------------------------------------------------------------

    def get_state(self) -> dict[str, Any]:
        """Plain data for a checkpoint (tensors, ints, strings)."""
        bot_rngs = {
            name: json.dumps(bot.generator.bit_generator.state)
            for name, bot in self.bots.items()
            if isinstance(bot, _Seeded)
        }
        snapshots = self.snapshots_state()
        return {
            "assign": torch.from_numpy(self.assign.copy()),
            "rng": json.dumps(self.rng.bit_generator.state),
            "generator": self.generator.get_state(),
            "snapshots": snapshots["weights"],
            "snapshot_updates": snapshots["updates"],
            "filled": snapshots["filled"],
            "next_slot": snapshots["next_slot"],
            "bot_rngs": bot_rngs,
        }

    def snapshots_state(self) -> dict[str, Any]:
        """The snapshots and their bookkeeping (copies), to load into another copy of the
        league with :meth:`load_snapshots`."""
        return {
            "weights": [
                {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
                for net in self.snapshots
            ],
            "updates": list(self.snapshot_updates),
            "filled": self.filled,
            "next_slot": self.next_slot,
        }

    def load_snapshots(self, data: dict[str, Any]) -> None:
        """The snapshots of :meth:`snapshots_state`."""
        for net, weights in zip(self.snapshots, data["weights"], strict=True):
            net.load_state_dict(weights)
        self.snapshot_updates = list(data["updates"])
        self.filled = int(data["filled"])
        self.next_slot = int(data["next_slot"])

    def set_state(self, data: dict[str, Any]) -> None:
        """Restore :meth:`get_state`'s data."""
        if len(data["snapshots"]) != self.max_snapshots:
            raise ValueError(
                f"the checkpoint's league holds {len(data['snapshots'])} snapshot slots; "
                f"this config has league.max_snapshots={self.max_snapshots}"
            )
        saved = data["assign"].numpy()
        if saved.shape != self.assign.shape:
            raise ValueError(
                f"the checkpoint's league seats {saved.shape[0]} games of "
                f"{saved.shape[1] + 1} players; this run has {self.assign.shape[0]} of "
                f"{self.players}"
            )
        self.assign[...] = saved
        self.rng.bit_generator.state = json.loads(data["rng"])
        self.generator.set_state(data["generator"])
        self.load_snapshots(
            {
                "weights": data["snapshots"],
                "updates": data["snapshot_updates"],
                "filled": data["filled"],
                "next_slot": data["next_slot"],
            }
        )
        for name, state in data["bot_rngs"].items():
            bot = self.bots[name]
            if not isinstance(bot, _Seeded):
                raise ValueError(f"the checkpoint seeds league bot {name!r}, which draws nothing")
            bot.generator.bit_generator.state = json.loads(state)
