"""An API test of the engine for a rule set: run it after writing a new rules variant.

    from sto_odno_env.records.testing import api_test
    api_test(Rules.preset("classic").replace(stacking=True))   # raises AssertionError

Like Pgx's and PettingZoo's ``api_test``, one call plays seeded random matches and checks
what every rule set must keep:

* **masks against steps**: every action the mask allows steps without error, every other
  action raises :class:`~sto_odno_env.game.engine.IllegalActionError` and changes nothing, and
  after a step every live game waits on a decision with at least two legal actions;
* **determinism**: a game plays the same whatever the batch it is stepped in;
* **conservation**: the deck's 36 (or 52) cards are always in exactly one place (a hand,
  the stock or the pile), and the pile's card set matches the pile;
* **records**: the record of every match replays through :mod:`sto_odno_env.records.replay`.
"""

from __future__ import annotations

import json

import numpy as np

from ..game import engine, rng
from ..game.rules import Rules, load_rules
from .replay import replay_lines

__all__ = ["api_test"]


def api_test(
    rules: Rules | str,
    players: int | None = None,
    *,
    batch: int = 8,
    steps: int = 150,
    seed: int = 0,
) -> None:
    """Check the engine's API contract for ``rules`` (every player count it allows, or
    ``players``); raise AssertionError naming the first broken check."""
    rules = load_rules(rules)
    low, high = rules.players
    for count in [players] if players is not None else range(low, high + 1):
        _check_masks_and_cards(rules, count, batch, steps, seed)
        _check_batch_independence(rules, count, batch, steps, seed)


def _uniforms(state: engine.State, turn: int) -> np.ndarray:
    """Per-game uniforms in [0, 1) from the game's match seed and the step number alone,
    so a game's choices do not depend on the batch it is in."""
    keys = rng.mix64(state.seed.astype(np.uint64) ^ np.uint64(turn * 0x9E3779B97F4A7C15 % 2**64))
    return (keys >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _play(rules: Rules, players: int, seeds: np.ndarray, steps: int, check=None, finish=False):
    """Play ``steps`` engine steps of the games of ``seeds`` (``check`` the state before
    each), then on to the end of every match with ``finish``; return the state and trace."""
    trace = engine.Trace(len(seeds))
    state = engine.init(rules, players, len(seeds), seeds=seeds, trace=trace)
    turn = 0
    while not state.done.all() and (finish or turn < steps):
        if check is not None and turn < steps:
            check(state)
        actions = engine.sample_actions(state.legal_bits, _uniforms(state, turn))
        engine.step(state, actions, trace=trace)
        turn += 1
    return state, trace


def _check_masks_and_cards(rules: Rules, players: int, batch: int, steps: int, seed: int) -> None:
    where = f"{rules.name}, {players} players"

    def check(state: engine.State) -> None:
        _check_cards(state, where)
        masks = engine.legal_mask(state)
        live = np.flatnonzero(~state.done)
        counts = masks[live].sum(axis=1)
        assert (counts >= 2).all(), (
            f"{where}: game {live[counts < 2][0]} waits on a decision with "
            f"{counts.min()} legal action(s); the engine takes those itself"
        )
        game = int(live[0]) if live.size else None
        if game is None:
            return
        for action in range(rules.num_actions):
            trial = state.take([game])
            before = [
                value.copy() for value in vars(trial).values() if isinstance(value, np.ndarray)
            ]
            try:
                engine.step(trial, np.array([action]))
            except engine.IllegalActionError:
                assert not masks[game, action], (
                    f"{where}: action {action} is in the mask but the engine refuses it"
                )
                after = [value for value in vars(trial).values() if isinstance(value, np.ndarray)]
                assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True)), (
                    f"{where}: refusing the illegal action {action} changed the state"
                )
            else:
                assert masks[game, action], (
                    f"{where}: action {action} is not in the mask but the engine applies it"
                )

    seeds = rng.game_seeds(seed, batch)
    state, trace = _play(rules, players, seeds, steps, check, finish=True)
    _check_cards(state, where)
    lines = [json.dumps(event) for events in trace.current for event in events]
    matches = replay_lines(f"<api_test {where}>", lines)
    assert matches == batch, f"{where}: {matches} matches replayed, {batch} played"


def _check_cards(state: engine.State, where: str) -> None:
    """Every card in exactly one place, for every live game."""
    cards, all_cards = state.tables.deck.cards, int(state.tables.all_cards)
    for game in np.flatnonzero(~state.done).tolist():
        stock = state.stock[game, : state.stock_size[game]].tolist()
        pile = state.discard[game, : state.discard_size[game]].tolist()
        hands = [int(hand) for hand in state.hand[game]]
        places = [*stock, *pile]
        seen = sum(hand.bit_count() for hand in hands) + len(places)
        union = 0
        for card in places:
            union |= 1 << card
        for hand in hands:
            union |= hand
        assert seen == cards and union == all_cards, (
            f"{where}: game {game} holds {seen} cards in hands, stock and pile "
            f"({bin(union).count('1')} distinct); there are {cards}"
        )
        pile_bits = sum(1 << card for card in pile)
        assert pile_bits == int(state.discard_bits[game]), (
            f"{where}: game {game}: the pile's card set does not match the pile"
        )


def _check_batch_independence(
    rules: Rules, players: int, batch: int, steps: int, seed: int
) -> None:
    seeds = rng.game_seeds(seed + 1, batch)
    _, together = _play(rules, players, seeds, steps)
    for index, match_seed in enumerate(seeds[:3].tolist()):
        _, alone = _play(rules, players, np.array([match_seed]), steps)
        assert alone.current[0] == together.current[index], (
            f"{rules.name}, {players} players: match seed {match_seed} plays differently "
            f"alone than as game {index} of a batch of {batch}"
        )
