"""CFR+ on a :class:`~agents.exact.tree.GameTree`, vectorised over the whole tree.

Regret matching+ with alternating updates and linearly weighted averages (Tammelin et al.
2015, as OpenSpiel's ``CFRPlusSolver``). Information sets are the tree's perfect-recall
ones (``keys="infoset"``, where CFR converges to a Nash equilibrium), or the distinct
observations shared by both seats (``keys="observation"``): the strategy a memoryless
agent of the kit can play, with no convergence guarantee (imperfect recall), so its NashConv
is measured exactly, never assumed.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from .tree import ExactError, GameTree
from .values import _ranges, exploitability, node_values, reach_through

KEYS = ("infoset", "observation")


@dataclasses.dataclass(frozen=True)
class CFRResult:
    """The average strategy (rows per key, A columns) and the NashConv curve:
    ``(iteration, seconds, nash_conv)`` at each measured iteration."""

    keys: str
    average: np.ndarray
    curve: tuple[tuple[int, float, float], ...]

    def profile(self, tree: GameTree) -> np.ndarray:
        """(I, A) the average strategy at each information set of ``tree``."""
        if self.keys == "observation":
            return self.average[tree.infoset_observation]
        return self.average


class _Edges:
    """The tree's decision edges of one seat, flattened for bincount."""

    def __init__(self, tree: GameTree, seat: int, key_of_infoset: np.ndarray, width: int):
        nodes = np.flatnonzero(tree.player == seat)
        counts = tree.num_children[nodes]
        self.children = np.repeat(tree.first_child[nodes], counts) + _ranges(counts)
        self.parents = np.repeat(nodes, counts)
        self.cells = key_of_infoset[tree.infoset[self.parents]] * width + tree.action[self.children]


def solve(
    tree: GameTree,
    iterations: int,
    *,
    keys: str = "infoset",
    measure_every: int = 0,
    on_measure: Callable[[int, float, float], None] | None = None,
) -> CFRResult:
    """Run ``iterations`` of CFR+ and return the average strategy; every ``measure_every``
    iterations (and at the last) the average's exact NashConv joins the curve."""
    if keys not in KEYS:
        raise ExactError(f"keys {keys!r} is not allowed; allowed: {', '.join(KEYS)}")
    width = tree.masks.shape[1]
    if keys == "observation":
        key_of_infoset = tree.infoset_observation
        legal = tree.masks.astype(bool)
    else:
        key_of_infoset = np.arange(len(tree.infoset_player))
        legal = tree.masks[tree.infoset_observation].astype(bool)
    count = len(legal)
    regrets = np.zeros((count, width))
    average = np.zeros((count, width))
    edges = [_Edges(tree, seat, key_of_infoset, width) for seat in range(tree.players)]
    below_root = tree.parent[1:] == 0
    decision_edge = np.flatnonzero(~below_root) + 1
    edge_cells = (
        key_of_infoset[tree.infoset[tree.parent[decision_edge]]] * width
        + tree.action[decision_edge]
    )
    edge_seat = tree.player[tree.parent[decision_edge]]
    weights = np.ones(tree.size)
    weights[1:][below_root] = 1.0 / tree.deals
    curve: list[tuple[int, float, float]] = []
    start = time.perf_counter()

    def strategy() -> np.ndarray:
        positive = np.where(legal, regrets, 0.0)
        total = positive.sum(axis=1, keepdims=True)
        uniform = legal / legal.sum(axis=1, keepdims=True)
        return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)

    # Which edges leave each seat's decisions: the same every iteration.
    seat_edges = []
    for seat in range(tree.players):
        mine = np.zeros(tree.size, dtype=bool)
        mine[decision_edge] = edge_seat == seat
        seat_edges.append(mine)

    def reach_of(seat: int, own: bool) -> np.ndarray:
        """Reach through ``seat``'s edges only (own) or through every other edge."""
        edge = np.where(seat_edges[seat] == own, weights, 1.0)
        if own:
            edge[1:][below_root] = 1.0
        return reach_through(tree, edge)

    for iteration in range(1, iterations + 1):
        for seat in range(tree.players):
            sigma = strategy().reshape(-1)
            weights[decision_edge] = sigma[edge_cells]
            values = node_values(tree, weights)[:, seat]
            others = reach_of(seat, own=False)
            edge = edges[seat]
            gains = others[edge.parents] * (values[edge.children] - values[edge.parents])
            regrets.reshape(-1)[:] += np.bincount(edge.cells, gains, minlength=count * width)
            np.maximum(regrets, 0.0, out=regrets)
            own = reach_of(seat, own=True)
            # CFR+'s linear average: iteration t weighs t. Each node of an information set
            # adds its own reach; under perfect recall they are equal, so this only scales.
            contribution = own[edge.parents] * sigma[edge.cells] * iteration
            average.reshape(-1)[:] += np.bincount(edge.cells, contribution, minlength=count * width)
        if (measure_every and iteration % measure_every == 0) or iteration == iterations:
            result = CFRResult(keys, _normalised(average, legal), ())
            conv = exploitability(tree, result.profile(tree)).nash_conv
            seconds = time.perf_counter() - start
            curve.append((iteration, seconds, conv))
            if on_measure is not None:
                on_measure(iteration, seconds, conv)
    return CFRResult(keys, _normalised(average, legal), tuple(curve))


def _normalised(average: np.ndarray, legal: np.ndarray) -> np.ndarray:
    total = average.sum(axis=1, keepdims=True)
    uniform = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
    return np.where(total > 0, average / np.where(total > 0, total, 1.0), uniform)
