"""Warm start by imitation: before PPO, the policy copies a bot and the value network
learns what the bot's positions are worth.

The bot (``warm_start``, e.g. ``expert``) plays every seat of ``num_envs`` games on the
batched engine for ``warm_start_decisions`` decisions. Every decision is kept (the seat's
observation, its legal actions, the bot's action) with its discounted match reward,
``gamma ** (decisions the seat still made) * reward``, once the match ends. The actor then
minimises the cross-entropy of the bot's action under the masked distribution and the
critic the squared error to that return, for ``warm_start_epochs`` passes.

PPO starts from there rather than from random play: the bot's whole strategy is in the
weights within a minute, and RL has to find only what the bot gets wrong.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from sto_odno_env.bots.registry import load as load_agent
from sto_odno_env.game import engine
from sto_odno_env.game.rules import Rules
from sto_odno_env.views.observation import obs_size, observe
from train.config_keys import LEAGUE_BOTS, TrainConfig
from train.ppo_parts.masked import entropy, log_probs, widen_into, widens

if TYPE_CHECKING:
    from torch import nn

    from train.run.console import Console

SAMPLE_STEPS = 16  # engine steps of the bot's games that the time estimate measures


def bot_decisions(
    teacher: Any,
    rules: Rules,
    players: int,
    batch: int,
    decisions: int,
    seed: int,
    gamma: float,
    progress: Callable[[int], None] | None = None,
) -> dict[str, torch.Tensor]:
    """``decisions`` decisions of ``teacher`` in every seat (rounded up to whole steps of
    ``batch`` games), with their discounted returns (``returns`` is NaN where the match had
    not ended when collection stopped); ``progress`` gets the decisions of each step."""
    steps = -(-decisions // batch)
    size = steps * batch
    obs = np.zeros((size, obs_size(rules)), dtype=np.float32)
    masks = np.zeros((size, rules.num_actions), dtype=bool)
    actions = np.zeros(size, dtype=np.int64)
    sample_match = np.zeros(size, dtype=np.int64)  # match number of each decision
    sample_seat = np.zeros(size, dtype=np.int64)
    sample_rank = np.zeros(size, dtype=np.int64)  # the seat's decisions before this one
    games = np.arange(batch)
    match_of_game = games.copy()  # match numbers: game b plays b, then next_match...
    next_match = batch
    counts = np.zeros((batch, players), dtype=np.int64)
    earned = np.zeros((batch, players), dtype=np.float64)
    final_reward: dict[int, np.ndarray] = {}
    final_count: dict[int, np.ndarray] = {}
    state = engine.init(rules, players, batch, seed=seed)
    for step in range(steps):
        rows = slice(step * batch, (step + 1) * batch)
        seats = state.current_player.astype(np.intp)
        obs[rows] = observe(state, seats)
        legal = engine.legal_mask(state)
        masks[rows] = legal != 0
        actions[rows] = teacher.act(obs[rows], legal)
        sample_match[rows] = match_of_game
        sample_seat[rows] = seats
        sample_rank[rows] = counts[games, seats]
        counts[games, seats] += 1
        state, rewards, done = engine.step(state, actions[rows], auto_reset=True)
        earned += rewards
        for game in np.flatnonzero(done).tolist():
            final_reward[int(match_of_game[game])] = earned[game].copy()
            final_count[int(match_of_game[game])] = counts[game].copy()
            earned[game] = 0.0
            counts[game] = 0
            match_of_game[game] = next_match
            next_match += 1
        if progress is not None:
            progress(batch)
    ended_reward = np.full((next_match, players), np.nan)
    ended_count = np.zeros((next_match, players), dtype=np.int64)
    for match, reward in final_reward.items():
        ended_reward[match] = reward
        ended_count[match] = final_count[match]
    remaining = ended_count[sample_match, sample_seat] - 1 - sample_rank
    returns = ended_reward[sample_match, sample_seat] * gamma ** np.maximum(remaining, 0)
    returns = returns.astype(np.float32)
    return {
        "obs": torch.from_numpy(obs),
        "masks": torch.from_numpy(masks),
        "actions": torch.from_numpy(actions),
        "returns": torch.from_numpy(returns),
    }


def imitate(
    actor: nn.Module,
    critic: nn.Module,
    data: dict[str, torch.Tensor],
    epochs: int,
    minibatch: int,
    learning_rate: float,
    generator: torch.Generator,
    device: torch.device,
    progress: Callable[[int, str], None] | None = None,
    fit_actor: bool = True,
) -> dict[str, float]:
    """Fit the actor to the bot's actions (unless ``fit_actor`` is false) and the critic
    to the returns; returns the last epoch's mean cross-entropy, value error, agreement
    with the bot and entropy. ``progress`` gets the rows of each minibatch and the epoch
    ("epoch 2/3")."""
    fitted = [*actor.parameters(), *critic.parameters()] if fit_actor else critic.parameters()
    optimizer = torch.optim.Adam(fitted, lr=learning_rate)
    size = data["actions"].shape[0]
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        # drawn where the generator lives (cuda or cpu); the data stays on the cpu
        order = torch.randperm(size, generator=generator, device=generator.device).cpu()
        totals = {"cross_entropy": 0.0, "value_loss": 0.0, "agreement": 0.0, "entropy": 0.0}
        batches = 0
        for start in range(0, size, minibatch):
            rows = order[start : start + minibatch]
            obs = data["obs"][rows].to(device)
            masks = data["masks"][rows].to(device)
            actions = data["actions"][rows].to(device)
            returns = data["returns"][rows].to(device)
            with torch.set_grad_enabled(fit_actor):
                logp = log_probs(actor(obs), masks)
            cross_entropy = -logp.gather(1, actions[:, None]).mean()
            known = ~torch.isnan(returns)
            values = critic(obs).squeeze(-1)
            # a minibatch whose matches have none ended yet has no value target (0, not 0/0)
            squared = (values - torch.nan_to_num(returns)) ** 2 * known
            value_loss = squared.sum() / known.sum().clamp(min=1)
            loss = cross_entropy * fit_actor + 0.5 * value_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                totals["cross_entropy"] += float(cross_entropy)
                totals["value_loss"] += float(value_loss)
                totals["agreement"] += float((logp.argmax(1) == actions).float().mean())
                totals["entropy"] += float(entropy(logp, masks).mean())
            batches += 1
            if progress is not None:
                progress(len(rows), f"epoch {epoch + 1}/{epochs}")
        stats = {key: value / batches for key, value in totals.items()}
    return stats


def teacher_of(
    config: TrainConfig, rules: Rules, players: int, actor: nn.Module
) -> tuple[Any, bool]:
    """The warm start's teacher at ``players`` and whether the actor imitates it: a bot
    (the actor learns its moves), or a policy whose weights ``actor`` now holds (only the
    critic learns; a policy for another rule set of the same sizes is allowed, so that a
    preset can start from another's policy)."""
    if config.warm_start in LEAGUE_BOTS:
        return load_agent(config.warm_start, rules, players, seed=config.seed), True
    from sto_odno_env.bots.checkpoint import CheckpointError, TorchPolicyAgent, read
    from sto_odno_env.bots.names import policy_path

    path = policy_path(config.warm_start, players)  # ppo-classic: its file at this count
    record = read(path)
    layers = list(actor.children())[:-1]  # the actor's MLP, less its output layer
    widths = [layer.out_features for layer in layers if isinstance(layer, torch.nn.Linear)]
    hidden = list(record["hidden"])
    if not widens(hidden, widths) or record["obs_size"] != obs_size(rules):
        raise CheckpointError(
            f"warm_start={config.warm_start!r} is a network of {record['obs_size']} inputs and "
            f"widths {hidden}; this run's has {obs_size(rules)} and {widths}: allowed: a "
            "policy of the run's sizes (set hidden to the policy's widths, or wider at the "
            "same depth: the policy is widened keeping its play)"
        )
    if hidden == widths:
        actor.load_state_dict(record["state_dict"])
    else:
        widen_into(actor, record["state_dict"])
    return TorchPolicyAgent(copy.deepcopy(actor)), False


def warm_start(
    config: TrainConfig,
    rules: Rules,
    counts: list[tuple[int, int]],
    actor: nn.Module,
    critic: nn.Module,
    generator: torch.Generator,
    device: torch.device,
    console: Console,
) -> dict[str, float]:
    """The warm start of a training config: collect the ``warm_start`` teacher's decisions
    at each (players, games) of ``counts`` (the decisions shared as the games are) and fit
    ``actor`` and ``critic`` to them (see the module docstring), with the progress of both
    on ``console``."""
    batch = config.num_envs
    shares = _shares(config, counts)
    rows = sum(-(-share // batch) * batch for share in shares)
    parts = []
    with console.bar("warm start: collecting", rows, "decisions") as bar:
        for index, ((players, _), share) in enumerate(zip(counts, shares, strict=True)):
            teacher, fit_actor = teacher_of(config, rules, players, actor)
            parts.append(
                bot_decisions(
                    teacher,
                    rules,
                    players,
                    batch,
                    share,
                    config.seed + 7 + 1_000_003 * index,
                    config.gamma,
                    bar.advance,
                )
            )
    data = {key: torch.cat([part[key] for part in parts]) for key in parts[0]}
    epochs = config.warm_start_epochs
    with console.bar("warm start: fitting", rows * epochs, "decisions") as bar:
        return imitate(
            actor, critic, data, epochs, config.minibatch_size, config.learning_rate,
            generator, device, bar.advance, fit_actor=fit_actor,
        )  # fmt: skip


def _shares(config: TrainConfig, counts: list[tuple[int, int]]) -> list[int]:
    """The warm start's decisions at each count, in proportion to its games."""
    total = sum(games for _, games in counts)
    return [max(1, config.warm_start_decisions * games // total) for _, games in counts]


def estimate_seconds(
    config: TrainConfig,
    rules: Rules,
    counts: list[tuple[int, int]],
    actor: nn.Module,
    critic: nn.Module,
    device: torch.device,
) -> float:
    """The warm start's time on this machine, measured before it starts: a few steps of
    the teacher's games at the first count and a pass of fitting over them (on copies of
    the networks, with their own random streams, so the run itself is not touched),
    scaled to the whole."""
    players = counts[0][0]
    teacher, fit_actor = teacher_of(config, rules, players, copy.deepcopy(actor))
    batch = config.num_envs
    steps = sum(-(-share // batch) for share in _shares(config, counts))
    sample = min(steps, SAMPLE_STEPS)
    started = time.perf_counter()
    data = bot_decisions(
        teacher, rules, players, batch, sample * batch, config.seed + 7, config.gamma
    )
    collecting = (time.perf_counter() - started) / sample * steps
    if not config.warm_start_epochs:
        return collecting
    started = time.perf_counter()
    imitate(
        copy.deepcopy(actor), copy.deepcopy(critic), data, 1, config.minibatch_size,
        config.learning_rate, torch.Generator().manual_seed(0), device, fit_actor=fit_actor,
    )  # fmt: skip
    fitting = (time.perf_counter() - started) / sample * steps * config.warm_start_epochs
    return collecting + fitting
