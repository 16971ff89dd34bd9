"""Periodic evaluation of the policy being trained: duplicate deals against one opponent
in the batched arena (``agents.arena``), the same deals every time so evaluations compare.

Two players: the match win rate (ties ½). More players: the policy in one seat against
P-1 copies of the opponent, and its first-place share. Both with a Wilson 95% interval.
On a rule set whose whole game tree the exact tools walk (``micro``, docs/evaluation.md),
each evaluation also gives the policy's exact NashConv and exploitability
(:class:`ExactTable`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.arena import play
from agents.evaluate import duplicate_schedule
from agents.stats import head_to_head, wilson
from sto_odno_env.bots.policy import BasePolicy
from sto_odno_env.game.rules import Rules

if TYPE_CHECKING:
    from agents.exact import GameTree


@dataclass(frozen=True)
class Evaluation:
    """One evaluation's result."""

    opponent: str
    matches: int
    rate: float  # win rate (2 players, ties ½) or first-place share
    low: float
    high: float
    mean_reward: float
    players: int
    nash_conv: float | None = None  # exact, where the rule set's tree is small enough
    exploitability: float | None = None
    exact_reward: float | None = None  # the exact mean_reward against the opponent

    def row(self, update: int, step: int, minutes: float) -> dict:
        """One line of a run's ``evaluations.csv``: when it was taken, and the result."""
        exact = {}
        nash_conv, exploitability, exact_reward = (
            self.nash_conv,
            self.exploitability,
            self.exact_reward,
        )
        if nash_conv is not None and exploitability is not None and exact_reward is not None:
            exact = {
                "nash_conv": round(nash_conv, 6),
                "exploitability": round(exploitability, 6),
                "exact_reward": round(exact_reward, 6),
            }
        return {
            "update": update,
            "step": step,
            "minutes": round(minutes, 3),
            "opponent": self.opponent,
            "matches": self.matches,
            "rate": round(self.rate, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
            "mean_reward": round(self.mean_reward, 4),
            "players": self.players,
            **exact,
        }

    def describe(self) -> str:
        """One line: the rate, its interval and the number of matches."""
        what = "win rate" if self.players == 2 else "first place"
        exact = ""
        if self.nash_conv is not None:
            exact = (
                f"; exact: reward {self.exact_reward:+.4f} against it, "
                f"exploitability {self.exploitability:.4f}"
            )
        return (
            f"{what} vs {self.opponent} {self.rate:.3f} "
            f"[{self.low:.3f}, {self.high:.3f}] over {self.matches} matches{exact}"
        )


class ExactTable:
    """The exact exploitability of a policy at one table, where the rule set's whole tree is
    small enough (built once, on first use; None for any other rule set)."""

    MAX_NODES = 1_000_000  # a few seconds to build; micro has 96,369 histories

    def __init__(self, rules: Rules, players: int):
        self.rules, self.players = rules, players

    @functools.cached_property
    def tree(self) -> GameTree | None:
        from agents.exact import NotEnumerable, TreeTooLarge, build_tree

        try:
            return build_tree(self.rules, self.players, max_nodes=self.MAX_NODES)
        except (TreeTooLarge, NotEnumerable):
            return None

    def measure(
        self, evaluation: Evaluation, policy: BasePolicy, opponent: BasePolicy
    ) -> Evaluation:
        """``evaluation`` with the policy's exact NashConv and exploitability in self-play,
        and its exact mean reward against ``opponent`` (each seat once, as the duplicate
        deals seat it; at more players, one seat against the opponent in the others).
        Unchanged where there is no tree."""
        from agents.exact import agent_profile, exploitability
        from agents.exact.values import profile_values, seat_profile

        tree = self.tree
        if tree is None:
            return evaluation
        own, other = agent_profile(tree, policy), agent_profile(tree, opponent)
        figures = exploitability(tree, own)
        rewards = []
        for seat in range(tree.players):  # the policy in ``seat``, the opponent elsewhere
            table = [own if s == seat else other for s in range(tree.players)]
            rewards.append(profile_values(tree, seat_profile(tree, table))[seat])
        return dataclasses.replace(
            evaluation,
            nash_conv=figures.nash_conv,
            exploitability=figures.exploitability,
            exact_reward=float(sum(rewards) / len(rewards)),
        )


def evaluate(
    policy: BasePolicy,
    opponent: BasePolicy,
    opponent_name: str,
    rules: Rules,
    players: int,
    matches: int,
    seed: int,
    batch: int = 1024,
    progress: Callable[[int], None] | None = None,
) -> Evaluation:
    """``policy`` against ``opponent`` over about ``matches`` duplicate-deal matches
    (``progress`` is called with the number of matches each time some end)."""
    table = ("policy", *([opponent_name] * (players - 1)))
    deals = max(1, matches // players)
    schedule = duplicate_schedule([table], deals, seed)
    agents = {"policy": policy, opponent_name: opponent}
    results = play(rules, players, agents, schedule, batch=batch, progress=progress)
    if players == 2:
        row = head_to_head(results, "policy", opponent_name)
        return Evaluation(
            opponent_name,
            row["matches"],
            row["win_rate"],
            row["ci_low"],
            row["ci_high"],
            row["mean_reward"],
            players,
        )
    firsts = 0
    reward = 0.0
    for result in results:
        seat = result.match.seats.index("policy")
        firsts += int(result.ranking[0] == seat)
        reward += float(result.rewards[seat])
    low, high = wilson(firsts, len(results))
    return Evaluation(
        f"{players - 1}x{opponent_name}",
        len(results),
        firsts / len(results),
        low,
        high,
        reward / len(results),
        players,
    )
