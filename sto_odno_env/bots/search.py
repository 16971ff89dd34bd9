"""A search bot guided by a trained policy, with the hidden cards sampled by belief.

:class:`SearchAgent` is :class:`~sto_odno_env.bots.rollout.RolloutAgent` with two changes:

* **Rollouts by a policy.** Every seat of every rollout is played by ``policy`` (loaded by
  name, ``agents.load("search")``: the shipped policy of the rule set and player count
  where there is one, ``expert`` otherwise; constructed directly: ``expert`` unless
  given), all rollouts of all games in one batch as ``rollout`` does; the policy's own
  choice is the default, and another action replaces it only when its paired gain over the
  default in the same sampled deals beats ``margin`` standard errors.
* **Deals sampled by belief.** ``pool × samples`` deals of the unseen cards are drawn
  uniformly (:func:`sto_odno_env.views.determinise.from_observations`), each is weighted
  by the likelihood of the last opponent play the observation shows under an opponent model
  (``model``, by default the rollout policy), and ``samples`` of them are kept by
  systematic resampling (sampling-importance-resampling).

**What the belief can condition on.** An agent is called as ``act(observations, masks)``
with no game identity: the arena, the vector env and the AEC env hand it the current
observations of whichever games it is to act in, and the observation is memoryless (no
history). A history kept inside the agent across calls cannot be attached to its game
(rows are subsets of the batch, games reset in place, duplicate deals repeat the same
observation), so the agent does not try. What one observation shows of the opponents'
play is the **top card: the last play**, by the seat before the observer (clockwise,
the next seat in the match before seat 0). For each sampled deal the seat's decision is
rebuilt: the top card goes back into that seat's sampled hand, the card below it in the
sampled pile becomes the top again, and the model's probability of playing that card
there is the deal's likelihood. The rebuilt decision is only approximate (a queen's
ordered suit below the top is not known; the top card may have been the observer's own,
its opponent having drawn and passed), so each likelihood is mixed with ``floor``: the
weight is ``floor + (1 - floor) * p``. Draws cannot be seen in one observation (the
hand sizes are already fixed by the deal) and do not enter.

The samples depend only on the observation and the seed: the deals are drawn from what the
observer sees, the weights are computed in those deals (``tests/test_search.py`` deals
different hidden hands behind the same observation and gets the same samples).
"""

from __future__ import annotations

import numpy as np

from ..game import engine
from ..game.cards import PHASE_PLAY
from ..game.rules import Rules, load_rules
from ..game.tables import deck_masks
from ..views.determinise import from_observations
from ..views.observation import observe
from .policy import BasePolicy, Policy
from .rollout import RolloutAgent, seats_inside


def action_probabilities(policy: Policy, observations: np.ndarray, masks: np.ndarray):
    """(n, A) probabilities of each legal action under ``policy``: the softmax of a policy
    network's masked logits (``TorchPolicyAgent``), one-hot on the chosen action for any
    other agent (a deterministic bot)."""
    masks = np.asarray(masks) > 0
    network = getattr(policy, "network", None)
    if network is not None:
        import torch

        with torch.no_grad():
            logits = network(torch.as_tensor(np.asarray(observations, np.float32))).numpy()
        logits = np.where(masks, logits.astype(np.float64), -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        return weights / weights.sum(axis=1, keepdims=True)
    chosen = np.asarray(policy.act(observations, masks.astype(np.int8)), dtype=np.intp)
    probabilities = np.zeros(masks.shape)
    probabilities[np.arange(len(chosen)), chosen] = 1.0
    return probabilities


class SearchAgent(RolloutAgent):
    """Policy-guided determinised search with belief-weighted deals (module docstring).

    Budget: ``samples`` deals kept per decision out of ``pool × samples`` drawn, each legal
    action tried in each, rollouts cut after ``horizon`` decisions.
    """

    name = "search"

    def __init__(
        self,
        rules: Rules | str = "classic",
        players: int | None = None,
        samples: int = 64,  # measured: 0.633 against rollout where 32 gave 0.591, 71 ms
        horizon: int = 24,
        seed: int | None = 0,
        margin: float = 1.5,
        pool: int = 4,
        floor: float = 0.1,
        policy: BasePolicy | None = None,
        model: BasePolicy | None = None,
        outcome: str = "table",
    ):
        from .heuristic import ExpertAgent

        rules = load_rules(rules)
        if pool < 1:
            raise ValueError(f"pool must be >= 1, got {pool}")
        if not 0.0 < floor <= 1.0:
            raise ValueError(f"floor must be in (0, 1], got {floor}")
        # By name (search:policy=NAME) the registry resolves the agents, and by default
        # the shipped policy of the table (registry.search_policy_name).
        policy = policy if policy is not None else ExpertAgent(rules)
        model = model if model is not None else policy
        super().__init__(
            rules, players, samples=samples, horizon=horizon, default_policy=policy,
            seed=seed, margin=margin, outcome=outcome,
        )  # fmt: skip
        self.pool = pool
        self.floor = floor
        self.model = model
        self._card_bit = deck_masks(self.rules.deck_spec).card_bit

    def _worlds(self, observations: np.ndarray, samples: int, seed: int) -> engine.State:
        """``samples`` deals per observation (row ``i * samples + k``), resampled by belief."""
        return self.sample(observations, samples, seed)

    def sample(self, observations: np.ndarray, samples: int, seed: int) -> engine.State:
        """Belief-weighted deals behind ``observations``: ``pool × samples`` uniform deals
        each, weighted by :meth:`likelihood`, ``samples`` kept by systematic resampling.
        A function of the observations and the seed only."""
        observations = np.atleast_2d(observations)
        n, drawn = observations.shape[0], samples * self.pool
        worlds = from_observations(self.rules, observations, drawn, seed=seed)
        if self.pool == 1:
            return worlds
        weights = self.likelihood(worlds).reshape(n, drawn)
        weights /= weights.sum(axis=1, keepdims=True)
        # Systematic resampling: one uniform offset per observation, `samples` even steps.
        offset = np.random.default_rng(seed).random((n, 1))
        points = (offset + np.arange(samples)[None, :]) / samples
        cumulative = np.cumsum(weights, axis=1)
        cumulative[:, -1] = 1.0  # no point may fall past the end by rounding
        chosen = (cumulative[:, None, :] <= points[:, :, None]).sum(axis=2)
        rows = (np.arange(n)[:, None] * drawn + np.minimum(chosen, drawn - 1)).ravel()
        return worlds.take(rows)

    def likelihood(self, worlds: engine.State) -> np.ndarray:
        """(batch,) weight of each deal (observer in seat 0): ``floor + (1 - floor) * p``
        with ``p`` the model's probability that the seat before the observer played the
        top card from its sampled hand; 1 where the observation shows no such play."""
        weights = np.ones(worlds.batch)
        players = worlds.players
        pile = worlds.discard_size.astype(np.intp)
        top = worlds.top_card.astype(np.intp)
        inside = seats_inside(worlds.in_match, players)
        # The seat before seat 0 clockwise: the highest seat still in (never 0 itself).
        before = np.where(
            inside[:, 1:].any(axis=1), players - 1 - np.argmax(inside[:, :0:-1], 1), 0
        )
        usable = np.flatnonzero(
            (worlds.phase == PHASE_PLAY)
            & (worlds.current_player == 0)
            & (worlds.pending == 0)
            & (pile >= 2)
            & (top < self.rules.deck_spec.cards)
            & (before > 0)
        )
        if not usable.size:
            return weights
        state = worlds.take(usable)
        rows = np.arange(usable.size)
        seat, card = before[usable], top[usable]
        state.hand[rows, seat] |= self._card_bit[card]
        size = pile[usable] - 1
        state.discard_size[:] = size
        state.top_card[:] = state.discard[rows, size - 1]
        state.discard_bits[:] &= ~self._card_bit[card]
        state.current_player[:] = seat
        state.ordered_suit[:] = -1  # the suit a queen below the top ordered is not seen
        engine.refresh_legal(state)
        masks = engine.unpack_actions(state.legal_bits, state.tables.num_actions)
        legal = masks[rows, card] > 0
        p = np.zeros(usable.size)
        if legal.any():
            which = np.flatnonzero(legal)
            obs = observe(state, seat[which], games=which)
            p[which] = action_probabilities(self.model, obs, masks[which])[
                np.arange(which.size), card[which]
            ]
        weights[usable] = self.floor + (1.0 - self.floor) * p
        return weights
