"""Self-play games whose every decision trains: the current policy plays every seat.

In a league game (:class:`~sto_odno_env.envs.learner.LearnerGames`) only the learner's seat
trains; when the league puts the current policy in the other seats, their decisions are
computed and thrown away. :class:`SelfPlayGames` keeps them: B games stepped on the engine
with the current policy to act in every seat, each decision a training row for the seat that
made it (``self_play_games`` in the training config; docs/training.md has the experiment).

Each seat of each game is its own trajectory. A decision's reward is what its seat earned
until its next decision (or the match's end), and GAE follows each seat's own chain of
decisions. A seat's last decision of a rollout has no successor yet: it is carried into the
next rollout and trained there, so no value is bootstrapped from an observation taken while
another seat is to act.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from sto_odno_env.envs.learner import engine_arrays, restore_engine_arrays
from sto_odno_env.game import engine, rng
from sto_odno_env.game.rules import Rules
from sto_odno_env.views.observation import obs_size, observe
from train.ppo_parts.masked import sample

_ROW_KEYS = ("obs", "masks", "actions", "logp", "values")


class SelfPlayGames:
    """``batch`` games with the current policy in every seat (see the module docstring)."""

    def __init__(self, rules: Rules, players: int, batch: int, seed: int, reward: str):
        self.rules = rules
        self.players = players
        self.batch = batch
        self.reward_mode = reward
        self.num_actions = rules.num_actions
        self.obs_size = obs_size(rules)
        # Another stream than the league games' (same seed): these are other deals.
        self.state = engine.init(rules, players, batch, seeds=rng.game_seeds(seed + 7919, batch))
        self.pending = np.zeros((batch, players), dtype=np.float32)  # rewards since last move
        self.carry = self._empty_rows(0)  # last decisions of the seats, waiting for successors
        self.carry_slot = np.full((batch, players), -1, dtype=np.int64)  # row in carry, or -1

    def _empty_rows(self, count: int) -> dict[str, torch.Tensor]:
        return {
            "obs": torch.zeros((count, self.obs_size)),
            "masks": torch.zeros((count, self.num_actions), dtype=torch.bool),
            "actions": torch.zeros(count, dtype=torch.long),
            "logp": torch.zeros(count),
            "values": torch.zeros(count),
        }

    def collect(
        self,
        actor: torch.nn.Module,
        critic: torch.nn.Module,
        steps: int,
        generator: torch.Generator,
        device: torch.device,
        gamma: float,
        gae_lambda: float,
    ) -> dict[str, torch.Tensor]:
        """Play ``steps`` decisions in every game; return the rows that can train now (flat:
        obs, masks, actions, logp, values, advantages, returns), including the rows carried
        from the last rollout whose successors are now known."""
        state, B = self.state, self.batch
        carried = int(self.carry["actions"].shape[0])
        total = carried + steps * B
        rows = self._empty_rows(total)
        for key in _ROW_KEYS:
            rows[key][:carried] = self.carry[key]
        reward = np.zeros(total, dtype=np.float32)
        ended = np.zeros(total, dtype=bool)  # the match ended before the seat's next move
        successor = np.full(total, -1, dtype=np.int64)
        last = self.carry_slot.copy()  # (B, P) each seat's latest row, or -1
        games = np.arange(B)
        for step in range(steps):
            seats = state.current_player.astype(np.intp)
            observations = torch.from_numpy(observe(state))
            masks = torch.from_numpy(engine.legal_mask(state)) != 0
            with torch.no_grad():
                obs_device = observations.to(device)
                actions, logp = sample(actor(obs_device), masks.to(device), generator)
                values = critic(obs_device).squeeze(-1)
            here = carried + step * B + games
            rows["obs"][here] = observations
            rows["masks"][here] = masks
            rows["actions"][here] = actions.cpu()
            rows["logp"][here] = logp.cpu()
            rows["values"][here] = values.cpu()
            previous = last[games, seats]
            linked = previous >= 0
            successor[previous[linked]] = here[linked]
            reward[previous[linked]] += self.pending[games[linked], seats[linked]]
            self.pending[games, seats] = 0.0
            last[games, seats] = here
            in_before = state.in_match.copy()
            _, rewards, done = engine.step(state, actions.cpu().numpy(), auto_reset=True)
            self.pending += rewards
            if self.reward_mode == "round":
                self.pending -= self._round_points(in_before)
            finished = np.flatnonzero(done)
            if finished.size:
                latest = last[finished]  # (G, P) rows of the seats of the finished matches
                moved = latest >= 0
                reward[latest[moved]] += self.pending[finished][moved]
                ended[latest[moved]] = True
                last[finished] = -1
                self.pending[finished] = 0.0
        closed = ended | (successor >= 0)
        advantages = self._gae(
            rows["values"].numpy(), reward, ended, successor, gamma, gae_lambda, carried, B
        )
        self._keep_open(rows, last)
        trained = {key: value[torch.from_numpy(closed)] for key, value in rows.items()}
        trained["advantages"] = torch.from_numpy(advantages[closed])
        trained["returns"] = trained["advantages"] + trained["values"]
        return trained

    def _round_points(self, in_before: np.ndarray) -> np.ndarray:
        """The round-reward shaping of LearnerGames: -points/target at each round's end for
        the seats that were in it."""
        state = self.state
        seats = np.arange(self.players)
        was_in = (in_before.astype(np.intp)[:, None] >> seats) & 1 == 1
        ended = (state.rounds_ended > 0)[:, None] & was_in
        return np.where(ended, state.round_points / self.rules.target, 0.0).astype(np.float32)

    @staticmethod
    def _gae(
        values: np.ndarray,
        reward: np.ndarray,
        ended: np.ndarray,
        successor: np.ndarray,
        gamma: float,
        gae_lambda: float,
        carried: int,
        batch: int,
    ) -> np.ndarray:
        """GAE(λ) along each seat's chain of decisions. A row's successor is in a later
        step's block, so the blocks are done last to first, then the carried rows."""
        advantages = np.zeros(values.shape[0], dtype=np.float32)
        total = values.shape[0]
        starts = [*range(total - batch, carried - 1, -batch), 0]
        stops = [*range(total, carried, -batch), carried]
        for start, stop in zip(starts, stops, strict=True):
            rows = np.arange(start, stop)
            following = successor[rows]
            linked = (following >= 0) & ~ended[rows]
            after = np.where(linked, following, 0)
            going_on = linked.astype(np.float32)
            delta = reward[rows] + gamma * going_on * values[after] - values[rows]
            advantage = delta + gamma * gae_lambda * going_on * advantages[after]
            # A seat's open decision (no successor yet) counts 0 here, as a rollout's end
            # does in plain GAE: its predecessor bootstraps from its value alone.
            advantages[rows] = np.where(linked | ended[rows], advantage, 0.0)
        return advantages

    def _keep_open(self, rows: dict[str, torch.Tensor], last: np.ndarray) -> None:
        """Carry each seat's latest decision into the next rollout."""
        games, seats = np.nonzero(last >= 0)
        index = torch.from_numpy(last[games, seats])
        self.carry = {key: rows[key][index].clone() for key in _ROW_KEYS}
        self.carry_slot = np.full((self.batch, self.players), -1, dtype=np.int64)
        self.carry_slot[games, seats] = np.arange(games.size)

    # --- saving a run ---------------------------------------------------------------------

    def get_state(self) -> dict[str, Any]:
        """The games, the rewards not yet credited and the carried rows, as plain data."""
        arrays = engine_arrays(self.state)
        arrays["pending"] = self.pending.copy()
        arrays["carry_slot"] = self.carry_slot.copy()
        carry = {key: value.clone() for key, value in self.carry.items()}
        return {"arrays": arrays, "carry": carry}

    def set_state(self, data: dict[str, Any]) -> None:
        """Restore what :meth:`get_state` returned (on games built with the same settings)."""
        restore_engine_arrays(self.state, data["arrays"])
        self.pending[...] = data["arrays"]["pending"]
        self.carry_slot[...] = data["arrays"]["carry_slot"]
        self.carry = {key: value.clone() for key, value in data["carry"].items()}
