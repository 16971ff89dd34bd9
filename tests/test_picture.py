"""Pictures of the table (``sto_odno_env.views.picture``) and the envs' ``render_mode="rgb_array"``:
sizes and dtypes, what each view shows and hides, that different states draw differently,
and that nothing is drawn unless ``render()`` is called."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import gymnasium
import numpy as np
import pytest

import sto_odno_env  # noqa: F401  (registers StoOdno-v0)
from sto_odno_env import sto_odno_v0
from sto_odno_env.envs.gym_env import StoOdnoEnv
from sto_odno_env.game import engine
from sto_odno_env.game.cards import NO_CARD, NUM_CARDS, RANK_NAMES, suit_of
from sto_odno_env.views import picture
from sto_odno_env.views.picture import Svg, picture_size, table_rgb, table_svg
from tests.helpers import needs

SVG_NS = "{http://www.w3.org/2000/svg}"


def played(players: int = 3, steps: int = 6, seed: int = 1) -> engine.State:
    """A state of two games after a few random decisions."""
    state = engine.init("classic", players, 2, seed=seed)
    generator = np.random.default_rng(seed)
    for _ in range(steps):
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(2)))
    return state


def rank_texts(svg: str) -> list[str]:
    """The rank labels drawn on face-up cards."""
    root = ET.fromstring(svg)
    return [t.text for t in root.iter(f"{SVG_NS}text") if t.text in RANK_NAMES]


def hand_size(state: engine.State, game: int, seat: int) -> int:
    return int(state.hand[game, seat]).bit_count()


def swap_with_stock(state: engine.State, game: int, seat: int) -> engine.State:
    """A copy where one card of ``seat``'s hand trades places with the stock's top card: the
    hand sizes and everything public stay the same."""
    other = state.copy()
    hand = int(other.hand[game, seat])
    card = next(c for c in range(NUM_CARDS) if hand >> c & 1)
    top = int(other.stock_size[game]) - 1
    stock_card = int(other.stock[game, top])
    other.hand[game, seat] = np.uint64(hand & ~(1 << card) | 1 << stock_card)
    other.stock[game, top] = card
    return other


def test_svg_is_xml_of_the_stated_size():
    state = played()
    svg = table_svg(state)
    assert isinstance(svg, Svg) and isinstance(svg, str)
    assert svg._repr_svg_() == str(svg)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    height, width = picture_size(3)
    assert (int(root.get("height")), int(root.get("width"))) == (height, width)


def test_svg_shows_every_hand_or_one_seats_view():
    state = played(players=3)
    top_shown = int(state.top_card[0] != NO_CARD)
    everyone = sum(hand_size(state, 0, seat) for seat in range(3))
    assert len(rank_texts(table_svg(state))) == everyone + top_shown
    for seat in range(3):
        assert len(rank_texts(table_svg(state, view=seat))) == hand_size(state, 0, seat) + top_shown


@needs("PIL")
def test_a_view_does_not_show_other_hands():
    state = played(players=3)
    other = swap_with_stock(state, 0, seat=1)
    assert table_svg(other, view=0) == table_svg(state, view=0)
    assert np.array_equal(table_rgb(other, view=0), table_rgb(state, view=0))
    assert table_svg(other, view=1) != table_svg(state, view=1)
    assert table_svg(other) != table_svg(state)


def test_cards_are_red_or_black():
    state = played(players=2)
    svg = table_svg(state)
    suits = {
        suit_of(c) for seat in range(2) for c in range(NUM_CARDS) if state.hand[0, seat] >> c & 1
    }
    if suits & {0, 1}:
        assert f'fill="{picture.BLACK}"' in svg
    if suits & {2, 3}:
        assert f'fill="{picture.RED}"' in svg


@needs("PIL")
@pytest.mark.parametrize("players", [2, 4, 6])
def test_rgb_size_and_dtype(players):
    state = played(players=players)
    frame = table_rgb(state)
    assert frame.shape == (*picture_size(players), 3)
    assert frame.dtype == np.uint8
    assert frame.flags.writeable and frame.flags.c_contiguous
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # a picture, not a flat colour


@needs("PIL")
def test_different_states_draw_differently_and_the_same_state_the_same():
    state = played()
    assert np.array_equal(table_rgb(state, game=0), table_rgb(state.copy(), game=0))
    assert table_svg(state, game=0) == table_svg(state.copy(), game=0)
    assert not np.array_equal(table_rgb(state, game=0), table_rgb(state, game=1))
    assert table_svg(state, game=0) != table_svg(state, game=1)
    later = state.copy()
    engine.step(later, engine.sample_actions(later.legal_bits, np.full(2, 0.5)))
    assert not np.array_equal(table_rgb(state), table_rgb(later))


@needs("PIL")
def test_a_finished_match_draws():
    state = engine.init("classic", 2, 1, seed=3)
    generator = np.random.default_rng(3)
    while not state.done[0]:
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(1)))
    assert "match over" in table_svg(state) or "match truncated" in table_svg(state)
    assert table_rgb(state).shape == (*picture_size(2), 3)


@needs("PIL")
def test_bad_game_or_view_is_refused():
    state = played()
    with pytest.raises(ValueError, match="game 2"):
        table_svg(state, game=2)
    with pytest.raises(ValueError, match="view 3"):
        table_rgb(state, view=3)


# --- the envs -----------------------------------------------------------------------------------


@needs("PIL")
def test_aec_rgb_array_shows_every_hand():
    env = sto_odno_v0.env(players=3, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (*picture_size(3), 3) and frame.dtype == np.uint8
    game = env.unwrapped.engine_state()
    assert np.array_equal(frame, table_rgb(game, names=env.possible_agents))
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert not np.array_equal(frame, env.render())


@needs("PIL")
def test_gym_rgb_array_is_the_learners_view():
    env = gymnasium.make("StoOdno-v0", players=3, learner_seat=2, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (*picture_size(3), 3) and frame.dtype == np.uint8
    assert np.array_equal(frame, table_rgb(env.unwrapped.games.state, view=2))


def test_nothing_is_drawn_unless_render_is_called(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a picture was drawn during step()")

    monkeypatch.setattr(picture, "scene", refuse)
    env = StoOdnoEnv(players=2, render_mode="rgb_array")
    env.reset(seed=1)
    aec = sto_odno_v0.env(players=2, render_mode="rgb_array")
    aec.reset(seed=1)
    assert aec.unwrapped._moves is None  # no move list kept for a picture
    for _ in range(20):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            env.reset()
        observation, _, done, cut, _ = aec.last()
        aec.step(None if done or cut else int(np.flatnonzero(observation["action_mask"])[0]))
