"""Statistics of the evaluation harness: intervals, head-to-head tables, ratings."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from agents.arena import MatchResult

Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: ties count ½)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # Rounding can leave 1e-17 off the ends; the interval always contains the rate.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def head_to_head(results: Sequence[MatchResult], first: str, second: str) -> dict:
    """Two-player results of ``first`` against ``second``: wins, ties, win rate (ties ½)
    with its Wilson 95% interval, and the mean match reward of ``first``."""
    wins = losses = ties = 0
    rewards = []
    for result in results:
        seats = result.match.seats
        if sorted(seats) != sorted((first, second)) or first == second:
            continue
        reward = float(result.rewards[seats.index(first)])
        rewards.append(reward)
        if reward > 0:
            wins += 1
        elif reward < 0:
            losses += 1
        else:
            ties += 1
    matches = wins + losses + ties
    score = wins + 0.5 * ties
    low, high = wilson(score, matches)
    return {
        "agent": first,
        "opponent": second,
        "matches": matches,
        "wins": wins,
        "losses": losses,
        "ties": ties,
        "win_rate": score / matches if matches else float("nan"),
        "ci_low": low,
        "ci_high": high,
        "mean_reward": float(np.mean(rewards)) if rewards else float("nan"),
    }


def agent_summary(results: Sequence[MatchResult], names: Sequence[str]) -> list[dict]:
    """Per agent: matches, first places (Wilson 95%), mean match reward (95% normal
    interval), mean points per round, exact-target resets per match and per round."""
    seats = defaultdict(list)
    for result in results:
        for seat, name in enumerate(result.match.seats):
            seats[name].append((result, seat))
    rows = []
    for name in names:
        entries = seats.get(name, [])
        n = len(entries)
        rewards = np.array([r.rewards[s] for r, s in entries], dtype=np.float64)
        firsts = sum(1 for r, s in entries if r.ranking[0] == s and r.rewards[s] == max(r.rewards))
        points = sum(float(r.round_points[s]) for r, s in entries)
        rounds = sum(int(r.rounds_in[s]) for r, s in entries)
        resets = sum(int(r.resets[s]) for r, s in entries)
        low, high = wilson(firsts, n)
        half = Z95 * rewards.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")
        rows.append(
            {
                "agent": name,
                "matches": n,
                "first_rate": firsts / n if n else float("nan"),
                "first_ci_low": low,
                "first_ci_high": high,
                "mean_reward": float(rewards.mean()) if n else float("nan"),
                # A match reward lies in [-1, 1], and so does its mean: clip the normal
                # interval, which a few matches can stretch past the ends.
                "reward_ci_low": max(-1.0, float(rewards.mean() - half)) if n else float("nan"),
                "reward_ci_high": min(1.0, float(rewards.mean() + half)) if n else float("nan"),
                "points_per_round": points / rounds if rounds else float("nan"),
                "resets_per_match": resets / n if n else float("nan"),
                "resets_per_round": resets / rounds if rounds else float("nan"),
            }
        )
    return rows


def openskill_ratings(results: Sequence[MatchResult], names: Sequence[str]) -> dict[str, dict]:
    """Plackett–Luce (OpenSkill) ratings from every match's ranking, ties shared."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    # The updates are online: take the matches deal by deal, so that pairs scheduled one
    # after another (``--pairs ladder``) interleave instead of being rated in blocks.
    ordered = sorted(range(len(results)), key=lambda i: (results[i].match.deal, i))
    for result in (results[i] for i in ordered):
        seats = result.match.seats
        if len(set(seats)) < 2:
            continue
        # Ranks from the rewards (lower rank is better; equal rewards tie).
        order = sorted(set((-result.rewards).round(9).tolist()))
        ranks: list[float] = [order.index(round(-float(r), 9)) for r in result.rewards]
        teams = [[ratings[name]] for name in seats]
        updated = model.rate(teams, ranks=ranks)
        # One agent may hold several seats: keep the last update of each.
        for name, team in zip(seats, updated, strict=True):
            ratings[name] = team[0]
    return {
        name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()
    }
