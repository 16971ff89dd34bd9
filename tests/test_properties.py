"""Property tests: random legal play over presets, player counts and variant switches.

Each example plays a small batch of uniformly random legal actions (``engine.sample_actions``
fed by a seeded numpy Generator) and checks, after every step, the invariants of docs/rules.md:
every card in exactly one place (§2), the top card is the last discard, a live game waits on a
decision with at least two legal actions (§4 forced decisions), the mask matches an
independent reading of §2, §4, §5, §6, seats out of the match hold no cards and keep their
totals (§7). Further tests check determinism, that a game of a batch is the same game played
alone, and that every finished match replays from its own record (§10).

Hypothesis is derandomized, so the examples (and the test) are the same on every run.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, fields

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sto_odno_env.game import engine
from sto_odno_env.game.rules import (
    AFTER_DRAW_RULES,
    DRAW_RULES,
    EMPTY_STOCK,
    PRESETS,
    RESHUFFLES,
    Rules,
)
from sto_odno_env.records import record, replay
from sto_odno_env.views.render import describe
from tests.helpers import set_bits
from tests.rules_oracle import deck_cards, playable, same_rank


def ids(rules: Rules) -> tuple[int, int, int, int, frozenset[int]]:
    """§1, §12 read plainly: (cards, draw, pass, call, suit orders) of the rule set's deck:
    plays 0…N-1, then one order per suit of the deck (four, or a small deck's), draw, pass
    and call."""
    cards = deck_cards(rules)
    n, suits = len(cards), len({suit for _, suit in cards})
    return n, n + suits, n + suits + 1, n + suits + 2, frozenset(range(n, n + suits))


# Fields a step rewrites in every game (outputs of the last step), so a finished game's
# untouched state is compared without them.
STEP_OUTPUTS = {
    "rewards",
    "round_points",
    "rounds_ended",
    "step_terminated",
    "step_truncated",
}

SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


# --- the parameters of an example -----------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    rules: Rules
    players: int
    seed: int

    def __repr__(self) -> str:  # short, for hypothesis' falsifying-example output
        d = self.rules.to_dict()
        switches = {
            key: d[key]
            for key in (
                "stacking",
                "draw_rule",
                "after_draw",
                "reshuffle",
                "empty_stock",
                "voluntary_draw",
                "last_card_effects",
                "cover_can_finish",
                "target",
                "max_turns",
            )
        }
        wild = d["effects"].get("Q", {}).get("wild")
        return (
            f"Variant({d['name']}, players={self.players}, seed={self.seed}, "
            f"queens_wild={wild}, {switches})"
        )


@st.composite
def variants(draw, short_matches: bool = False) -> Variant:
    """A preset, an allowed player count, the variant switches and a seed."""
    preset = draw(st.sampled_from(PRESETS))
    base = Rules.preset(preset)
    low, high = base.players
    players = draw(st.integers(low, high))
    cards = deck_cards(base)
    # a holder card and a paired rank the deck has (micro lacks Q♥ and the ace)
    holder = "Q♥" if ("Q", "♥") in cards else "".join(cards[-1])
    paired = "A" if any(rank == "A" for rank, _ in cards) else cards[-1][0]
    effects = base.to_dict()["effects"]
    queen = dict(effects.get("Q", {}))
    queen["wild"] = draw(st.booleans())
    effects["Q"] = queen
    changes = {
        "stacking": draw(st.booleans()),
        "draw_rule": draw(st.sampled_from(DRAW_RULES)),
        "after_draw": draw(st.sampled_from(AFTER_DRAW_RULES)),
        "reshuffle": draw(st.sampled_from(RESHUFFLES)),
        "empty_stock": draw(st.sampled_from(EMPTY_STOCK)),
        "voluntary_draw": draw(st.booleans()),
        "last_card_effects": draw(st.booleans()),
        "cover_can_finish": draw(st.booleans()),
        "effects": effects,
        # the §12 scoring switches (docs/rules.md)
        "holder_wins": draw(st.sampled_from([[], [holder]])),
        "multiplier_scope": draw(st.sampled_from(["round", "total"])),
        "bonus_combo": draw(st.booleans()),
        "leftover_bonus": draw(st.sampled_from(["ordinary", "subtract", "single_adds"])),
        "last_card_call": draw(st.booleans()),
        "call_penalty": draw(st.integers(1, 3)),
        # §12: a third of the examples (micro keeps its small deck: its points name its ranks)
        "deck": draw(st.sampled_from([36, 36, 52])) if base.deck.full else base.deck.value(),
    }
    if draw(st.booleans()):
        changes["points"] = {**base.to_dict()["points"], paired: [1, 11]}
        if changes["deck"] == 52 and draw(st.booleans()):
            changes["points"]["2"] = [2, 12]  # a low card with a pair
    if short_matches:
        # Whole matches must finish quickly: random play makes long rounds, so a low target
        # (the reset at exactly the target still applies) and a low turn cap, which
        # truncates the match at the first round that reaches it (§8).
        changes["target"] = draw(st.sampled_from([15, 30, 60]))
        changes["max_turns"] = draw(st.sampled_from([40, 150, 400]))
    rules = base.replace(**changes)
    seed = draw(st.integers(0, 2**40))
    return Variant(rules, players, seed)


# --- an independent reading of the rules -----------------------------------------------------


def actions_of(bits: int) -> set[int]:
    return {a for a in range(64) if bits >> a & 1}


def expected_legal(state: engine.State, b: int) -> set[int]:
    """§4, §5, §6: the legal actions of the player to act, from the public state."""
    rules = state.rules
    n, DRAW, PASS, CALL, ALL_ORDERS = ids(rules)
    NO_CARD = n
    player = int(state.current_player[b])
    phase = int(state.phase[b])
    hand = set(set_bits(int(state.hand[b, player])))
    top = int(state.top_card[b])
    ordered = int(state.ordered_suit[b])
    can_draw = rules.empty_stock == "steal" or state.stock_size[b] > 0 or state.discard_size[b] > 1
    if phase == engine.ORDER:
        return set(ALL_ORDERS)
    if phase == engine.PHASE_CALL:  # §12: a play left one card; call or pass, never forced
        assert rules.last_card_call and len(hand) == 1, (rules.last_card_call, hand)
        return {PASS, CALL}
    if phase == engine.RESPOND:
        answers = {c for c in hand if same_rank(rules, c, top) and rules.effect_of(c).draw > 0}
        return answers | {DRAW}
    cards = hand & playable(rules, top, ordered)
    if phase == engine.AFTER_DRAW:
        if rules.after_draw == "drawn_card":
            cards &= {int(state.drawn_card[b])}
        return cards | {PASS}
    if phase == engine.COVER:
        if cards:
            return cards
        return {DRAW if can_draw else PASS}
    assert phase == engine.PLAY, phase
    wants_draw = not cards or (rules.voluntary_draw and top != NO_CARD)
    if top == NO_CARD:  # leader_plays: the leader opens on the empty table, no DRAW (§3)
        wants_draw = False
    extra = {DRAW if can_draw else PASS} if wants_draw else set()
    return cards | extra


# --- the per-step checks ----------------------------------------------------------------------


def seats_in(state: engine.State, b: int) -> list[int]:
    return [p for p in range(state.players) if state.in_match[b] >> p & 1]


def check_cards(state: engine.State, b: int) -> None:
    """Each of the deck's cards (36, or 52) is in exactly one place; the top card is the
    last discard."""
    NUM_CARDS = len(deck_cards(state.rules))
    where: Counter[int] = Counter()
    for p in range(state.players):
        where.update(set_bits(int(state.hand[b, p])))
    stock = state.stock[b, : state.stock_size[b]].tolist()
    pile = state.discard[b, : state.discard_size[b]].tolist()
    where.update(stock)
    where.update(pile)
    assert sorted(where) == list(range(NUM_CARDS)), f"game {b}: cards missing {where}"
    assert set(where.values()) == {1}, f"game {b}: cards in two places {where}"
    assert sum(where.values()) == NUM_CARDS
    if pile:
        assert state.top_card[b] == pile[-1], f"game {b}: top card is not the last discard"
        assert int(state.discard_bits[b]) == sum(1 << c for c in pile)
    else:
        assert state.rules.opening == "leader_plays"
        assert state.top_card[b] == NUM_CARDS


def check_live_game(state: engine.State, b: int) -> None:
    rules = state.rules
    player = int(state.current_player[b])
    assert player in seats_in(state, b), f"game {b}: player {player} to act is not in"
    assert len(seats_in(state, b)) >= 2
    for p in range(state.players):
        if p not in seats_in(state, b):
            assert state.hand[b, p] == 0, f"game {b}: seat {p} is out but holds cards"
    assert 0 <= state.turn[b] < rules.max_turns
    legal = actions_of(int(state.legal_bits[b]))
    mask = engine.legal_mask(state)[b]
    assert set(np.flatnonzero(mask).tolist()) == legal
    assert len(legal) >= 2, f"game {b}: a forced or empty decision is shown: {legal}"
    hand = set(set_bits(int(state.hand[b, player])))
    offered = {a for a in legal if a < len(deck_cards(rules))}
    assert offered <= hand, f"game {b}: the mask offers cards not in hand: {offered - hand}"
    assert legal == expected_legal(state, b), (
        f"game {b} phase {engine.PHASE_NAMES[state.phase[b]]}: mask {sorted(legal)}, "
        f"rules give {sorted(expected_legal(state, b))}\n{describe(state, b)}"
    )
    phase = int(state.phase[b])
    top = int(state.top_card[b])
    if state.ordered_suit[b] >= 0:
        assert rules.effect_of(top).order_suit
    if phase == engine.ORDER:
        assert rules.effect_of(top).order_suit
    if phase == engine.COVER:
        assert rules.effect_of(top).cover
    if phase == engine.RESPOND:
        assert rules.stacking and state.pending[b] > 0
    elif phase != engine.PHASE_CALL:  # a stacking answer's CALL comes before its penalty
        assert state.pending[b] == 0


def check_match_end(state: engine.State, b: int) -> None:
    """§7, §8: the ranking of a finished match."""
    ranking = state.ranking[b].tolist()
    assert sorted(ranking) == list(range(state.players))
    totals = state.totals[b]
    eliminated = state.eliminated_round[b]
    if state.truncated[b] or state.rules.match_end == "last_survivor":
        # players still in by total, then the eliminated, later eliminations first
        keys = [
            (0 if eliminated[p] < 0 else 1, -int(eliminated[p]), int(totals[p])) for p in ranking
        ]
    else:
        keys = [(0, 0, int(totals[p])) for p in ranking]
    assert keys == sorted(keys), f"game {b}: ranking {ranking} with totals {totals.tolist()}"


def check_next_dealer(before: engine.State, after: engine.State, b: int) -> None:
    """§3: the next round's dealer, or leader under leader_plays."""
    assert after.round[b] == before.round[b] + 1
    seats = seats_in(after, b)
    if after.rules.opening == "leader_plays":
        previous = int(after.last_finisher[b])  # the leader is the finisher if still in
        if previous in seats:
            assert after.dealer[b] == previous
            return
    else:
        previous = int(before.dealer[b])
    following = [(previous + k) % after.players for k in range(1, after.players + 1)]
    assert after.dealer[b] == next(p for p in following if p in seats), (
        f"game {b}: dealer {after.dealer[b]} after {previous}, seats in {seats}"
    )


class Checker:
    """Checks every game after each step, remembering what must not change."""

    def __init__(self, state: engine.State):
        self.out_totals: dict[tuple[int, int], int] = {}
        self.previous = state.copy()
        for b in range(state.batch):
            self.check_game(state, b)

    def step(self, state: engine.State) -> None:
        before = self.previous
        for b in range(state.batch):
            if before.done[b]:
                # A finished match is exempt from the live checks only if left untouched.
                for f in fields(state):
                    value = getattr(state, f.name)
                    if isinstance(value, np.ndarray) and f.name not in STEP_OUTPUTS:
                        assert np.array_equal(value[b], getattr(before, f.name)[b]), (
                            f"game {b}: {f.name} changed after the match ended"
                        )
                check_cards(state, b)
                continue
            self.check_game(state, b)
            if state.rounds_ended[b] == 0:
                assert (state.totals[b] == before.totals[b]).all()
                assert state.round[b] == before.round[b]
                assert state.dealer[b] == before.dealer[b]
            elif state.rounds_ended[b] == 1:
                totals = before.totals[b] + state.round_points[b]
                if state.rules.reset_at_target:
                    totals = np.where(totals == state.rules.target, 0, totals)
                assert (state.totals[b] == totals).all()
                if not state.done[b]:
                    check_next_dealer(before, state, b)
        self.previous = state.copy()

    def check_game(self, state: engine.State, b: int) -> None:
        check_cards(state, b)
        target = state.rules.target
        for p in range(state.players):
            total = int(state.totals[b, p])
            if p not in seats_in(state, b):
                assert total > target, f"game {b}: seat {p} is out with {total}"
                assert self.out_totals.setdefault((b, p), total) == total, (
                    f"game {b}: total of seat {p}, out of the match, changed"
                )
            elif not state.done[b]:
                assert total <= target, f"game {b}: seat {p} is still in with {total}"
                assert state.eliminated_round[b, p] == -1
        if state.done[b]:
            assert state.phase[b] == engine.DONE
            assert state.legal_bits[b] == 0
            assert state.current_player[b] == engine.NOBODY
            check_match_end(state, b)
        else:
            check_live_game(state, b)


def random_play(
    variant: Variant,
    batch: int,
    max_steps: int,
    *,
    check: bool = False,
    trace: engine.Trace | None = None,
    seeds: np.ndarray | None = None,
) -> tuple[engine.State, list[np.ndarray]]:
    """Play uniformly random legal actions; return the final state and the actions taken."""
    generator = np.random.default_rng(variant.seed)
    state = engine.init(
        variant.rules, variant.players, batch, seed=variant.seed, seeds=seeds, trace=trace
    )
    checker = Checker(state) if check else None
    taken = []
    for _ in range(max_steps):
        if state.done.all():
            break
        actions = engine.sample_actions(state.legal_bits, generator.random(batch))
        taken.append(actions)
        engine.step(state, actions, trace=trace)
        if checker is not None:
            checker.step(state)
    return state, taken


def replay_with_actions(
    variant: Variant, seeds: np.ndarray, actions: list[np.ndarray], trace: engine.Trace
) -> engine.State:
    state = engine.init(variant.rules, variant.players, len(seeds), seeds=seeds, trace=trace)
    for step_actions in actions:
        if state.done.all():
            break
        engine.step(state, step_actions, trace=trace)
    return state


# --- the tests ---------------------------------------------------------------------------------


@pytest.mark.slow  # a whole-suite check; the fast tier keeps the cheaper properties
@settings(max_examples=40, **SETTINGS)
@given(
    variant=variants(),
    batch=st.sampled_from([8, 16, 32]),
    steps=st.sampled_from([80, 300]),
)
def test_invariants_after_every_step(variant: Variant, batch: int, steps: int) -> None:
    random_play(variant, batch, max_steps=steps, check=True)


@pytest.mark.slow  # a whole-suite check; the fast tier keeps the cheaper properties
@settings(max_examples=25, **SETTINGS)
@given(variant=variants(short_matches=True))
def test_invariants_through_whole_matches(variant: Variant) -> None:
    state, _ = random_play(variant, 8, max_steps=20_000, check=True)
    assert state.done.all()


@pytest.mark.slow  # a whole-suite check; the fast tier keeps the cheaper properties
@settings(max_examples=25, **SETTINGS)
@given(variant=variants())
def test_same_seed_same_records(variant: Variant) -> None:
    first, second = engine.Trace(8), engine.Trace(8)
    state_a, actions_a = random_play(variant, 8, 150, trace=first)
    state_b, actions_b = random_play(variant, 8, 150, trace=second)
    assert first.current == second.current
    assert first.matches == second.matches
    assert all(np.array_equal(a, b) for a, b in zip(actions_a, actions_b, strict=True))
    for f in fields(state_a):
        value = getattr(state_a, f.name)
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, getattr(state_b, f.name)), f.name


@pytest.mark.slow  # a whole-suite check; the fast tier keeps the cheaper properties
@settings(max_examples=15, **SETTINGS)
@given(variant=variants(short_matches=True), data=st.data())
def test_batch_game_equals_game_alone_and_replays(variant: Variant, data) -> None:
    batch = 8
    trace = engine.Trace(batch)
    state, actions = random_play(variant, batch, max_steps=20_000, trace=trace)
    assert state.done.all()
    seeds = state.seed.copy()

    # One game, played alone from its own seed with the same actions, is the same game.
    b = data.draw(st.integers(0, batch - 1), label="game")
    alone_trace = engine.Trace(1)
    alone = replay_with_actions(
        variant, seeds[[b]], [step_actions[[b]] for step_actions in actions], alone_trace
    )
    assert alone_trace.current[0] == trace.current[b]
    single = state.take([b])
    for f in fields(state):
        value = getattr(alone, f.name)
        if isinstance(value, np.ndarray) and f.name not in STEP_OUTPUTS:
            assert np.array_equal(value, getattr(single, f.name)), f.name

    # The games of a batch do not depend on each other's place or company.
    order = np.array(data.draw(st.permutations(range(batch)), label="order"))
    shuffled_trace = engine.Trace(batch)
    replay_with_actions(
        variant, seeds[order], [step_actions[order] for step_actions in actions], shuffled_trace
    )
    for new, old in enumerate(order):
        assert shuffled_trace.current[new] == trace.current[old]

    # Every game replays from its own record.
    assert len(trace.matches) == batch
    for b, events in enumerate(trace.current):
        assert events[0]["type"] == "match" and events[-1]["type"] == "match_end"
        assert events[0]["seed"] == int(seeds[b])
        text = [json.dumps(event, ensure_ascii=False) for event in events]
        assert replay.replay_lines(f"game-{b}", text) == 1


@pytest.mark.parametrize("preset", PRESETS)
def test_step_after_every_match_ended_changes_nothing(preset: str) -> None:
    """Actions of finished games are ignored, also when no game of the batch is live."""
    variant = Variant(Rules.preset(preset).replace(max_turns=30), 2, seed=3)
    state, _ = random_play(variant, 4, max_steps=10_000)
    assert state.done.all()
    before = state.copy()
    for actions in ([0, 0, 0, 0], [engine.DRAW] * 4, [engine.PASS] * 4):
        _, rewards, done = engine.step(state, np.array(actions))
        assert not done.any()
        assert not rewards.any()
    for f in fields(state):
        value = getattr(state, f.name)
        if isinstance(value, np.ndarray) and f.name not in STEP_OUTPUTS:
            assert np.array_equal(value, getattr(before, f.name)), f.name


@pytest.mark.parametrize(
    "preset", [p if p == "nines" else pytest.param(p, marks=pytest.mark.slow) for p in PRESETS]
)
def test_written_records_replay(preset: str, tmp_path) -> None:
    rules = Rules.preset(preset).replace(target=40)
    matches = record.play_random_matches(rules, rules.players[0], 4, seed=7)
    path = tmp_path / f"{preset}.jsonl"
    record.write_records(path, matches)
    assert replay.replay(path) == 4


# --- the random legal choice ------------------------------------------------------------------


@settings(**SETTINGS, max_examples=200)
@given(
    width=st.sampled_from([42, 43, 58, 59]),  # 36 or 52 cards, without or with the call
    data=st.data(),
    uniform=st.floats(min_value=0.0, max_value=1.0, exclude_max=True),
)
def test_sample_actions_picks_the_kth_legal_action(width, data, uniform):
    """sample_actions takes the floor(u * count)-th legal action (0 when none is legal)."""
    masks = data.draw(
        st.lists(st.integers(min_value=0, max_value=(1 << width) - 1), min_size=1, max_size=40)
    )
    bits = np.array(masks, dtype=np.uint64)
    uniforms = np.full(len(masks), uniform)
    chosen = engine.sample_actions(bits, uniforms).tolist()
    for mask, action in zip(masks, chosen, strict=True):
        legal = [a for a in range(width) if mask >> a & 1]
        assert action == (legal[int(uniform * len(legal))] if legal else 0)


# --- the §12 scoring switches against the oracle ------------------------------------------


@st.composite
def scoring_cases(draw):
    """A rule set with random §12 scoring switches, a round's end: hands, old totals, the
    finisher, its card plays and last card."""
    base = Rules.preset(draw(st.sampled_from(PRESETS)))
    # A full deck's preset plays 36 or 52 cards; a small deck's (micro) keeps its deck, and
    # its pairs and holder_wins name only its ranks and cards (no other rule set fits it).
    small = base.deck if not base.deck.full else None
    deck = base.deck.value() if small else draw(st.sampled_from([36, 52]))
    points = {rank: value for rank, value in base.to_dict()["points"].items()}
    pairs = [("A", [1, 11]), ("K", [1, 4])] + ([("3", [0, 3]), ("5", 7)] if deck == 52 else [])
    holders = ["Q♥", "K♣", "9"]
    if small:
        ranks, suits = small.rank_names, small.suit_symbols
        pairs = [(ranks[0], [0, 5]), (ranks[-1], [1, 4])]
        holders = [ranks[-1] + suits[-1], ranks[0] + suits[0], ranks[len(ranks) // 2]]
    for rank, pair in draw(st.lists(st.sampled_from(pairs))):
        points[rank] = pair
    changes = {
        "points": points,
        "holder_wins": draw(st.lists(st.sampled_from(holders), unique=True)),
        "multiplier_scope": draw(st.sampled_from(["round", "total"])),
        "bonus_combo": draw(st.booleans()),
        "leftover_bonus": draw(st.sampled_from(["ordinary", "subtract", "single_adds"])),
        "reset_at_target": draw(st.booleans()),
        "deck": deck,
    }
    if deck == 52:
        changes["holder_wins"] = draw(st.lists(st.sampled_from(["Q♥", "2♣", "4"]), unique=True))
    rules = base.replace(**changes)
    players = draw(st.integers(2, min(4, rules.players[1])))
    cards = draw(st.permutations(range(rules.deck.cards)))
    finisher = draw(st.integers(0, players - 1))
    sizes = [0 if p == finisher else draw(st.integers(0, 5)) for p in range(players)]
    hands, start = [], 0
    for size in sizes:
        hands.append(set(cards[start : start + size]))
        start += size
    plays = list(cards[start : start + draw(st.integers(0, 5))])
    last = plays[-1] if plays and draw(st.booleans()) else None
    if last is None:
        plays = plays[:-1] if plays else plays
    old = [draw(st.integers(-60, rules.target)) for _ in range(players)]
    return rules, hands, old, finisher, last, plays


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=scoring_cases())
def test_switch_scoring_matches_the_oracle(case) -> None:
    """§7 and the §12 scoring switches: the engine's round points equal the oracle's."""
    from sto_odno_env.game.core.scoring import note_plays, score_rounds
    from tests.rules_oracle import round_points

    rules, hands, old, finisher, last, plays = case
    state = engine.empty_state(rules, len(hands), 1)
    for seat, hand in enumerate(hands):
        state.hand[0, seat] = sum(1 << c for c in hand)
    state.totals[0] = old
    game = np.array([0])
    if state.combo_points is not None:
        for card in plays:  # the last card, if any, is the last of them
            note_plays(state, game, np.array([finisher]), np.array([card], dtype=np.int8))
    last_card = np.array([rules.deck.no_card if last is None else last], dtype=np.int8)
    score_rounds(state, game, np.array([finisher], dtype=np.int8), last_card, None)
    expected = round_points(rules, hands, old, finisher, last, plays)
    assert state.round_points[0].tolist() == expected, (rules.to_dict(), hands, old)
