"""The text interface (sto_odno_env/views/text/): action strings, the lenient parser, a
seat's view and the special cards' reminder, on states of every preset."""

from __future__ import annotations

import numpy as np
import pytest

from sto_odno_env.game import engine
from sto_odno_env.game.cards import (
    PHASE_COVER,
    PHASE_DONE,
    PHASE_ORDER,
    PHASE_PLAY,
    PHASE_RESPOND,
    card_name,
)
from sto_odno_env.game.rules import PRESETS, Rules
from sto_odno_env.views.text import (
    SUIT_NAMES,
    TextActionError,
    action_text,
    legal_actions,
    parse_action,
    parse_move,
    rules_reminder,
    seat_view,
)


def _states(rules: str, players: int, seed: int, count: int = 400):
    """Decision states of random matches of ``rules`` (copies, one per decision)."""
    generator = np.random.default_rng(seed)
    state = engine.init(rules, players, 1, seed=seed)
    for _ in range(count):
        if bool(state.done[0]):
            state = engine.init(rules, players, 1, seed=int(generator.integers(1 << 30)))
        yield state
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(1)))


def _first(rules: str, phase: int, players: int = 2, seed: int = 0) -> engine.State:
    """The first state of random play whose decision is ``phase`` (a deep copy)."""
    for state in _states(rules, players, seed, 20_000):
        if int(state.phase[0]) == phase:
            return state.copy()
    raise AssertionError(f"no {phase} state")


@pytest.mark.parametrize("rules", PRESETS)
def test_every_legal_action_string_parses_back_to_its_action(rules):
    """For every decision of random play at 2-6 players, each legal action's string (and
    its upper-case and numbered forms) parses to that action; illegal ids never appear."""
    for players in (2, 4, 6):
        if not Rules.preset(rules).players[0] <= players <= Rules.preset(rules).players[1]:
            continue
        for state in _states(rules, players, seed=players, count=150):
            legal = legal_actions(state)
            for number, action in enumerate(legal, start=1):
                text = action_text(action, state)
                assert parse_action(text, state) == action, text
                assert parse_action(text.upper(), state) == action, text
                assert parse_action(str(number), state) == action


def test_lenient_forms_of_a_card():
    state = _first("classic", PHASE_PLAY)
    card = next(a for a in legal_actions(state) if a < 36)
    name = card_name(card)
    rank, suit = name[:-1], "♠♣♦♥".index(name[-1])
    words = {"J": "jack", "Q": "queen", "K": "king", "A": "ace", "10": "ten"}
    word = words.get(rank, rank)
    for text in (
        name,
        f"play {name}",
        f"PLAY {rank.lower()}{'scdh'[suit]}",
        f"{word} of {SUIT_NAMES[suit]}",
        f"I play the {word} of {SUIT_NAMES[suit]}.",
        f"**play {name}**",
        f"play {rank} {'♠♣♦♥'[suit]}\ufe0f",
    ):
        assert parse_action(text, state) == card, text


def test_a_queen_with_its_order_in_one_answer():
    """``play qs hearts`` gives the play and the order; parse_action refuses two
    decisions; a suit after a card that orders nothing is refused."""
    for state in _states("classic", 2, seed=3, count=5000):
        queens = [a for a in legal_actions(state) if a < 36 and state.tables.order_suit[a]]
        plain = [a for a in legal_actions(state) if a < 36 and not state.tables.order_suit[a]]
        if int(state.phase[0]) == PHASE_PLAY and queens and plain:
            break
    queen = card_name(queens[0])
    for text in (f"play {queen} hearts", f"{queen} order ♥", f"{queen}, ordering h"):
        move = parse_move(text, state)
        assert move.action == queens[0] and move.then == state.tables.deck.order_base + 3
    assert parse_move(f"play {queen}", state).then is None
    with pytest.raises(TextActionError, match="names two decisions"):
        parse_action(f"play {queen} hearts", state)
    with pytest.raises(TextActionError, match="orders no suit"):
        parse_move(f"play {card_name(plain[0])} hearts", state)


def test_a_suit_order():
    state = _first("classic", PHASE_ORDER)
    base = state.tables.deck.order_base
    for text, suit in (("h", 3), ("♥", 3), ("Hearts", 3), ("order spades", 0), ("d", 2)):
        assert parse_action(text, state) == base + suit, text
    with pytest.raises(TextActionError, match="is not a suit"):
        parse_action("qs", state)


def test_a_penalty_taken_and_a_cover():
    respond = _first(Rules.preset("classic").replace(stacking=True), PHASE_RESPOND)
    for text in ("take", "draw", "take the penalty", "draw (take the penalty: 2 cards)"):
        assert parse_action(text, respond) == respond.tables.deck.draw, text
    cover = _first("classic", PHASE_COVER)
    cards = [a for a in legal_actions(cover) if a < 36]
    if cards:
        text = action_text(cards[0], cover)
        assert text.startswith("cover ")
        assert parse_action(text, cover) == cards[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty answer; legal: "),
        ("zz", "'zz' is not a move: .* legal: "),
        ("99", "there is no move 99"),
        ("draw now please", "draw takes nothing after it"),
        ("play 5♠", "rank 5 is not in the 36-card deck"),
    ],
)
def test_bad_answers_name_the_legal_moves(text, message):
    state = _first("classic", PHASE_PLAY)
    with pytest.raises(TextActionError, match=message):
        parse_action(text, state)


def test_a_card_not_held_or_not_playable():
    state = _first("classic", PHASE_PLAY)
    seat = int(state.current_player[0])
    hand = int(state.hand[0, seat])
    legal = legal_actions(state)
    missing = next(c for c in range(36) if not hand >> c & 1)
    with pytest.raises(TextActionError, match=f"you do not hold {card_name(missing)}; legal"):
        parse_action(card_name(missing), state)
    stuck = [c for c in range(36) if hand >> c & 1 and c not in legal]
    if stuck:
        with pytest.raises(TextActionError, match="cannot be played now; legal"):
            parse_action(card_name(stuck[0]), state)


def test_no_move_when_the_match_is_over():
    generator = np.random.default_rng(0)
    state = engine.init("classic", 2, 1, seed=0)
    while int(state.phase[0]) != PHASE_DONE:
        engine.step(state, engine.sample_actions(state.legal_bits, generator.random(1)))
    with pytest.raises(TextActionError, match="the match is over"):
        parse_action("draw", state)


def test_seat_view_tells_what_the_seat_may_know():
    state = _first("classic", PHASE_PLAY, players=3)
    seat = int(state.current_player[0])
    other = (seat + 1) % 3
    events = [{"type": "draw", "player": other, "cards": [0], "cause": 1}]
    view = seat_view(state, seat, recent=events)
    own = " ".join(card_name(c) for c in range(36) if int(state.hand[0, seat]) >> c & 1)
    assert f"Your hand: {own}" in view
    assert "Legal moves:" in view and "top card " in view
    for action in legal_actions(state):
        assert action_text(action, state) in view
    assert f"seat {other} takes 1 card (penalty of 7♠)" in view
    assert "6♠" not in view.split("Since your last turn:")[1].split("\n")[1]  # not shown
    # another seat's view lists no moves and shows no other hand
    quiet = seat_view(state, other)
    assert "Legal moves:" not in quiet
    assert own not in quiet


def test_rules_reminder_follows_the_tables():
    classic = rules_reminder(Rules.preset("classic"))
    assert "8: must be covered by another card of yours (or draw)" in classic
    assert "K♠: the next player takes 4 cards; the next player is skipped" in classic
    nines = rules_reminder(Rules.preset("nines"))
    assert any(line.startswith("9: must be covered") for line in nines)
    assert not any(line.startswith("8:") for line in nines)
    changed = rules_reminder(Rules.preset("classic").replace(target=51))
    assert "a total above 51" in changed[-1]


def test_an_answer_is_read_from_its_last_brackets():
    """TextArena's convention: reasoning may come first, the move is the last ``[...]``."""
    state = _first("classic", PHASE_PLAY)
    legal = legal_actions(state)
    text = action_text(legal[-1], state)
    answer = f"I could [{action_text(legal[0], state)}], but I will [{text}]."
    assert parse_action(answer, state) == legal[-1]
    with pytest.raises(TextActionError, match="'nothing' is not a move"):
        parse_action(f"{text} [nothing]", state)


def test_a_turn_opens_at_a_play_or_a_penalty_not_after_the_seats_own_card():
    from sto_odno_env.views.text import opens_turn

    play = _first("classic", PHASE_PLAY)
    seat = int(play.current_player[0])
    assert opens_turn(play, last_actor=seat)  # a skip brought the turn back
    assert opens_turn(play, last_actor=None)
    order = _first("classic", PHASE_ORDER)
    seat = int(order.current_player[0])
    assert not opens_turn(order, last_actor=seat)  # the suit after its own queen
    assert opens_turn(order, last_actor=(seat + 1) % 2)  # the dealer's opening queen


@pytest.mark.parametrize("example", ["deck-52", "last-card-call"])
def test_action_strings_of_the_yaml_variants_parse_back(example):
    """The 52-card deck (ranks 2 to 5 too) and the last-card call: every legal action's
    string, and the 52-card ranks in words, parse back to the action."""
    from pathlib import Path

    import sto_odno_env.game as game_package

    path = Path(game_package.__file__).parent / "presets" / "examples" / f"{example}.yaml"
    rules = Rules.from_yaml(path)
    seen = set()
    for state in _states(rules, 3, seed=1, count=600):
        for number, action in enumerate(legal_actions(state), start=1):
            text = action_text(action, state)
            seen.add(text.split()[0])
            assert parse_action(text, state) == action, text
            assert parse_action(str(number), state) == action
    if example == "deck-52":
        deck = rules.deck_spec
        low = []
        for state in _states(rules, 3, seed=2, count=600):
            low = [a for a in legal_actions(state) if a < deck.cards and deck.rank_of(a) < 4]
            if low:
                break
        assert low
        for action in low:
            words = ("two", "three", "four", "five")[deck.rank_of(action)]
            suit = SUIT_NAMES[deck.suit_of(action)]
            assert parse_action(f"{words} of {suit}", state) == action
    else:
        assert "call" in seen


def test_a_seat_view_names_cards_by_its_own_deck_whatever_was_shown_before():
    """Views of a 36-card and a 52-card match in one process: each names the cards of its
    own deck, and showing one leaves the other's text as it was."""
    from sto_odno_env.records.stepping import SteppedMatch

    def played(rules: str, seed: int) -> tuple[engine.State, list[dict]]:
        match = SteppedMatch(rules, 2, seed)
        events = match.start()
        while len(events) < 12 and not match.done:
            events += match.step(match.legal()[0])
        return match.state, events

    small_state, small_events = played("classic", 3)
    big_state, big_events = played("configs/rules/examples/deck-52.yaml", 3)
    before = seat_view(small_state, 0, recent=small_events)
    big = seat_view(big_state, 0, recent=big_events)
    assert seat_view(small_state, 0, recent=small_events) == before
    deck = big_state.tables.deck
    hand = int(big_state.hand[0, 0])
    assert (
        "Your hand: " + " ".join(card_name(c, deck) for c in range(deck.cards) if hand >> c & 1)
        in big
    )
