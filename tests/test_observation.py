"""The observation vector (``sto_odno_env.views.observation``): the layout table, its one-hot
blocks, that nothing hidden leaks into it (a hypothesis property over presets, player counts
and random mid-game states), the drawn card, and decoding with ``ObservationView``.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sto_odno_env import Rules
from sto_odno_env.game import engine
from sto_odno_env.game.cards import PHASE_CALL, PHASE_PLAY
from sto_odno_env.views.observation import (
    LAYOUT,
    NUM_FLAGS,
    OBS_SIZE,
    ONE_HOT_FIELDS,
    STATE_VERSION,
    ObservationView,
    global_state,
    obs_size,
    observation_space,
    observe,
    observe_one,
    pending_bound,
    state_layout,
    state_size,
    state_space,
    total_bounds,
)
from sto_odno_env.views.observation import layout as observation_layout
from tests.helpers import set_bits
from tests.preset_combos import COMBO_PARAMS, COMBOS

# The table of the module docstring: name, size, kind.
TABLE = [
    ("hand", 36, "bits"),
    ("discard", 36, "bits"),
    ("others_in", 5, "bits"),
    ("others_dealer", 5, "bits"),
    ("own_dealer", 1, "bits"),
    ("top_card", 37, "onehot"),
    ("ordered_suit", 5, "onehot"),
    ("phase", 6, "onehot"),
    ("drawn_card", 37, "onehot"),
    ("to_act", 7, "onehot"),
    ("pending", 1, "scalar"),
    ("stock_size", 1, "scalar"),
    ("others_hand_size", 5, "scalar"),
    ("others_total", 5, "scalar"),
    ("own_total", 1, "scalar"),
    ("num_players", 1, "scalar"),
]


def play_random(state: engine.State, steps: int, generator) -> engine.State:
    for _ in range(steps):
        if state.done.all():
            break
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(state.batch)))
    return state


@functools.cache
def sample_states(preset: str | Rules, players: int) -> tuple[engine.State, ...]:
    """Snapshots of 12 random-play games after 0, 20, 120, 400 and 900 decisions (some
    rounds have been scored by then, some games may be over)."""
    state = engine.init(preset, players, 12, seed=players)
    generator = np.random.default_rng(players)
    snapshots, done = [], 0
    for target in (0, 20, 120, 400, 900):
        play_random(state, target - done, generator)
        done = target
        snapshots.append(state.copy())
    return tuple(snapshots)


# --- the layout -------------------------------------------------------------------------------


def test_layout_table():
    assert list(LAYOUT) == [name for name, _, _ in TABLE]
    start = 0
    for name, size, _ in TABLE:
        assert LAYOUT[name] == slice(start, start + size), name
        start += size
    assert OBS_SIZE == start == 189
    assert NUM_FLAGS == LAYOUT["to_act"].stop == 175
    assert set(ONE_HOT_FIELDS) == {name for name, _, kind in TABLE if kind == "onehot"}


@pytest.mark.parametrize(("preset", "players"), COMBO_PARAMS)
def test_flags_are_bits_and_one_hot_blocks_sum_to_one(preset, players):
    rules = Rules.preset(preset)
    fields = observation_layout(rules)  # LAYOUT, or a small deck's (micro)
    for state in sample_states(preset, players):
        for seat in range(players):
            obs = observe(state, seat)
            assert obs.shape == (12, obs_size(rules)) and obs.dtype == np.float32
            assert np.isin(obs[:, : fields["to_act"].stop], (0.0, 1.0)).all()
            for name in ONE_HOT_FIELDS:
                np.testing.assert_array_equal(obs[:, fields[name]].sum(axis=1), 1.0, err_msg=name)
            for name in ("pending", "stock_size", "others_hand_size", "num_players"):
                assert (obs[:, fields[name]] >= 0).all(), name
            # seats beyond the player count are zero
            for name in ("others_in", "others_dealer", "others_hand_size", "others_total"):
                assert not obs[:, fields[name]][:, players - 1 :].any(), name


def test_observe_batch_forms_agree():
    """``seat`` as an int, an array, None (the player to act); ``games``; ``out``."""
    state = sample_states("classic", 4)[2]
    full = observe(state, 1)
    seats = np.array([0, 1, 2, 3] * 3)
    mixed = observe(state, seats)
    for b in range(12):
        np.testing.assert_array_equal(mixed[b], observe(state, int(seats[b]))[b])
    current = observe(state)
    for b in range(12):
        seat = max(int(state.current_player[b]), 0)
        np.testing.assert_array_equal(current[b], observe(state, seat)[b])
    games = np.array([3, 7])
    np.testing.assert_array_equal(observe(state, 1, games=games), full[games])
    buffer = np.empty((12, OBS_SIZE), dtype=np.float32)
    assert observe(state, 1, out=buffer) is buffer
    np.testing.assert_array_equal(buffer, full)
    with pytest.raises(ValueError):
        observe(state, 4)


# --- nothing hidden leaks ---------------------------------------------------------------------


def hide_differently(state: engine.State, observer: int, mode: str, generator) -> engine.State:
    """A copy of game 0 whose hidden cards (for ``observer``) are dealt differently.

    ``hands``: the other seats' cards are shuffled among them, keeping hand sizes;
    ``stock``: the stock order is shuffled; ``all``: the other hands and the stock are
    shuffled together (cards move between hands and the stock), sizes kept.
    """
    new = state.take([0])
    others = [p for p in range(state.players) if p != observer]
    hand_cards = {p: set_bits(state.hand[0, p]) for p in others}
    stock = state.stock[0, : state.stock_size[0]].tolist()
    if mode == "hands":
        pool = [c for p in others for c in hand_cards[p]]
        generator.shuffle(pool)
        new_stock = stock
    elif mode == "stock":
        pool = [c for p in others for c in hand_cards[p]]
        new_stock = list(generator.permutation(stock)) if stock else []
    else:
        pool = [c for p in others for c in hand_cards[p]] + stock
        generator.shuffle(pool)
        new_stock = pool[len(pool) - len(stock) :]
    position = 0
    for p in others:
        count = len(hand_cards[p])
        new.hand[0, p] = sum(1 << int(c) for c in pool[position : position + count])
        position += count
    new.stock[0, : len(stock)] = new_stock
    # still a deal: every card in exactly one place
    places = [c for p in range(state.players) for c in set_bits(new.hand[0, p])]
    places += new.stock[0, : new.stock_size[0]].tolist()
    places += new.discard[0, : new.discard_size[0]].tolist()
    assert sorted(places) == list(range(state.tables.deck.cards))
    for p in range(state.players):
        assert len(set_bits(new.hand[0, p])) == len(set_bits(state.hand[0, p]))
    return new


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    combo=st.sampled_from(COMBOS),
    seed=st.integers(0, 2**31 - 1),
    steps=st.integers(0, 700),
    observer=st.integers(0, 5),
    mode=st.sampled_from(["hands", "stock", "all"]),
    shuffle_seed=st.integers(0, 2**32 - 1),
)
def test_hidden_cards_do_not_change_the_observation(
    combo, seed, steps, observer, mode, shuffle_seed
):
    preset, players = combo
    observer %= players
    state = play_random(
        engine.init(preset, players, 1, seed=seed), steps, np.random.default_rng(seed)
    )
    other = hide_differently(state, observer, mode, np.random.default_rng(shuffle_seed))
    np.testing.assert_array_equal(observe(state, observer), observe(other, observer))


def test_the_observer_sees_its_own_hand_change():
    """The leak test has teeth: moving a card between the observer's hand and the stock
    changes the observation."""
    state = sample_states("classic", 3)[1].take([0])
    own = set_bits(state.hand[0, 0])
    stock_top = int(state.stock[0, state.stock_size[0] - 1])
    other = state.copy()
    other.hand[0, 0] = (int(state.hand[0, 0]) & ~(1 << own[0])) | (1 << stock_top)
    other.stock[0, state.stock_size[0] - 1] = own[0]
    assert not np.array_equal(observe(state, 0), observe(other, 0))
    np.testing.assert_array_equal(observe(state, 1), observe(other, 1))  # hidden from seat 1


@pytest.mark.parametrize(("preset", "players"), [("classic", 3), ("encyclopedia", 4), ("yard", 2)])
def test_drawn_card_shows_only_to_the_drawer(preset, players):
    state = engine.init(preset, players, 64, seed=21)
    generator = np.random.default_rng(21)
    checked = 0
    for _ in range(200):
        play_random(state, 1, generator)
        after_draw = np.flatnonzero(state.phase == engine.AFTER_DRAW)
        for seat in range(players):
            view = ObservationView(observe(state, seat))
            drawer = after_draw[state.current_player[after_draw] == seat]
            np.testing.assert_array_equal(view.drawn_card[drawer], state.drawn_card[drawer])
            rest = np.setdiff1d(np.arange(64), drawer)
            assert (view.drawn_card[rest] == -1).all()
        checked += len(after_draw)
    assert checked > 100


# --- decoding -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), COMBO_PARAMS)
def test_observation_view_decodes_the_raw_values(preset, players):
    rules = Rules.preset(preset)
    target, no_card = rules.target, rules.deck.no_card
    nonzero_totals = False
    for state in sample_states(preset, players):
        nonzero_totals |= bool(state.totals.any())
        for seat in range(players):
            view = ObservationView(observe(state, seat), target=target, cards=rules.deck)
            for b in range(state.batch):
                hand = set_bits(state.hand[b, seat])
                assert np.flatnonzero(view.hand[b]).tolist() == hand
                discard = sorted(state.discard[b, : state.discard_size[b]].tolist())
                assert np.flatnonzero(view.discard[b]).tolist() == discard
                top = int(state.top_card[b])
                assert view.top_card[b] == (-1 if top == no_card else top)
                assert view.ordered_suit[b] == int(state.ordered_suit[b])
                phase = int(state.phase[b])
                assert view.phase[b] == (-1 if phase == engine.DONE else phase)
                current = int(state.current_player[b])
                assert view.to_act[b] == (-1 if current < 0 else (current - seat) % players)
                assert view.pending[b] == state.pending[b]
                assert view.stock_size[b] == state.stock_size[b]
                assert view.num_players[b] == players
                assert view.own_total[b] == state.totals[b, seat]
                others = [(seat + k) % players for k in range(1, players)]
                sizes = [len(set_bits(state.hand[b, p])) for p in others]
                assert view.others_hand_size[b].tolist() == sizes + [0] * (6 - players)
                totals = [int(state.totals[b, p]) for p in others]
                assert view.others_total[b].tolist() == totals + [0] * (6 - players)
                ins = [bool(int(state.in_match[b]) >> p & 1) for p in others]
                assert view.others_in[b].tolist() == ins + [False] * (6 - players)
                dealer = int(state.dealer[b])
                own_dealer = view.field("own_dealer")[b, 0] == 1.0
                assert own_dealer == (dealer == seat)
                dealers = np.flatnonzero(view.field("others_dealer")[b]).tolist()
                assert dealers == ([] if dealer == seat else [others.index(dealer)])
    assert nonzero_totals


# --- the one-game encoder ---------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), COMBO_PARAMS)
def test_observe_one_equals_the_batched_observation(preset, players):
    """observe_one (Python scalars, used at batch one) encodes exactly what observe does,
    for every seat, in fresh, mid-game and finished games."""
    for state in sample_states(preset, players):
        for seat in range(players):
            batched = observe(state, seat)
            for game in range(state.batch):
                np.testing.assert_array_equal(observe_one(state, seat, game), batched[game])


def test_observe_one_rejects_a_seat_outside_the_table():
    state = engine.init("classic", 3, 1)
    with pytest.raises(ValueError, match=r"seat must be in 0\.\.2"):
        observe_one(state, 3)


# --- the spaces' bounds -----------------------------------------------------------------------

VARIANTS = {
    "stacking": Rules.preset("ukrainian").replace(stacking=True),
    "call+stacking": Rules.preset("classic").replace(last_card_call=True, stacking=True),
    "deck 52": Rules.preset("classic").replace(deck=52),
    "scope total": Rules.preset("encyclopedia").replace(multiplier_scope="total"),
    "combo": Rules.preset("yard").replace(bonus_combo=True, leftover_bonus="single_adds"),
}
RULE_SETS = [(preset, players) for preset, players in COMBOS] + [
    (rules, players) for rules in VARIANTS.values() for players in (2, 5)
]
RULE_IDS = [
    f"{name}-{players}p"
    for name, players in [(p, n) for p, n in COMBOS]
    + [(key, n) for key in VARIANTS for n in (2, 5)]
]


@pytest.mark.parametrize(("rules", "players"), RULE_SETS, ids=RULE_IDS)
def test_observations_and_states_lie_in_their_finite_spaces(rules, players):
    """Every bound is finite, low < high everywhere (Gymnasium flags equal bounds), and
    every observation and global state of random play (rounds scored, players out, games
    over) lies in its space (a total above the target: the next test)."""
    box = observation_space(rules)["observation"]
    state_box = state_space(rules)
    for space in (box, state_box):
        assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
        assert (space.low < space.high).all()
    for state in sample_states(rules, players):
        for seat in range(players):
            for obs in observe(state, seat):
                assert box.contains(obs), np.flatnonzero((obs < box.low) | (obs > box.high))
        for row in global_state(state):
            assert state_box.contains(row)


def test_the_scalar_bounds_come_from_the_rule_set():
    layout = LAYOUT
    classic = Rules.preset("classic")
    deck_points = sum(classic.points_of(card) for card in range(36))  # every card in one hand
    assert total_bounds(classic) == (np.iinfo(np.int32).min, 101 + deck_points)
    box = observation_space(classic)["observation"]
    for name in ("others_total", "own_total"):
        np.testing.assert_allclose(box.high[layout[name]], (101 + deck_points) / 101)
        np.testing.assert_allclose(box.low[layout[name]], np.iinfo(np.int32).min / 101)
    for name in ("stock_size", "others_hand_size", "num_players"):
        assert (box.low[layout[name]] == 0).all() and (box.high[layout[name]] == 1).all()
    # the multiplier of a last card (encyclopedia: 8♥ triples the others' points)
    encyclopedia = Rules.preset("encyclopedia")
    assert total_bounds(encyclopedia)[1] == 101 + 3 * deck_points
    scope = encyclopedia.replace(multiplier_scope="total")
    assert total_bounds(scope)[1] == (101 + deck_points) * 3
    # no card scores below zero: no total can go below zero
    plain = classic.replace(finish_bonus={})
    assert total_bounds(plain) == (0, 101 + deck_points)
    assert total_bounds(plain.replace(target=50)) == (0, 50 + deck_points)
    # a 52-card deck: more points in a hand, card counts over 52
    deck52 = classic.replace(deck=52)
    points52 = sum(deck52.points_of(card) for card in range(52))
    assert total_bounds(deck52)[1] == 101 + points52
    assert observation_space(deck52)["observation"].shape == (253,)
    # the stacked penalty: every penalty card in one chain (6: 1, 7: 2, K♠: 4)
    assert pending_bound(classic) == 0
    assert pending_bound(classic.replace(stacking=True)) == 4 * 1 + 4 * 2 + 4
    assert pending_bound(classic.replace(stacking=True, last_card_call=True)) == 2**15 - 1


def test_totals_above_the_target_lie_within_the_bound():
    """A seat that goes out has a total above the target (so target / target would be a
    wrong bound), still inside the bound."""
    state = sample_states("classic", 2)[-1]
    high = total_bounds("classic")[1]
    totals = state.totals[state.done]
    assert (totals > 101).any() and (totals <= high).all()


# --- the global state -------------------------------------------------------------------------


def test_state_layout_sizes():
    classic = Rules.preset("classic")
    layout = state_layout(classic)
    assert list(layout) == [
        "hands", "discard", "in_match", "dealer", "top_card", "ordered_suit", "phase",
        "drawn_card", "to_act", "pending", "stock_size", "hand_size", "total", "num_players",
    ]  # fmt: skip
    assert layout["hands"] == slice(0, 6 * 36)
    assert state_size(classic) == layout["num_players"].stop == 371
    assert state_size(classic.replace(deck=52)) == 515
    called = classic.replace(last_card_call=True)
    assert state_size(called) == 372 and state_layout(called)["call"] == slice(371, 372)
    assert STATE_VERSION == 1


@pytest.mark.parametrize(("preset", "players"), COMBOS)
def test_global_state_holds_every_hand_and_the_public_table(preset, players):
    rules = Rules.preset(preset)
    target, cards = rules.target, rules.deck.cards
    layout = state_layout(preset)
    seen = observation_layout(rules)
    for state in sample_states(preset, players):
        rows = global_state(state)
        assert rows.shape == (12, state_size(preset)) and rows.dtype == np.float32
        np.testing.assert_array_equal(global_state(state, games=np.array([2, 5])), rows[[2, 5]])
        for b, row in enumerate(rows):
            hands = row[layout["hands"]].reshape(6, cards)
            for seat in range(6):
                held = set_bits(state.hand[b, seat]) if seat < players else []
                assert np.flatnonzero(hands[seat]).tolist() == held
            pile = sorted(state.discard[b, : state.discard_size[b]].tolist())
            assert np.flatnonzero(row[layout["discard"]]).tolist() == pile
            ins = [int(state.in_match[b]) >> p & 1 for p in range(players)]
            assert row[layout["in_match"]].tolist() == ins + [0] * (6 - players)
            assert np.flatnonzero(row[layout["dealer"]]).tolist() == [int(state.dealer[b])]
            for name in ("top_card", "ordered_suit", "phase", "drawn_card", "to_act"):
                assert row[layout[name]].sum() == 1.0, name
            top = int(state.top_card[b])
            no_card = rules.deck.no_card
            assert int(np.argmax(row[layout["top_card"]])) == (cards if top == no_card else top)
            current = int(state.current_player[b])
            assert int(np.argmax(row[layout["to_act"]])) == (6 if current < 0 else current)
            sizes = [len(set_bits(state.hand[b, p])) for p in range(players)]
            np.testing.assert_allclose(
                row[layout["hand_size"]] * cards, sizes + [0] * (6 - players), atol=1e-4
            )
            np.testing.assert_allclose(
                row[layout["total"]][:players] * target, state.totals[b], atol=1e-3
            )
            assert row[layout["stock_size"]][0] * cards == pytest.approx(state.stock_size[b])
            assert row[layout["num_players"]][0] == pytest.approx(players / 6)
            # every seat's observation is a function of the state: its hand is in it
            for seat in range(players):
                obs = observe(state, seat)[b]
                np.testing.assert_array_equal(obs[seen["hand"]], hands[seat])
                np.testing.assert_array_equal(obs[seen["discard"]], row[layout["discard"]])


def test_global_state_ignores_the_stock_order_but_sees_every_hand():
    state = sample_states("classic", 3)[1].take([0])
    generator = np.random.default_rng(3)
    shuffled = hide_differently(state, 0, "stock", generator)
    np.testing.assert_array_equal(global_state(state), global_state(shuffled))
    dealt = hide_differently(state, 0, "hands", generator)
    assert set_bits(dealt.hand[0, 1]) != set_bits(state.hand[0, 1])
    assert not np.array_equal(global_state(state), global_state(dealt))
    np.testing.assert_array_equal(observe(state, 0), observe(dealt, 0))  # hidden from seat 0


def test_global_state_marks_the_call():
    rules = Rules.preset("classic").replace(last_card_call=True)
    layout = state_layout(rules)
    state = engine.init(rules, 2, 64, seed=4)
    generator = np.random.default_rng(4)
    seen = False
    for _ in range(400):
        rows = global_state(state)
        calling = state.phase == PHASE_CALL
        np.testing.assert_array_equal(rows[:, layout["call"].start], calling)
        # a CALL decision shows as PLAY in the phase block
        assert (rows[calling, layout["phase"].start + PHASE_PLAY] == 1).all()
        seen |= bool(calling.any())
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(64)))
    assert seen
