"""The whole game tree of a small rule set, expanded by the kit's engine level by level.

The root is one chance node: every first dealer and every order of the deck, all equally
likely (the engine's deal, docs/rules.md §3). Below it the batched engine steps every
legal action of every live node at once, one level of decisions at a time, so the rules
are the engine's own (forced decisions, one legal action, are settled by the engine and
are no nodes). A rule set whose play meets another random event (a shuffled new stock, a
steal, a second round's deal) is refused: the tree enumerates the deal only.

Information sets are those of perfect recall: a seat's observation now (the kit's
observation vector) and its observations and actions at each of its earlier decisions,
the same partition as OpenSpiel's ``python_sto_odno`` information state (docs/evaluation.md).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from sto_odno_env.game import engine
from sto_odno_env.game.rules import Rules, load_rules
from sto_odno_env.tools.errors import StoOdnoError
from sto_odno_env.views.observation import observe

DEFAULT_MAX_NODES = 3_000_000  # about 1 GiB while building; a micro tree is far below it


class ExactError(StoOdnoError):
    """Input the exact tools cannot use (a rule set, a profile, a solver setting)."""


class TreeTooLarge(ExactError):
    """The rule set's game tree has more histories than the exact tools walk."""


class NotEnumerable(ExactError):
    """The rule set meets a random event beyond the deal, which the tree does not branch on."""


@dataclasses.dataclass(frozen=True)
class GameTree:
    """A game tree in breadth-first order (the root is node 0, a chance node).

    Node arrays have one entry per node; the children of node ``n`` are the nodes
    ``first_child[n] : first_child[n] + num_children[n]``, in legal-action order. Decision
    nodes have ``player >= 0``; terminal nodes ``num_children == 0``; the root (the deal) is
    the only chance node, its children equally likely. ``infoset`` numbers the perfect-recall
    information sets of decision nodes (-1 elsewhere); ``observation`` numbers the distinct
    observations (``observations[k]`` is one, ``masks[k]`` its legal actions), so a policy
    that reads the observation only acts the same in every node with the same number.
    """

    rules: Rules
    players: int
    parent: np.ndarray  # (N,) int64, -1 for the root
    action: np.ndarray  # (N,) int16: the action that led here (-1 below the root's deal)
    player: np.ndarray  # (N,) int8: the seat to act, -1 at the root and terminals
    first_child: np.ndarray  # (N,) int64
    num_children: np.ndarray  # (N,) int64
    levels: tuple[int, ...]  # node index where each depth starts, and the end
    utility: np.ndarray  # (N, P) float64: the match rewards at a terminal, 0 elsewhere
    infoset: np.ndarray  # (N,) int64
    observation: np.ndarray  # (N,) int64
    infoset_player: np.ndarray  # (I,) int8
    infoset_observation: np.ndarray  # (I,) int64
    observations: np.ndarray  # (K, obs_size) float32
    masks: np.ndarray  # (K, A) int8
    deals: int  # the root's children

    @property
    def size(self) -> int:
        return len(self.parent)

    @property
    def decisions(self) -> int:
        return int((self.player >= 0).sum())

    @property
    def terminals(self) -> int:
        return int(((self.num_children == 0) & (np.arange(self.size) > 0)).sum())

    def infosets_of(self, seat: int) -> int:
        return int((self.infoset_player == seat).sum())

    def describe(self) -> str:
        """One line: histories, decisions, terminals, information states per seat."""
        seats = ", ".join(f"seat {s}: {self.infosets_of(s):,}" for s in range(self.players))
        return (
            f"{self.size:,} histories ({self.deals:,} deals, {self.decisions:,} decisions, "
            f"{self.terminals:,} terminals); information states {seats}; "
            f"{len(self.observations):,} distinct observations"
        )


class _DealChance:
    """The engine's chance source answering the deal from enumerated outcomes and refusing
    every other random event."""

    def __init__(self, dealers: np.ndarray, decks: np.ndarray):
        self.dealers, self.decks, self.dealt = dealers, decks, False

    def first_dealer(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        return self.dealers[games]

    def deck(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        if self.dealt:
            raise NotEnumerable(
                f"rules {state.rules.name!r}: a match goes on to a second round; the exact "
                "tools enumerate one deal (allowed: a rule set whose first round ends the "
                "match, e.g. match_end: first_loser with target below every card's points)"
            )
        return self.decks[games]

    def shuffle(self, state, games, cards, counts):
        raise NotEnumerable(
            f"rules {state.rules.name!r}: the stock is reshuffled at random; the exact tools "
            "enumerate the deal only (allowed: reshuffle: flip)"
        )

    def steal(self, state, games, drawer, victim):
        raise NotEnumerable(
            f"rules {state.rules.name!r}: an empty stock steals a random card; the exact "
            "tools enumerate the deal only (allowed: empty_stock: skip)"
        )


def deal_count(rules: Rules | str, players: int) -> int:
    """The root's outcomes: first dealers times orders of the deck."""
    rules = load_rules(rules)
    return players * math.factorial(rules.deck_spec.cards)


def build_tree(
    rules: Rules | str, players: int = 2, max_nodes: int = DEFAULT_MAX_NODES
) -> GameTree:
    """Expand the whole game tree of ``rules`` at ``players`` with the engine.

    Raises :class:`TreeTooLarge` (naming the size reached) past ``max_nodes`` histories and
    :class:`NotEnumerable` for a random event beyond the deal.
    """
    rules = load_rules(rules)
    rules.check_players(players)
    deals = deal_count(rules, players)
    if deals + 1 > max_nodes:
        raise TreeTooLarge(
            f"rules {rules.name!r} at {players} players: the deal alone has {deals:,} outcomes "
            f"({players} dealers x {rules.deck_spec.cards}! orders); the exact tools walk at "
            f"most {max_nodes:,} histories (allowed: a small deck, docs/rules.md §12)"
        )
    cards = rules.deck_spec.cards
    orders = np.array(list(itertools.permutations(range(cards))), dtype=np.int8)
    dealers = np.repeat(np.arange(players, dtype=np.int8), len(orders))
    decks = np.tile(orders, (players, 1))
    chance = _DealChance(dealers, decks)
    state = engine.init(rules, players, batch=deals, chance=chance)
    chance.dealt = True

    parents, actions, players_of = [np.array([-1])], [np.array([-1])], [np.array([-1])]
    utilities = [np.zeros((1, players))]
    # A seat's history so far: 0 at the start, then (infoset, action) of its last decision.
    history = np.zeros((deals, players), dtype=np.int64)
    infoset_keys: dict[tuple[int, int, int], int] = {}
    observation_keys: dict[bytes, int] = {}
    node_infosets, node_observations = [np.array([-1])], [np.array([-1])]
    observation_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    infoset_player: list[int] = []
    infoset_observation: list[int] = []
    width = rules.num_actions

    level_parents = np.zeros(deals, dtype=np.int64)
    level_actions = np.full(deals, -1, dtype=np.int64)
    rewards = np.zeros((deals, players))
    total = 1
    while True:
        count = len(level_parents)
        total += count
        if total > max_nodes:
            raise TreeTooLarge(
                f"rules {rules.name!r} at {players} players has more than {max_nodes:,} "
                f"histories (reached {total:,} at depth {len(parents)}); the exact tools walk "
                "at most that many (a smaller deck, hand or max_turns shrinks the tree)"
            )
        done = state.done.copy()
        seat = np.where(done, -1, state.current_player).astype(np.int8)
        parents.append(level_parents)
        actions.append(level_actions)
        players_of.append(seat)
        utilities.append(np.where(done[:, None], rewards, 0.0))
        live = np.flatnonzero(~done)
        infosets = np.full(count, -1, dtype=np.int64)
        observed = np.full(count, -1, dtype=np.int64)
        masks = engine.legal_mask(state)[live]
        if live.size:
            rows = observe(state, games=live)
            for k, game in enumerate(live):
                key = rows[k].tobytes()
                obs_id = observation_keys.get(key)
                if obs_id is None:
                    obs_id = observation_keys[key] = len(observation_rows)
                    observation_rows.append(rows[k])
                    mask_rows.append(masks[k])
                acting = int(seat[game])
                info_key = (acting, int(history[game, acting]), obs_id)
                info_id = infoset_keys.get(info_key)
                if info_id is None:
                    info_id = infoset_keys[info_key] = len(infoset_player)
                    infoset_player.append(acting)
                    infoset_observation.append(obs_id)
                infosets[game] = info_id
                observed[game] = obs_id
        node_infosets.append(infosets)
        node_observations.append(observed)
        if not live.size:
            break
        per_node = masks.sum(axis=1)
        source = np.repeat(live, per_node)
        chosen = np.nonzero(masks)[1]
        child = state.take(source)
        child_history = history[source].copy()
        actors = seat[source].astype(np.intp)
        child_history[np.arange(len(source)), actors] = infosets[source] * width + chosen + 1
        _, step_rewards, _ = engine.step(child, chosen, chance=chance)
        rewards = rewards[source] + step_rewards
        history = child_history
        level_parents = (total - count) + source
        level_actions = chosen
        state = child

    parent = np.concatenate(parents)
    offsets = np.cumsum([0, *map(len, parents)])
    size = int(offsets[-1])
    num_children = np.bincount(parent[1:], minlength=size).astype(np.int64)
    first_child = np.zeros(size, dtype=np.int64)
    has = num_children > 0
    # Children are appended in their parents' order, so each parent's children are a run.
    first_child[has] = np.searchsorted(parent[1:], np.flatnonzero(has)) + 1
    obs_size = observation_rows[0].shape[0] if observation_rows else 0
    return GameTree(
        rules=rules,
        players=players,
        parent=parent,
        action=np.concatenate(actions).astype(np.int16),
        player=np.concatenate(players_of).astype(np.int8),
        first_child=first_child,
        num_children=num_children,
        levels=tuple(int(v) for v in offsets),
        utility=np.concatenate(utilities).astype(np.float64),
        infoset=np.concatenate(node_infosets),
        observation=np.concatenate(node_observations),
        infoset_player=np.array(infoset_player, dtype=np.int8),
        infoset_observation=np.array(infoset_observation, dtype=np.int64),
        observations=np.array(observation_rows, dtype=np.float32).reshape(-1, obs_size),
        masks=np.array(mask_rows, dtype=np.int8).reshape(-1, width),
        deals=deals,
    )
