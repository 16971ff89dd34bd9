"""A deal that ends its match before anyone decides (docs/rules.md §8): the learner's table
and the AEC env deal the next seed instead.

At six classic players one deal of seed :data:`STUCK` leaves the dealer with the whole stock
and an eight to cover that only the other eight covers: the forced decisions alternate the
two eights through the reshuffles until ``max_turns`` truncates the match inside the deal.
The learner's table must deal such a game again, at its first reset and at an auto-reset in
the middle of a run (a training run stopped on it with ``seat must be in 0..5, got [-1, ...]``),
and the AEC env's ``reset`` must select an agent of the next seed's match (it failed with no
``agent_selection``).
"""

from __future__ import annotations

import numpy as np
import pytest

from sto_odno_env.bots.registry import load
from sto_odno_env.envs import learner as learner_module
from sto_odno_env.envs.learner import LearnerGames
from sto_odno_env.game import engine
from sto_odno_env.game.rules import Rules
from sto_odno_env.game.trace import Trace

STUCK = 2387357204105154366  # classic, 6 players (found by dealing 200,000 seeds)
PLAYERS = 6


def test_the_deal_is_truncated_by_forced_decisions_alone() -> None:
    trace = Trace(1)
    state = engine.init("classic", PLAYERS, 1, seeds=[STUCK], trace=trace)
    assert state.truncated[0] and not state.terminated[0]
    assert state.current_player[0] < 0
    (events,) = trace.matches
    actions = [event for event in events if event["type"] == "action"]
    assert len(actions) == Rules.preset("classic").max_turns
    assert all(event["forced"] for event in actions)
    assert {event["player"] for event in actions} == {actions[0]["player"]}  # the dealer
    assert events[-1]["type"] == "match_end" and events[-1]["truncated"]


def live_at_learner_turn(games: LearnerGames, game: int) -> bool:
    state = games.state
    return (
        not state.terminated[game]
        and not state.truncated[game]
        and state.current_player[game] == games.learner[game]
    )


@pytest.mark.parametrize("ready_share", [None, 1.0])
def test_a_first_deal_that_is_over_is_dealt_again(ready_share: float | None) -> None:
    expert = load("expert", "classic", PLAYERS)
    games = LearnerGames("classic", PLAYERS, 2, opponents=expert, ready_share=ready_share, seed=0)
    observations = games.reset(seeds=np.array([STUCK, 7]))
    assert all(live_at_learner_turn(games, game) for game in range(2))
    assert observations.any(axis=1).all()
    masks = games.masks().astype(bool)
    assert masks.any(axis=1).all()
    games.step(masks.argmax(axis=1))  # the first legal action of each game: the opponents play


def test_an_auto_reset_onto_such_a_deal_deals_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The illegal action ends game 0's match; its next match is the stuck deal once."""
    expert = load("expert", "classic", PLAYERS)
    games = LearnerGames("classic", PLAYERS, 2, opponents=expert, illegal_action="penalize")
    games.reset(seed=3)
    played_before = int(games.state.matches_played[0])
    real_next_seeds = learner_module.rng.next_seeds
    handed = []

    def stuck_once(seeds: np.ndarray) -> np.ndarray:
        if handed:
            return real_next_seeds(seeds)
        handed.append(True)
        return np.full(len(seeds), STUCK, dtype=np.int64)

    monkeypatch.setattr(learner_module.rng, "next_seeds", stuck_once)
    masks = games.masks().astype(bool)
    actions = masks.argmax(axis=1)
    actions[0] = int(np.flatnonzero(~masks[0])[0])  # illegal: game 0's episode ends
    result = games.step(actions)
    assert handed and result["illegal"][0] and result["terminated"][0]
    assert live_at_learner_turn(games, 0) and live_at_learner_turn(games, 1)
    assert games.state.matches_played[0] > played_before  # the stuck deal was played out
    games.step(games.masks().argmax(axis=1))


def test_the_aec_env_deals_the_next_seed_for_such_a_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``reset(seed=S)`` that lands on the stuck deal plays the next seed's match instead:
    an agent is selected, with a legal action, and nothing is over."""
    from sto_odno_env import sto_odno_v0
    from sto_odno_env.envs import aec
    from sto_odno_env.game import rng

    monkeypatch.setattr(aec.rng, "game_seeds", lambda seed, n: np.full(n, STUCK, np.int64))
    env = sto_odno_v0.env(rules="classic", players=PLAYERS, record=True)
    env.reset(seed=1)
    expected = engine.init("classic", PLAYERS, 1, seeds=rng.next_seeds(np.array([STUCK])))
    assert not expected.done[0]
    observation, reward, terminated, truncated, _ = env.last()
    assert not terminated and not truncated and reward == 0
    assert env.agent_selection == env.possible_agents[int(expected.current_player[0])]
    assert observation["action_mask"].any()
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert len(env.unwrapped.record()) < 100  # the record is the new deal's, not the stuck one's
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
