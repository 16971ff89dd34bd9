"""Exact values on a :class:`~agents.exact.tree.GameTree`: a profile's expected rewards,
each seat's best response to it, NashConv and exploitability.

A profile gives every information set a distribution over the 0..A-1 actions,
``(I, A)`` rows that sum to 1 over the legal ones (:func:`agent_profile` builds it from kit
agents). Values are match rewards (docs/rules.md §8), expected over the deal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from .tree import GameTree


def weights_of(tree: GameTree, profile: np.ndarray) -> np.ndarray:
    """(N,) the probability of the edge into each node: the deal's 1/deals below the root,
    the profile's probability of the action below a decision node."""
    weights = np.ones(tree.size)
    parent = tree.parent[1:]
    below_root = parent == 0
    weights[1:][below_root] = 1.0 / tree.deals
    decided = ~below_root
    nodes = np.flatnonzero(decided) + 1
    infosets = tree.infoset[tree.parent[nodes]]
    weights[nodes] = profile[infosets, tree.action[nodes]]
    return weights


def node_values(tree: GameTree, weights: np.ndarray) -> np.ndarray:
    """(N, P) each node's expected rewards when every edge is taken with ``weights``."""
    values = tree.utility.copy()
    levels = tree.levels
    for depth in range(len(levels) - 2, 0, -1):
        start, stop = levels[depth], levels[depth + 1]
        parents = tree.parent[start:stop]
        base = levels[depth - 1]
        for seat in range(tree.players):
            values[base:start, seat] += np.bincount(
                parents - base,
                weights=weights[start:stop] * values[start:stop, seat],
                minlength=start - base,
            )
    return values


def profile_values(tree: GameTree, profile: np.ndarray) -> np.ndarray:
    """(P,) each seat's expected match reward when every seat plays ``profile``."""
    return node_values(tree, weights_of(tree, profile))[0]


def reach_through(tree: GameTree, edge: np.ndarray) -> np.ndarray:
    """(N,) the product of ``edge`` (the weight of the edge into each node) along each
    node's path from the root."""
    reach = np.ones(tree.size)
    levels = tree.levels
    for depth in range(1, len(levels) - 1):
        start, stop = levels[depth], levels[depth + 1]
        reach[start:stop] = reach[tree.parent[start:stop]] * edge[start:stop]
    return reach


def _opponent_reach(tree: GameTree, weights: np.ndarray, seat: int) -> np.ndarray:
    """(N,) the probability of reaching each node from the chance and the other seats'
    edges (``seat``'s own edges count 1)."""
    edge = weights.copy()
    edge[1:][tree.player[tree.parent[1:]] == seat] = 1.0
    return reach_through(tree, edge)


def _own_depth(tree: GameTree, seat: int) -> np.ndarray:
    """(N,) how many decisions ``seat`` took on the way to each node."""
    depth = np.zeros(tree.size, dtype=np.int64)
    levels = tree.levels
    for level in range(1, len(levels) - 1):
        start, stop = levels[level], levels[level + 1]
        parents = tree.parent[start:stop]
        depth[start:stop] = depth[parents] + (tree.player[parents] == seat)
    return depth


def best_response(tree: GameTree, profile: np.ndarray, seat: int) -> tuple[float, np.ndarray]:
    """The value of ``seat``'s best response to ``profile`` (the other seats keep theirs)
    and the response itself, an (I, A) profile that differs from ``profile`` only at
    ``seat``'s information sets (a pure strategy: the first best action).

    Perfect recall lets it decide ``seat``'s information sets from its last decisions back
    to its first: the subtrees below a decision hold only later ones of the seat.
    """
    weights = weights_of(tree, profile)
    reach = _opponent_reach(tree, weights, seat)
    own_depth = _own_depth(tree, seat)
    response = profile.copy()
    own_nodes = np.flatnonzero(tree.player == seat)
    num_actions = profile.shape[1]
    for depth in range(int(own_depth[own_nodes].max(initial=-1)), -1, -1):
        values = node_values(tree, weights)
        nodes = own_nodes[own_depth[own_nodes] == depth]
        counts = tree.num_children[nodes]
        children = np.repeat(tree.first_child[nodes], counts) + _ranges(counts)
        parents = np.repeat(nodes, counts)
        infosets = tree.infoset[parents]
        action_values = np.zeros((len(tree.infoset_player), num_actions))
        np.add.at(
            action_values,
            (infosets, tree.action[children]),
            reach[parents] * values[children, seat],
        )
        legal = np.zeros_like(action_values, dtype=bool)
        legal[infosets, tree.action[children]] = True
        chosen = np.argmax(np.where(legal, action_values, -np.inf), axis=1)
        decided = np.unique(infosets)
        response[decided] = 0.0
        response[decided, chosen[decided]] = 1.0
        weights[children] = response[infosets, tree.action[children]]
    values = node_values(tree, weights)
    return float(values[0, seat]), response


def _ranges(counts: np.ndarray) -> np.ndarray:
    """0..c-1 for each count, concatenated."""
    ends = np.cumsum(counts)
    return np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - counts, counts)


@dataclasses.dataclass(frozen=True)
class Exploitability:
    """A profile's exact figures (docs/evaluation.md): each seat's value under the profile,
    each seat's best-response value against the others, their gains, NashConv (the sum of
    the gains) and exploitability (NashConv / players, OpenSpiel's convention)."""

    values: tuple[float, ...]
    best_responses: tuple[float, ...]

    @property
    def gains(self) -> tuple[float, ...]:
        return tuple(b - v for b, v in zip(self.best_responses, self.values, strict=True))

    @property
    def nash_conv(self) -> float:
        return float(sum(self.gains))

    @property
    def exploitability(self) -> float:
        return self.nash_conv / len(self.values)


def exploitability(tree: GameTree, profile: np.ndarray) -> Exploitability:
    """Every seat's value and best-response value under ``profile``."""
    values = profile_values(tree, profile)
    responses = tuple(best_response(tree, profile, seat)[0] for seat in range(tree.players))
    return Exploitability(values=tuple(float(v) for v in values), best_responses=responses)


def uniform_profile(tree: GameTree) -> np.ndarray:
    """(I, A) uniform over each information set's legal actions."""
    masks = tree.masks[tree.infoset_observation].astype(np.float64)
    return masks / masks.sum(axis=1, keepdims=True)


def observation_profile(tree: GameTree, per_observation: np.ndarray) -> np.ndarray:
    """(I, A) from (K, A) rows per distinct observation: what a policy that reads the
    observation only plays at each information set."""
    return np.asarray(per_observation, dtype=np.float64)[tree.infoset_observation]


def seat_profile(tree: GameTree, per_seat: Sequence[np.ndarray]) -> np.ndarray:
    """(I, A): seat ``s``'s information sets from ``per_seat[s]`` (each an (I, A) profile)."""
    profile = np.array(per_seat[0], dtype=np.float64, copy=True)
    for seat in range(1, tree.players):
        own = tree.infoset_player == seat
        profile[own] = per_seat[seat][own]
    return profile
