"""A corpus of answers as language models give them (tests/data/text_answers.yaml): each
is read by the text interface's parser as the move it names, or refused with a message
that names the legal moves; TextArena's bracket-adding wrapper changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sto_odno_env.game import engine
from sto_odno_env.game.cards import PHASE_NAMES, card_name
from sto_odno_env.game.engine import State
from sto_odno_env.game.rules import load_rules
from sto_odno_env.views.text import TextActionError, action_text, legal_texts, parse_move

CORPUS = yaml.safe_load((Path(__file__).parent / "data" / "text_answers.yaml").read_text())
SITUATIONS = CORPUS["situations"]
ANSWERS = CORPUS["answers"]


def situation(name: str) -> State:
    """The decision of a situation of the corpus: a 2-player match edited by hand (the
    seat to act's hand, the top card, the phase, a pending penalty, a drawn card)."""
    spec = SITUATIONS[name]
    state = engine.init(load_rules(spec["rules"]), 2, 1, seed=0)
    deck = state.tables.deck
    ids = {card_name(card, deck): card for card in range(deck.cards)}
    seat = int(state.current_player[0])
    state.hand[0, seat] = sum(1 << ids[card] for card in spec["hand"])
    state.top_card[0] = ids[spec["top"]]
    state.phase[0] = PHASE_NAMES.index(spec["phase"])
    state.pending[0] = spec.get("pending", 0)
    state.ordered_suit[0] = -1
    if "drawn" in spec:
        state.drawn_card[0] = ids[spec["drawn"]]
    engine.refresh_legal(state)
    return state


def _read(answer: str, state: State) -> tuple[str, str | None]:
    move = parse_move(answer, state)
    then = None if move.then is None else action_text(move.then, state)
    return action_text(move.action, state), then


def test_the_corpus_is_large_and_covers_every_situation():
    assert len(ANSWERS) >= 60
    assert {entry["at"] for entry in ANSWERS} == set(SITUATIONS)
    assert sum("refused" in entry for entry in ANSWERS) >= 10
    for entry in ANSWERS:
        assert ("move" in entry) != ("refused" in entry), entry


@pytest.mark.parametrize("name", SITUATIONS)
def test_each_situation_lists_the_moves_the_corpus_expects(name):
    assert legal_texts(situation(name)) == SITUATIONS[name]["legal"]


@pytest.mark.parametrize(
    "entry", ANSWERS, ids=[f"{n}-{entry['at']}" for n, entry in enumerate(ANSWERS)]
)
def test_an_answer_is_read_as_its_move_or_refused(entry):
    state = situation(entry["at"])
    if "move" in entry:
        assert _read(entry["answer"], state) == (entry["move"], entry.get("then"))
        return
    with pytest.raises(TextActionError) as refused:
        parse_move(entry["answer"], state)
    message = str(refused.value)
    assert entry["refused"] in message
    assert message.endswith("legal: " + ", ".join(legal_texts(state))), message


@pytest.mark.parametrize(
    "entry", ANSWERS, ids=[f"{n}-{entry['at']}" for n, entry in enumerate(ANSWERS)]
)
def test_an_answer_in_the_brackets_textarena_adds_reads_the_same(entry):
    """TextArena's ActionFormattingWrapper puts an answer without brackets in ``[...]``."""
    answer = entry["answer"]
    if "[" in answer or "]" in answer:
        return
    state = situation(entry["at"])
    try:
        expected: object = _read(answer, state)
    except TextActionError as error:
        expected = str(error).replace(repr(answer.strip()), "")
    try:
        wrapped: object = _read(f"[{answer}]", state)
    except TextActionError as error:
        wrapped = str(error).replace(repr(answer.strip()), "")
    assert wrapped == expected
