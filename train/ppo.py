"""Masked self-play PPO for 101: ``python train/ppo.py`` (defaults: configs/train/ppo.yaml).

    python train/ppo.py [--config FILE] [--resume CHECKPOINT] [--overwrite] [--no-progress]
        [--KEY VALUE ...] [key=value ...]

One file in the manner of CleanRL's ``ppo.py``, in its order: the args (the typed config
of ``train/config.py``), the env setup, the agent, then the algorithm: a rollout of
``rollout_steps`` learner decisions in each of ``num_envs`` games on the batched engine
(:class:`sto_odno_env.envs.learner.LearnerGames`, one learner seat each, the other seats drawn
from a league, :mod:`train.ppo_parts.league`, at every match start), GAE advantages, and ``epochs``
passes of clipped PPO over minibatches. Masks hold everywhere: actions are sampled from the
legal ones only, the update's log-probabilities and entropy are those of the masked
distribution, and evaluation plays the most likely legal action.

**The behaviour policy lags by one update in the default execution.** With ``overlap: true``
(the default) a collector process (``train/ppo_parts/overlap.py``) collects the next rollout while
this process trains on the last, so rollout ``j`` is collected with the weights of update
``j - 2`` -- one update behind the weights (``j - 1``'s) that the update on it starts from
(rollouts 1 and 2 of a fresh run both with the starting weights). A fixed rule, so a run is
deterministic and resumes exactly. The PPO ratio corrects the lag: ``logprobs`` are the
behaviour policy's, stored as the rollout was sampled, so ``ratio = pi_new / pi_behaviour``
is the importance weight from the policy that acted to the one being trained, and the clip
bounds how far one update moves from the policy that acted. The lag shows as a higher
``approx_kl`` and ``clipfrac`` than in one process (``overlap: false``: no lag), which
``train/throughput.py`` measures beside the speed.

The run around the algorithm (the command line, budget, warm start, evaluations, progress,
checkpoints, Ctrl-C, the summary) is ``train/run/session.py``'s; what a checkpoint holds and the
collector's hand-over are ``train/ppo_parts/state.py``'s. Written to ``--out``:
``checkpoint.pt`` (the whole run, for ``--resume``: weights, optimiser, league, counters,
the games in progress and the random state, so a resumed run continues exactly; also a
policy file), ``policy.pt`` (the same update's policy), ``best.pt`` (the best evaluated),
``evaluations.csv``, ``summary.json`` and TensorBoard logs in ``tb/``. A folder that holds
another run is refused (``--resume`` it, give another ``--out``, or ``--overwrite``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np

from sto_odno_env.game.rules import Rules
from sto_odno_env.views.observation import obs_size
from train import deferred_import
from train.config_keys import ConfigError, TrainConfig
from train.ppo_parts.imitation import estimate_seconds, warm_start
from train.ppo_parts.masked import entropy, log_probs, make_networks, sample
from train.ppo_parts.selfplay import SelfPlayGames
from train.ppo_parts.state import PPOCapture, PPOState, read_checkpoint
from train.ppo_parts.tables import Tables, counts_and_sizes
from train.run import session
from train.run.console import Console
from train.run.protocol import Counters, Settings, Spec, Update

if TYPE_CHECKING:
    import torch

    from train.ppo_parts.overlap import Collector
else:  # loaded on first use, so that a bad command line fails before torch's seconds of loading
    torch = deferred_import("torch")

# --- args ------------------------------------------------------------------------------------
# The typed config, train/config.py's TrainConfig: every key is a flag (python train/ppo.py
# --help), read from configs/train/ppo.yaml, a resumed checkpoint and the command line by
# train/run/session.py, whose Spec for this trainer is SPEC at the end of this file.


# --- env setup -------------------------------------------------------------------------------


def make_envs(
    config: TrainConfig, rules: Rules, actor: torch.nn.Module, device: torch.device
) -> tuple[Tables, SelfPlayGames | None]:
    """The league games (one learner seat each, the league holding the current ``actor``
    in the others; at each count of ``players_mix``, train/ppo_parts/tables.py) and the self-play
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


class PPO(PPOState):
    """One PPO run: the env setup, the agent, the optimiser and the rollout storage; one
    :meth:`train` call is one update (rollout, GAE, update). ``train/run/session.py`` drives it;
    what it saves and restores is :class:`train.ppo_parts.state.PPOState`'s."""

    interruptible = True  # every update's end is captured, so a signal may cut one short

    def __init__(self, settings: Settings):
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
        # overlapped training (train/ppo_parts/overlap.py): the collector process, started at the
        # first update
        self.collector = None
        self.updates = settings.saved.counters.update if settings.saved is not None else 0
        if settings.saved is not None:
            self.restore(settings.saved)

    @property
    def batch_size(self) -> int:
        """Decisions one update trains on: the learner's in the league games, and every
        seat's in the self-play games."""
        config = self.config
        return config.rollout_steps * (config.num_envs + config.self_play_games)

    def networks(self) -> tuple[torch.nn.Module, torch.nn.Module]:
        """The actor and the critic."""
        return self.agent.actor, self.agent.critic

    def train(self, counters: Counters) -> Update:
        """One update: the rollout, GAE, and the PPO update of the agent (``overlap``: the
        update of the rollout the collector process finished, :meth:`train_overlapped`)."""
        if self.config.overlap:
            return self.train_overlapped(counters)
        episodes, self_play, advantages, returns = self.collect()
        global_step = counters.global_step + self.batch_size
        stats = self.update(advantages, returns, self_play, global_step)
        update = counters.update + 1
        if update % self.config.league.snapshot_every == 0:
            self.tables.add_snapshot(update)
        self.updates = update
        return Update(self.batch_size, episodes, stats)

    def collect(self) -> tuple[int, dict[str, torch.Tensor] | None, torch.Tensor, torch.Tensor]:
        """A rollout into the storage, the self-play games' rows, and GAE: the learner
        matches that ended, the self-play rows, the advantages and the returns."""
        episodes = self.rollout()
        self_play = self.self_play_rollout()
        advantages, returns = self.gae()
        return episodes, self_play, advantages, returns

    def use_storage(self, tensors: dict[str, torch.Tensor]) -> None:
        """Collect into, or update from, ``tensors`` (a shared rollout buffer of
        train/ppo_parts/overlap.py) instead of this trainer's own storage."""
        for name in ("obs", "masks", "actions", "logprobs", "values"):
            setattr(self, name, tensors[name])

    def league_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's score and games against each league member so far (copies)."""
        return self.member_score.copy(), self.member_games.copy()

    def network_tensors(self) -> list[torch.Tensor]:
        """The actor's then the critic's state-dict tensors (views: what a collector copies)."""
        return [*self.agent.actor.state_dict().values(), *self.agent.critic.state_dict().values()]

    def train_overlapped(self, counters: Counters) -> Update:
        """One update on the rollout the collector collected (with the weights of two
        updates ago: the module docstring) while the last update ran; the collector goes
        on with the next."""
        collector = self.collector if self.collector is not None else self.start_collector()
        index = counters.update + 1
        rollout = collector.rollout(index)
        self.use_storage(rollout.tensors)  # the same update code as in one process
        self.member_score, self.member_games = rollout.member_score, rollout.member_games
        global_step = counters.global_step + self.batch_size
        stats = self.update(
            rollout.tensors["advantages"], rollout.tensors["returns"], rollout.self_play,
            global_step,
        )  # fmt: skip
        collector.finished(index, self.network_tensors())
        self.updates = index
        return Update(self.batch_size, rollout.episodes, stats)

    def start_collector(self) -> Collector:
        """Hand the games, the league and the sampling generator to a collector process,
        which collects from the next rollout on; the update's minibatch order gets a
        generator of its own. Returns the collector (also :attr:`collector`)."""
        state = self.handover(self.updates + 1)
        self.learner_generator()
        from train.ppo_parts import overlap  # imports torch: not before the command line is checked

        shapes = (self.config.rollout_steps, self.config.num_envs, self.obs_size, self.num_actions)
        self.collector = overlap.Collector(
            self.config, self.rules, state, self.network_tensors(), shapes, type(self)
        )
        return self.collector

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
        chain of decisions: train/ppo_parts/selfplay.py), or None."""
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

    # --- the warm start (train/ppo_parts/imitation.py) --------------------------------------------

    def warm_start(self, console: Console) -> dict[str, float]:
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


def _device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            "device=cuda is not allowed here: torch sees no CUDA device; allowed: cpu, auto"
        )
    return torch.device(name)


# --- the command line: train/run/session.py runs the trainer --------------------------------------


SPEC: Spec[PPOCapture] = Spec(
    prog="python train/ppo.py",
    description="Masked self-play PPO for 101 against a league (defaults: configs/train/ppo.yaml).",
    checkpoint="runs/ppo/checkpoint.pt",
    build=lambda settings, console: PPO(settings),
    read_checkpoint=read_checkpoint,
    outputs="checkpoint.pt, policy.pt, best.pt, evaluations.csv, summary.json, tb/",
)


def main(argv: list[str] | None = None) -> int:
    return session.main(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
