"""Plays scheduled matches between agents in the batched engine.

A schedule is a list of :class:`Match` entries: a match seed and the agent in each seat.
:func:`play` runs them ``batch`` at a time: every engine step, each agent acts once for
all the games where one of its seats is to act (one batched call per agent), and a game
that ends takes the next scheduled match at once. With duplicate deals the same seed is
scheduled once per seat permutation: the engine deals the same cards in every round of
a seed (decks depend on the seed and the round only), so luck cancels between them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from sto_odno_env.bots.policy import Policy
from sto_odno_env.game import engine
from sto_odno_env.game.rules import Rules, load_rules
from sto_odno_env.views.observation import policy_actions


@dataclass(frozen=True)
class Match:
    """One scheduled match: the engine seed and the agent name in each seat."""

    seed: int
    seats: tuple[str, ...]
    deal: int = 0  # the duplicate group (matches sharing a seed)


@dataclass
class MatchResult:
    """What one match gave each seat."""

    match: Match
    rewards: np.ndarray  # (P,) match rewards (place, ties shared)
    ranking: list[int]
    totals: list[int]
    truncated: bool
    rounds: int
    round_points: np.ndarray  # (P,) sum of points scored over the rounds each seat was in
    rounds_in: np.ndarray  # (P,) rounds each seat played
    resets: np.ndarray  # (P,) exact-target resets
    decisions: int = 0
    extra: dict = field(default_factory=dict)


def play(
    rules: Rules | str,
    players: int,
    agents: Mapping[str, Policy],
    schedule: Sequence[Match],
    batch: int = 1024,
    progress: Callable[[int], None] | None = None,
) -> list[MatchResult]:
    """Play every scheduled match; results come back in schedule order."""
    rules = load_rules(rules)
    rules.check_players(players)
    for match in schedule:
        if len(match.seats) != players:
            raise ValueError(f"match {match} seats {len(match.seats)} agents for {players} players")
        for name in match.seats:
            if name not in agents:
                raise ValueError(f"match {match} names unknown agent {name!r}")
    names = list(agents)
    index_of = {name: i for i, name in enumerate(names)}
    total = len(schedule)
    slots = min(batch, total)
    results: list[MatchResult | None] = [None] * total
    next_match = slots
    slot_match = np.arange(slots)
    state = engine.init(rules, players, slots, seeds=[schedule[i].seed for i in range(slots)])
    seat_agent = np.array([[index_of[n] for n in schedule[i].seats] for i in range(slots)])
    seat_range = np.arange(players)
    round_points = np.zeros((slots, players), dtype=np.int64)
    rounds_in = np.zeros((slots, players), dtype=np.int64)
    resets = np.zeros((slots, players), dtype=np.int64)
    rewards = np.zeros((slots, players), dtype=np.float64)
    decisions = np.zeros(slots, dtype=np.int64)
    active = np.ones(slots, dtype=bool)
    target = rules.target

    while active.any():
        live = np.flatnonzero(active)
        current = state.current_player[live].astype(np.intp)
        acting_agent = seat_agent[live, current]
        actions = np.zeros(live.size, dtype=np.int64)
        for agent_index in np.unique(acting_agent).tolist():
            rows = np.flatnonzero(acting_agent == agent_index)
            games = live[rows]
            agent = agents[names[agent_index]]
            actions[rows] = policy_actions(agent, state, games, current[rows])
        totals_before = state.totals[live].copy()
        in_before = state.in_match[live].astype(np.intp)
        _, step_rewards, done = engine.step(state, actions, games=live)
        decisions[live] += 1
        rewards[live] += step_rewards[live]
        ended_round = state.rounds_ended[live] > 0
        if ended_round.any():
            rows = np.flatnonzero(ended_round)
            games = live[rows]
            was_in = (in_before[rows, None] >> seat_range[None, :]) & 1 == 1
            points = state.round_points[games]
            round_points[games] += np.where(was_in, points, 0)
            rounds_in[games] += was_in
            if rules.reset_at_target:
                hit = was_in & (totals_before[rows] + points == target)
                resets[games] += hit
        finished = live[done[live]]
        for game in finished.tolist():
            index = int(slot_match[game])
            results[index] = MatchResult(
                match=schedule[index],
                rewards=rewards[game].copy(),
                ranking=[int(p) for p in state.final_ranking[game]],
                totals=[int(t) for t in state.final_totals[game]],
                truncated=bool(state.truncated[game]),
                rounds=int(state.round[game]) + 1,
                round_points=round_points[game].copy(),
                rounds_in=rounds_in[game].copy(),
                resets=resets[game].copy(),
                decisions=int(decisions[game]),
            )
        if finished.size:
            if progress is not None:
                progress(int(finished.size))
            refill = finished[: max(0, min(finished.size, total - next_match))]
            stop = finished[refill.size :]
            active[stop] = False
            if refill.size:
                indices = np.arange(next_match, next_match + refill.size)
                next_match += refill.size
                slot_match[refill] = indices
                seat_agent[refill] = [[index_of[n] for n in schedule[i].seats] for i in indices]
                for array in (round_points, rounds_in, resets, rewards, decisions):
                    array[refill] = 0
                engine.reset_games(state, refill, np.array([schedule[i].seed for i in indices]))
    return results  # type: ignore[return-value]
