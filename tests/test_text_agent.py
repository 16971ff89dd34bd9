"""A text player in the evaluation harness (sto_odno_env/bots/text_agent.py): any callable
prompt -> answer sits at a table as ``text:module:function``; invalid answers are re-asked,
counted and reported. Every callable here is a script: no network."""

from __future__ import annotations

import re

import numpy as np
import pytest

from agents.evaluate import evaluate, print_report
from sto_odno_env.bots.registry import AgentError, load
from sto_odno_env.bots.text_agent import TextAgent, TextAgentError, first_listed
from sto_odno_env.game import engine
from sto_odno_env.game.cards import PHASE_ORDER, card_name
from sto_odno_env.views.determinise import from_observations
from sto_odno_env.views.observation import observe_one
from sto_odno_env.views.text import ANSWER_FORMAT

HERE = "tests.test_text_agent"  # this module, as the registry imports it (tests/ is a package)


def listed(prompt: str) -> list[str]:
    tail = prompt.rsplit("Legal moves:", 1)[1]
    return re.findall(r"^ *\d+\) (.*?)(?: \(.*\))?$", tail, flags=re.M)


def last_listed(prompt: str) -> str:
    """A scripted player for the harness: the last listed move, in brackets."""
    return f"[{listed(prompt)[-1]}]"


def stubborn(prompt: str) -> str:
    """A player that never answers a move."""
    return "I would rather not say."


_calls = {"n": 0}


def second_try(prompt: str) -> str:
    """Wrong on every first ask, right when re-asked (the refusal is in the prompt)."""
    if "was refused" in prompt:
        assert "legal: " in prompt  # the refusal names the legal moves
        return listed(prompt)[0]
    return "play the best card"


def _play(agent, rules="classic", players=2, seed=0, others=None):
    """One match: ``agent`` at seat 0, ``others`` (default expert) elsewhere."""
    others = others or load("expert", rules, players)
    state = engine.init(rules, players, 1, seed=seed)
    while not bool(state.done[0]):
        seat = int(state.current_player[0])
        policy = agent if seat == 0 else others
        action = policy(observe_one(state, seat), state.legal[0])
        assert state.legal[0][action]
        engine.step(state, np.array([action]))
    return state


def test_the_registry_loads_text_names_and_explains_bad_ones():
    agent = load(f"text:{HERE}:last_listed", "classic", 2)
    assert isinstance(agent, TextAgent) and agent.answer is last_listed
    for name, message in [
        ("text:no_such_module_here:f", "cannot import 'no_such_module_here'"),
        (f"text:{HERE}:missing", f"{HERE} has no 'missing'"),
        (f"text:{HERE}:HERE", "HERE is not callable"),
        ("text:onlyone", "write text:module:function"),
    ]:
        with pytest.raises(AgentError, match=re.escape(message)):
            load(name)
    with pytest.raises(TextAgentError, match="retries must be an integer >= 0"):
        TextAgent(last_listed, retries=-1)


def test_a_scripted_player_plays_whole_matches_without_a_refusal():
    for players, rules in ((2, "classic"), (4, "yard"), (3, "nines")):
        agent = TextAgent(last_listed, rules)
        _play(agent, rules, players, seed=players)
        stats = agent.answer_stats()
        assert stats["decisions"] > 3 and stats["prompts"] == stats["decisions"]
        assert stats["refused"] == stats["fallbacks"] == 0


def test_refused_answers_are_asked_again_then_fall_back():
    again = TextAgent(second_try)
    _play(again, seed=1)
    stats = again.answer_stats()
    assert stats["refused"] == stats["decisions"] and stats["fallbacks"] == 0
    assert stats["prompts"] == 2 * stats["decisions"]
    never = TextAgent(stubborn, retries=2)
    _play(never, seed=1)
    stats = never.answer_stats()
    assert stats["fallbacks"] == stats["decisions"] > 0
    assert stats["refused"] == stats["prompts"] == 3 * stats["decisions"]
    # not a string is an invalid answer like any other
    numbers = TextAgent(lambda prompt: 1, retries=0)
    _play(numbers, seed=1)
    assert numbers.answer_stats()["fallbacks"] == numbers.answer_stats()["decisions"]


def test_the_prompt_shows_what_the_seat_may_know_and_nothing_sampled():
    """The prompt is built from a state rebuilt from the observation: the same whatever
    the hidden cards were sampled as; the seat's own hand and the legal moves are in it."""
    state = engine.init("classic", 3, 1, seed=8)
    seat = int(state.current_player[0])
    observation = observe_one(state, seat)
    agent = TextAgent(first_listed)
    prompts = {
        agent.prompt(from_observations("classic", observation[None], seed=s)) for s in (0, 1, 2)
    }
    assert len(prompts) == 1
    prompt = prompts.pop()
    hand = int(state.hand[0, seat])
    assert "Your hand: " + " ".join(card_name(c) for c in range(36) if hand >> c & 1) in prompt
    assert "8: must be covered by another card of yours" in prompt
    assert listed(prompt)
    assert "round " not in prompt.split("\n\n", 1)[1].splitlines()[0]  # the round is unknown


def test_a_queen_with_its_suit_is_one_prompt():
    """``play Q♠ hearts``: the queen is played and the order that follows is hearts, with
    no second prompt (a suit asked for other reasons, the dealer's opening queen, is
    answered hearts too)."""

    def queen_first(prompt: str) -> str:
        moves = listed(prompt)
        queens = [move for move in moves if re.fullmatch(r"play Q\S", move)]
        if queens:
            return f"{queens[0]} hearts"
        return "hearts" if moves[0].startswith("order") else moves[0]

    agent = TextAgent(queen_first)
    orders, follow_ups = [], 0
    for seed in range(6):
        state = engine.init("classic", 2, 1, seed=seed)
        others = load("expert", "classic", 2)
        played_queen = False
        while not bool(state.done[0]):
            seat = int(state.current_player[0])
            policy = agent if seat == 0 else others
            action = policy(observe_one(state, seat), state.legal[0])
            if seat == 0 and int(state.phase[0]) == PHASE_ORDER:
                orders.append(action - state.tables.deck.order_base)
                follow_ups += played_queen
            played_queen = seat == 0 and action < 36 and bool(state.tables.order_suit[action])
            engine.step(state, np.array([action]))
    assert follow_ups and set(orders) == {3}  # every order of this player: hearts
    stats = agent.answer_stats()
    assert stats["prompts"] == stats["decisions"] - follow_ups


def test_the_harness_counts_and_reports_the_answers(capsys):
    report = evaluate(
        [f"text:{HERE}:second_try"],
        "classic",
        2,
        matches=4,
        seed=3,
        against="expert",
        progress=False,
    )
    stats = report["text_answers"][f"text:{HERE}:second_try"]
    assert stats["refused"] == stats["decisions"] > 0 and stats["fallbacks"] == 0
    assert "expert" not in report["text_answers"]
    print_report(report)
    out = capsys.readouterr().out
    assert re.search(
        rf"text agent text:{HERE}:second_try: (\d+) prompts for (\d+) decisions; \2 answers "
        r"refused \(not a legal move\), 0 decisions given the first legal move",
        out,
    )


def test_every_prompt_asks_for_the_same_answer_format():
    """The view's last line and the second ask say the same: one move as listed, in
    square brackets (as the TextArena rules do)."""
    prompts: list[str] = []

    def refused_once(prompt: str) -> str:
        prompts.append(prompt)
        return f"[{listed(prompt)[0]}]" if "was refused" in prompt else "nope"

    state = engine.init("classic", 2, 1, seed=2)
    seat = int(state.current_player[0])
    TextAgent(refused_once)(observe_one(state, seat), state.legal[0])
    first, second = prompts
    assert first.splitlines()[-1] == f"Answer with {ANSWER_FORMAT}, e.g. [{listed(first)[0]}]."
    assert "Answer with one move as listed, in square brackets" in first
    assert second.endswith(f"Answer again with {ANSWER_FORMAT}.")


def _table_rows(out: str, agent: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(f"| {agent}")]


def test_a_text_agent_of_mostly_fallbacks_is_marked_in_the_tables(capsys):
    """An agent whose answers were all refused played the fallback: its row says so, with
    the counts; an agent whose answers were taken (on the second ask) is not marked."""
    never, again = f"text:{HERE}:stubborn", f"text:{HERE}:second_try"
    report = evaluate([never, again], "classic", 2, matches=2, seed=1, progress=False)
    print_report(report)
    out = capsys.readouterr().out
    decisions = report["text_answers"][never]["decisions"]
    marked = _table_rows(out, f"{never} ⚠ mostly fallbacks ({decisions} of {decisions} decisions)")
    assert len(marked) == 2  # the pair table and the per-agent table
    assert all("mostly fallbacks" not in row for row in _table_rows(out, again))
    assert any(again in row and "mostly fallbacks" in row for row in marked)  # its opponent
    assert "  mostly fallbacks: more than half of this text agent's decisions" in out
    # a report without such an agent has neither the mark nor its note
    report = evaluate([again], "classic", 2, matches=2, seed=1, against="expert", progress=False)
    print_report(report)
    assert "mostly fallbacks" not in capsys.readouterr().out
