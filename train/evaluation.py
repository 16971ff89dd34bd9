"""Periodic evaluation of the policy being trained: duplicate deals against one opponent
in the batched arena (``agents.arena``), the same deals every time so evaluations compare.

Two players: the match win rate (ties ½). More players: the policy in one seat against
P-1 copies of the opponent, and its first-place share. Both with a Wilson 95% interval.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agents.arena import play
from agents.evaluate import duplicate_schedule
from agents.stats import head_to_head, wilson
from sto_odno_env.bots.policy import BasePolicy
from sto_odno_env.game.rules import Rules


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

    def row(self, update: int, step: int, minutes: float) -> dict:
        """One line of a run's ``evaluations.csv``: when it was taken, and the result."""
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
        }

    def describe(self) -> str:
        """One line: the rate, its interval and the number of matches."""
        what = "win rate" if self.players == 2 else "first place"
        return (
            f"{what} vs {self.opponent} {self.rate:.3f} "
            f"[{self.low:.3f}, {self.high:.3f}] over {self.matches} matches"
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
