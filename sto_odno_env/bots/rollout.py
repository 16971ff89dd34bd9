"""A search bot: determinised rollouts to the end of the round in the batched engine.

For each decision, :class:`RolloutAgent` samples ``samples`` deals of the hidden cards that
agree with everything the seat has seen (:func:`sto_odno_env.views.determinise.from_observations`),
tries every legal action in each, and plays the rest of the round with a default policy
(the expert bot by default) for every seat. It starts from the default policy's own
choice and switches to another action only when that action's outcome is better in the
same sampled deals by more than ``margin`` standard errors of the paired difference (a
policy improvement step that noise cannot talk it out of). A quarter of the samples is
drawn first; the rest only for decisions where some action may still beat the default
choice. The outcome, for the deciding seat:

* its match reward, when the round decides its place (elimination or match end);
* plus the points the others scored this round minus its own (after the exact-target
  reset), divided by the target: the round's outcome relative to the table;
* a rollout cut at ``horizon`` decisions counts the points left in the hands instead.

With ``outcome="standing"`` the outcome is the match reward expected from the standings
instead, for a seat still in: linear in place, as the match reward is, with each other
seat outlasted with probability ``room₀² / (room₀² + roomⱼ²)`` (room: the target minus
the total, after the round or with the hands' points added at a cut), and every seat
already out counted as outlasted. Where the round's points relative to the table weigh
every opponent alike, this weighs the ones close to the target less and scores the
finishing order that decides first place.

With ``outcome="value"`` the default policy's critic values the rollout instead (a
policy file shipped with its value network, ``TorchPolicyAgent.value_network``): at the
round's end or the cut, seat 0's expected return as the critic sees it from seat 0's own
observation of the sampled deal, under the reward the critic was trained on; a place
decided within the rollout counts as that reward pays it (``reward="first"``: +1 for first
place alone, −1/(P−1) otherwise). A first-place critic scores the standings that decide
the match, which the table outcome only approximates by the round's points.

All rollouts of all games in the batch run together in one engine batch, so the cost per
decision is ``samples × legal actions`` games for ``horizon`` steps at most.
"""

from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from ..game import engine
from ..game.rewards import first_place
from ..game.rules import Rules, load_rules
from ..views.determinise import from_observations
from ..views.observation import observe, policy_actions
from .policy import BasePolicy, as_policy

OUTCOMES = ("table", "standing", "value")


class _Critic(Protocol):
    """A rollout policy shipped with its value network (``TorchPolicyAgent``)."""

    value_reward: str

    def values(self, observations: np.ndarray) -> np.ndarray: ...


class RolloutAgent(BasePolicy):
    """Determinised rollouts (see the module docstring). Budget: ``samples`` deals per
    decision, each legal action tried in each, rollouts cut after ``horizon`` decisions."""

    name = "rollout"

    def __init__(
        self,
        rules: Rules | str = "classic",
        players: int | None = None,
        samples: int = 32,
        horizon: int = 24,
        default_policy: object | None = None,
        seed: int | None = 0,
        margin: float = 1.5,
        outcome: str = "table",
    ):
        from .heuristic import ExpertAgent

        if samples < 1 or horizon < 1:
            raise ValueError(f"samples and horizon must be >= 1, got {samples}, {horizon}")
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
        self.outcome = outcome
        self.rules = load_rules(rules)
        self.samples = samples
        self.horizon = horizon
        self.margin = margin
        self.default_policy = as_policy(default_policy or ExpertAgent(self.rules))
        if outcome == "value" and getattr(self.default_policy, "value_network", None) is None:
            raise ValueError(
                "outcome value needs a rollout policy shipped with its value network "
                "(a policy file with a critic, such as ppo-classic-first); "
                f"{getattr(self.default_policy, 'name', 'this policy')!r} has none"
            )
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        self.generator = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        observations = np.atleast_2d(observations)
        masks = np.asarray(masks) > 0
        choice = np.argmax(masks, axis=1)  # games with one legal action keep it
        deciding = np.flatnonzero(masks.sum(axis=1) > 1)
        if not deciding.size:
            return choice
        sub_obs, sub_masks = observations[deciding], masks[deciding]
        baseline = np.asarray(self.default_policy.act(sub_obs, sub_masks.astype(np.int8)))
        # A quarter of the samples first; the rest only where another action might still
        # beat the baseline (its mean gain plus one standard error is above zero).
        first = max(2, self.samples // 4)
        totals = self._paired_gains(sub_obs, sub_masks, baseline, first)
        mean, error = _mean_error(*totals)
        undecided = np.flatnonzero((mean + error > 0).any(axis=1))
        if undecided.size and self.samples > first:
            more = self._paired_gains(
                sub_obs[undecided], sub_masks[undecided], baseline[undecided], self.samples - first
            )
            for total, extra in zip(totals, more, strict=True):
                total[undecided] += extra
            mean, error = _mean_error(*totals)
        choice[deciding] = self._decide(mean, error, baseline)
        return choice

    def action_values(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What the search knows of each legal action, over all ``samples`` deals (no early
        stop): ``(choice, baseline, gain, error)``, where ``gain`` and ``error`` (n, A) are
        each action's mean outcome gain over the default policy's ``baseline`` action in
        the same sampled deals and its standard error (0 for illegal actions), and
        ``choice`` is the action the search's rule picks from them. Every row must have
        more than one legal action. For targets a network can fit (expert iteration)."""
        observations = np.atleast_2d(observations)
        masks = np.asarray(masks) > 0
        if not (masks.sum(axis=1) > 1).all():
            raise ValueError("action_values needs positions with more than one legal action")
        baseline = np.asarray(self.default_policy.act(observations, masks.astype(np.int8)))
        mean, error = _mean_error(*self._paired_gains(observations, masks, baseline, self.samples))
        choice = self._decide(mean, error, baseline)
        return choice, baseline, np.where(masks, mean, 0.0), error

    def _decide(self, mean: np.ndarray, error: np.ndarray, baseline: np.ndarray) -> np.ndarray:
        """The best action by its gain less ``margin`` standard errors, where that is above
        zero; the baseline otherwise."""
        score = mean - self.margin * error
        best = np.argmax(score, axis=1)
        better = score[np.arange(len(best)), best] > 0
        return np.where(better, best, baseline)

    def _worlds(self, observations: np.ndarray, samples: int, seed: int) -> engine.State:
        """``samples`` sampled deals per observation, row ``i * samples + k``: uniform over
        the unseen cards here (``sto_odno_env.bots.search`` weights them by belief)."""
        return from_observations(self.rules, observations, samples, seed=seed)

    def _paired_gains(self, observations, masks, baseline, samples):
        """Sum, sum of squares and count of each legal action's gain over the baseline's
        outcome in the same sampled deal: (n, A) arrays each (A: the rule set's actions)."""
        n = observations.shape[0]
        seed = int(self.generator.integers(2**62))
        worlds = self._worlds(observations, samples, seed)  # i*S + k
        # One rollout per (game, sample, legal action).
        game_of_world = np.repeat(np.arange(n), samples)
        world_of_row = np.repeat(np.arange(worlds.batch), masks.sum(axis=1)[game_of_world])
        legal_actions = [np.flatnonzero(m) for m in masks]
        actions = np.concatenate([legal_actions[g] for g in game_of_world])
        values = self._rollout(worlds.take(world_of_row), actions)
        game_of_row = game_of_world[world_of_row]
        is_base = actions == baseline[game_of_row]
        base_value = np.zeros(worlds.batch)
        base_value[world_of_row[is_base]] = values[is_base]
        gain = values - base_value[world_of_row]
        width = masks.shape[1]  # the rule set's number of actions
        size = n * width
        key = game_of_row * width + actions
        shape = (n, width)
        return (
            np.bincount(key, weights=gain, minlength=size).reshape(shape),
            np.bincount(key, weights=gain * gain, minlength=size).reshape(shape),
            np.bincount(key, minlength=size).reshape(shape).astype(np.float64),
        )

    def _rollout(self, state: engine.State, actions: np.ndarray) -> np.ndarray:
        """Play each row to the end of its round; return seat 0's outcome per row."""
        rows = state.batch
        target = float(self.rules.target)
        totals_before = state.totals.copy()
        in_before = state.in_match.copy()
        reward = np.zeros(rows)
        value = np.zeros(rows)
        finished = np.zeros(rows, dtype=bool)
        live = np.arange(rows)
        step_actions = actions
        for _ in range(self.horizon):
            _, step_rewards, done = engine.step(state, step_actions, games=live)
            reward[live] += step_rewards[live, 0]
            ended = live[(state.rounds_ended[live] > 0) | done[live]]
            if ended.size:
                if self.outcome == "value":
                    value[ended] = self._learned_value(state, ended, reward[ended])
                elif self.outcome == "standing":
                    value[ended] = reward[ended] + _standing_value(
                        state, ended, state.totals[ended], target
                    )
                else:
                    value[ended] = reward[ended] + self._round_value(
                        state, ended, totals_before, in_before, target
                    )
                finished[ended] = True
            live = live[~finished[live]]
            if not live.size:
                return value
            seats = state.current_player[live].astype(np.intp)
            step_actions = policy_actions(self.default_policy, state, live, seats)
        if self.outcome == "value":
            value[live] = self._learned_value(state, live, reward[live])
            return value
        # Cut: count the points left in the hands.
        points = engine.hand_points(state, live).astype(np.float64)
        if self.outcome == "standing":
            projected = state.totals[live] + points
            value[live] = reward[live] + _standing_value(state, live, projected, target)
            return value
        inside = seats_inside(in_before[live], state.players)
        others = np.where(inside[:, 1:], points[:, 1:], 0.0).sum(axis=1) / np.maximum(
            inside[:, 1:].sum(axis=1), 1
        )
        value[live] = reward[live] + (others - points[:, 0]) / target
        return value

    def _learned_value(self, state: engine.State, games: np.ndarray, paid: np.ndarray):
        """Seat 0's outcome in ``games`` by the rollout policy's critic: its place's reward
        where ``paid`` (the match reward paid to seat 0 in the rollout) was decided, the
        critic's estimate from seat 0's observation where it is still in."""
        # outcome="value" was refused at __init__ unless the policy has a value network
        policy = cast(_Critic, self.default_policy)
        decided = ((state.in_match[games] & 1) == 0) | state.step_terminated[games]
        value = np.where(
            decided,
            first_place(paid, state.players) if policy.value_reward == "first" else paid,
            0.0,
        )
        open_games = games[~decided]
        if open_games.size:
            seat = np.zeros(open_games.size, dtype=np.intp)
            value[~decided] = policy.values(observe(state, seat, games=open_games))
        return value

    @staticmethod
    def _round_value(state, games, totals_before, in_before, target) -> np.ndarray:
        """(others' mean gain − own gain) / target over the round that just ended."""
        gain = (state.totals[games] - totals_before[games]).astype(np.float64)
        players = state.players
        inside = seats_inside(in_before[games], players)
        others = np.where(inside[:, 1:], gain[:, 1:], 0.0).sum(axis=1) / np.maximum(
            inside[:, 1:].sum(axis=1), 1
        )
        return (others - gain[:, 0]) / target


def seats_inside(in_match: np.ndarray, players: int) -> np.ndarray:
    """(n, players) bool: which seats are still in, from the ``in_match`` bits of n games."""
    return ((in_match[:, None].astype(np.intp) >> np.arange(players)) & 1) == 1


def _standing_value(state, games, totals, target: float) -> np.ndarray:
    """Seat 0's expected match reward from ``totals`` (games, P) of ``games``, where seat 0
    is still in (0 where it is out: its reward has come); see the module docstring."""
    players = state.players
    inside = seats_inside(state.in_match[games], players)
    room = np.maximum(target - np.asarray(totals, np.float64), 0.0)
    strength = room * room
    own = strength[:, :1]
    pair = own + strength[:, 1:]
    outlasted = np.where(inside[:, 1:], own / np.where(pair > 0, pair, 1.0), 1.0)
    outlasted = np.where(inside[:, 1:] & (pair <= 0), 0.5, outlasted)
    expected = -1.0 + 2.0 * outlasted.sum(axis=1) / (players - 1)
    return np.where(inside[:, 0] & ~state.step_terminated[games], expected, 0.0)


def _mean_error(sums, squares, counts):
    """Mean gain and its standard error per (game, action); −inf for illegal actions."""
    safe = np.maximum(counts, 1)
    mean = sums / safe
    variance = np.maximum(squares / safe - mean * mean, 0.0)
    error = np.sqrt(variance / np.maximum(counts - 1, 1))
    return np.where(counts > 0, mean, -np.inf), np.where(counts > 0, error, 0.0)
