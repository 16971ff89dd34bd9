"""The policy interface every player of the envs follows.

A policy acts on batches: ``act(observations, masks) -> actions`` with observations
(N, obs_size(rules)) float32, masks (N, rules.num_actions) int8 and actions (N,) int.
Calling it on one observation and mask, ``policy(observation, mask) -> int``, gives one
decision. Any plain callable ``(observation, mask) -> action`` is accepted where a policy
is expected and is wrapped by :func:`as_policy` (called game by game, so slower).

A policy that does not read the observation sets ``needs_observation = False``; the envs
then skip building observations for its seats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """Batched policy: ``act(observations, masks) -> actions``."""

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray: ...


class BasePolicy:
    """Gives a batched policy the one-decision call ``policy(observation, mask) -> int``."""

    needs_observation: bool = True

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        actions = self.act(np.asarray(observation)[None], np.asarray(mask)[None])
        return int(actions[0])


class CallablePolicy(BasePolicy):
    """A plain ``(observation, mask) -> action`` callable, applied row by row."""

    def __init__(self, function: Callable[[np.ndarray, np.ndarray], Any]):
        self.function = function

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array(
            [int(self.function(obs, mask)) for obs, mask in zip(observations, masks, strict=True)],
            dtype=np.int64,
        )

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.function(observation, mask))


class RandomPolicy(BasePolicy):
    """Uniformly random legal actions (reads only the mask)."""

    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.generator = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.generator = np.random.default_rng(seed)

    def act(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        scores = self.generator.random(masks.shape, dtype=np.float32) + 1.0
        return np.argmax(scores * (masks > 0), axis=1)

    def probabilities(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        """(N, A) the distribution it plays: uniform over each row's legal actions."""
        legal = np.asarray(masks) > 0
        return legal / legal.sum(axis=1, keepdims=True)

    def act_bits(self, legal_bits: np.ndarray) -> np.ndarray:
        """The same choice rule from the engine's legal-action bit masks (no mask array)."""
        from ..game.engine import sample_actions

        return sample_actions(legal_bits, self.generator.random(len(legal_bits)))


def policy_probabilities(policy: Policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(N, A) the distribution ``policy`` plays at each row: its own ``probabilities`` where
    it has one (``random``, a tabular policy), else one-hot on the action ``act`` chooses
    (the kit's bots and trained policies act deterministically; an agent that samples must
    define ``probabilities`` to be evaluated exactly)."""
    own = getattr(policy, "probabilities", None)
    if callable(own):
        return np.asarray(own(observations, masks), dtype=np.float64)
    chosen = np.asarray(policy.act(observations, masks), dtype=np.intp)
    probabilities = np.zeros(np.shape(masks), dtype=np.float64)
    probabilities[np.arange(len(chosen)), chosen] = 1.0
    return probabilities


def as_policy(policy: Any) -> BasePolicy | Policy:
    """A batched policy from a policy object or a plain callable."""
    if isinstance(policy, Policy):
        return policy
    if callable(policy):
        return CallablePolicy(policy)
    raise TypeError(
        f"{policy!r} is not a policy: expected an object with act(observations, masks) "
        "or a callable (observation, mask) -> action"
    )
