"""Leaf values for OpenSpiel's tree searches from rollouts the kit's engine plays.

``EngineRollouts`` has the interface of OpenSpiel's MCTS evaluators (``evaluate`` and
``prior``, as :class:`open_spiel.python.algorithms.mcts.RandomRolloutEvaluator`), so
``MCTSBot`` and ``ISMCTSBot`` take it where they take OpenSpiel's own. Its rollouts play
to the end of the game as OpenSpiel's do, with the same chance and the same utility, but
step the batched engine directly: all ``n_rollouts`` of a leaf at once, without a State
API call, a state copy or a chance node per action. The chance still open when the leaf
is reached is sampled first: an open event gets uniform outcomes through the match (as
chance nodes would), the cards of the stock nobody has drawn get a uniform order per
rollout, and later shuffles, steals and deals come from each rollout's own random stream.

The rollout policy is uniform over the legal actions by default (OpenSpiel's random
rollouts), or any policy with the kit's ``act(observations, masks)`` (the kit's bots and
trained policies: ``agents.load(...)``), whose shorter rounds make a rollout several
times cheaper.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ...game import engine
from ...tools.errors import StoOdnoError
from ...views.observation import ActingPolicy, policy_actions
from .match import Match
from .state import StoOdnoState


class EngineRollouts:
    """An OpenSpiel MCTS evaluator whose rollouts the engine plays (see the module).

    ``n_rollouts`` rollouts from each leaf, played as one engine batch; the leaf's value
    is their mean return per seat (the game's returns so far included). ``random_state``
    (a ``numpy.random.RandomState``, as OpenSpiel's bots take) draws the open chance, the
    rollouts' random streams and the uniform policy's actions. ``policy`` plays every
    seat in the rollouts (None: uniform over the legal actions).
    """

    def __init__(
        self,
        n_rollouts: int = 1,
        random_state: np.random.RandomState | None = None,
        policy: ActingPolicy | None = None,
    ):
        if isinstance(n_rollouts, bool) or not isinstance(n_rollouts, int) or n_rollouts < 1:
            raise StoOdnoError(f"n_rollouts must be a positive integer, got {n_rollouts!r}")
        self.n_rollouts = n_rollouts
        self.random_state = random_state or np.random.RandomState()
        self.policy = policy

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        """Each seat's mean return over ``n_rollouts`` rollouts from ``state`` (a state of
        ``python_sto_odno``)."""
        if not isinstance(state, StoOdnoState):
            raise StoOdnoError(
                f"EngineRollouts plays python_sto_odno states, got {state.get_game()}"
            )
        values = rollout_values(state._m, self.n_rollouts, self.random_state, self.policy)
        return values.mean(axis=0)

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        """Uniform over the legal actions (a chance node: its outcomes), as OpenSpiel's
        random-rollout evaluator gives."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


def settle_chance(match: Match, random_state: np.random.RandomState) -> Match:
    """``match`` with every open chance event given uniform outcomes until a decision or
    the end (a copy; ``match`` itself when no chance is open)."""
    if match.need is None:
        return match
    match = match.copy()
    while match.need is not None:
        remaining = match.events[match.need].remaining()
        match.apply(remaining[random_state.randint(len(remaining))])
    return match


def rollout_values(
    match: Match,
    n_rollouts: int,
    random_state: np.random.RandomState,
    policy: ActingPolicy | None = None,
) -> np.ndarray:
    """(n_rollouts, players): each seat's return at the end of the game in each of
    ``n_rollouts`` rollouts from ``match``, played by ``policy`` (None: uniform) in one
    engine batch."""
    if match.need is None or match.ahead:
        # At a decision: the one chance left open is the stock's order, drawn per rollout
        # below (a node that places the stock's next card is that too).
        starts = [match] * n_rollouts
    else:  # a deal, shuffle or steal under way: each rollout its own outcomes
        starts = [settle_chance(match, random_state) for _ in range(n_rollouts)]
    returns = np.array([start.returns for start in starts], dtype=np.float64)
    rows = [row for row, start in enumerate(starts) if not start.done]
    if not rows:
        return returns
    facts = match.facts
    state = _batch([starts[row]._reached() for row in rows])
    # Each rollout its own stream for the shuffles, steals and deals to come.
    state.rng_key[:] = random_state.randint(0, 2**63, size=len(rows), dtype=np.uint64)
    state.rng_counter[:] = 0
    for at, row in enumerate(rows):  # the stock's cards nobody drew yet, in a uniform order
        start = starts[row]
        if start.stack is not None:
            event = start.events[start.stack]
            order = [*event.revealed, *random_state.permutation(event.remaining()).tolist()]
            state.stock[at, : len(order)] = order[::-1]
    # The game ends with its last round: the rounds still to end, the current one included.
    rounds_left = np.array(
        [facts.rounds - sum(e.kind == "deck" for e in starts[row].events) + 1 for row in rows]
    )
    target = float(facts.rules.target)
    gains = np.zeros((len(rows), facts.players))
    rounds_ended = np.zeros(len(rows), dtype=np.int64)
    live = np.arange(len(rows))
    while live.size:
        if policy is None:
            actions = engine.sample_actions(
                state.legal_bits[live], random_state.random_sample(live.size)
            )
        else:
            seats = state.current_player[live].astype(np.intp)
            actions = policy_actions(policy, state, live, seats)
        _, rewards, done = engine.step(state, actions, games=live)
        gain = rewards[live].astype(np.float64)
        if facts.rounds:  # the game's round reward, as Match.advance adds it
            gain -= state.round_points[live] / target
            rounds_ended[live] += state.rounds_ended[live]
            done[live] |= rounds_ended[live] >= rounds_left[live]
        gains[live] += gain
        live = live[~done[live]]
    returns[rows] += gains
    return returns


def _batch(states: list[engine.State]) -> engine.State:
    """One engine batch of the batch-of-one ``states``, row i a copy of states[i]."""
    first = states[0]
    batch = first.take(np.zeros(len(states), dtype=np.intp))
    arrays = [name for name, value in vars(first).items() if isinstance(value, np.ndarray)]
    for row, state in enumerate(states):
        if state is not first:
            for name in arrays:
                getattr(batch, name)[row] = getattr(state, name)[0]
    return batch
