"""A text player at the kit's tables: any callable from a prompt to an answer.

A language-model client, a person (``builtins:input``) or a script sits at a table like
any other agent: :class:`TextAgent` turns each decision's observation into a prompt (the
kit's text interface, :func:`~sto_odno_env.views.text.seat_view`), calls the callable and
reads the answer with :func:`~sto_odno_env.views.text.parse_move`. The registry loads one
by name: ``text:module:function`` (``python -m agents.evaluate --agents
text:mypackage.llm:answer --against expert``).

**Invalid answers.** An answer that is not a legal move is refused: the agent asks again,
with the refused answer and the parser's message (which names the legal moves) added to
the prompt, up to ``retries`` times (2 by default); if the last answer is refused too, the
first legal move in the listed order is played instead (a *fallback*). Every refused
answer and every fallback is counted (:meth:`TextAgent.answer_stats`), and the evaluation
harness reports them. An answer that is not a string is refused like any other; an error
raised by the callable stops the run (the kit does not hide a client's failure).

**What the prompt shows.** The harness gives agents observation vectors (what the seat
may know, docs/api.md), so the prompt is built from a state rebuilt from the observation
(:func:`~sto_odno_env.views.determinise.from_observations`, whose sampled hidden cards are
never shown): the hand, the top card, the ordered suit, what the decision asks, each
seat's card count and total, the legal moves, and the special cards of the rule set. The
observation holds no history, so this prompt has no "since your last turn" part (the
TextArena env's has, docs/text.md); other seats are named by their place after the agent
(``seat +1`` acts next).

A queen answered with its suit (``play Q♠ hearts``) plays the queen; the suit answers the
order decision that follows at once, without a second prompt.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from ..game.rules import Rules, load_rules
from ..tools.errors import StoOdnoError
from ..views.determinise import from_observations
from ..views.text import (
    ANSWER_FORMAT,
    TextActionError,
    legal_actions,
    parse_move,
    rules_brief,
    seat_view,
)
from .policy import BasePolicy

Answer = Callable[[str], str]


class TextAgentError(StoOdnoError):
    """A ``text:module:function`` name that does not name a callable."""


class TextAgent(BasePolicy):
    """A policy that asks ``answer(prompt) -> str`` for every decision (see the module
    docstring for the prompt and the invalid-answer policy)."""

    def __init__(self, answer: Answer, rules: Rules | str = "classic", retries: int = 2):
        if not callable(answer):
            raise TextAgentError(f"{answer!r} is not callable; a text agent needs prompt -> text")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise TextAgentError(f"retries must be an integer >= 0, got {retries!r}")
        self.answer = answer
        self.rules = load_rules(rules)
        self.retries = retries
        self.prompts = 0  # calls of ``answer``
        self.refused = 0  # answers that were not a legal move
        self.fallbacks = 0  # decisions given the first legal move after the last refusal
        self.decisions = 0
        # A suit named with its queen: (hand after the play, the queen) -> the order action.
        self._orders: dict[tuple[int, int], int] = {}

    def answer_stats(self) -> dict[str, int]:
        """How the text player answered: decisions, prompts, refused answers, fallbacks."""
        return {
            "decisions": self.decisions,
            "prompts": self.prompts,
            "refused": self.refused,
            "fallbacks": self.fallbacks,
        }

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        observations = np.atleast_2d(np.asarray(observations, dtype=np.float32))
        masks = np.atleast_2d(np.asarray(masks))
        return np.array(
            [self._decide(obs, mask) for obs, mask in zip(observations, masks, strict=True)],
            dtype=np.int64,
        )

    def _decide(self, observation: np.ndarray, mask: np.ndarray) -> int:
        state = from_observations(self.rules, observation[None])
        # The legal moves are the table's, not recomputed from the rebuilt state.
        state.legal_bits[0] = np.uint64(sum(1 << int(a) for a in np.flatnonzero(mask)))
        self.decisions += 1
        legal = legal_actions(state)
        key = (int(state.hand[0, 0]), int(state.top_card[0]))
        queued = self._orders.pop(key, None)
        if queued is not None and queued in legal:
            return queued
        prompt = self.prompt(state)
        asked = prompt
        for _ in range(self.retries + 1):
            self.prompts += 1
            text = self.answer(asked)
            try:
                if not isinstance(text, str):
                    raise TextActionError(f"the answer is a {type(text).__name__}, not text")
                move = parse_move(text, state)
            except TextActionError as error:
                self.refused += 1
                asked = (
                    f"{prompt}\n\nYour answer {text!r} was refused: {error}\n"
                    f"Answer again with {ANSWER_FORMAT}."
                )
                continue
            if move.then is not None:
                hand = int(state.hand[0, 0]) & ~(1 << move.action)
                self._orders[(hand, move.action)] = move.then
            return move.action
        self.fallbacks += 1
        return legal[0]

    def prompt(self, state) -> str:
        """The prompt for the decision of seat 0 of ``state`` (a rebuilt state)."""
        rules = self.rules
        players = state.players
        names = ["You", *(f"seat +{k}" for k in range(1, players))]
        aim, *special = rules_brief(rules)
        lines = [
            f"You are playing 101 (rules {rules.name}, {players} players). {aim}",
            *special,
            "Other seats are named by their place after you (seat +1 acts after you).",
            "",
            seat_view(state, 0, names=names, show_round=False),
        ]
        return "\n".join(lines)


def load_text_agent(target: str, rules: Rules | str = "classic") -> TextAgent:
    """The :class:`TextAgent` of ``module:function`` (a callable prompt -> answer; the
    module is imported, a dotted path such as ``mypackage.llm``)."""
    module_name, _, function_name = target.partition(":")
    if not module_name or not function_name or ":" in function_name:
        raise TextAgentError(
            f"text agent {target!r}: write text:module:function, e.g. "
            "text:sto_odno_env.bots.text_agent:first_listed (a callable prompt -> answer)"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise TextAgentError(
            f"text agent {target!r}: cannot import {module_name!r} ({error})"
        ) from None
    answer = getattr(module, function_name, None)
    if answer is None:
        raise TextAgentError(f"text agent {target!r}: {module_name} has no {function_name!r}")
    if not callable(answer):
        raise TextAgentError(f"text agent {target!r}: {function_name} is not callable")
    return TextAgent(answer, rules)


def first_listed(prompt: str) -> str:
    """A scripted text player: the first legal move the prompt lists (an example and a
    baseline; the fallback of :class:`TextAgent` plays the same move)."""
    listed = prompt.rsplit("Legal moves:", 1)[-1].splitlines()[1]
    return listed.split(")", 1)[1].split(" (", 1)[0].strip()


__all__ = ["TextAgent", "TextAgentError", "first_listed", "load_text_agent"]
