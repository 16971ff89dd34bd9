"""The kit's one text interface: a seat's view as text, action strings, and their parser.

Everything that talks to a player in words goes through here: the terminal game (with
:class:`~sto_odno_env.views.screen.Screen`, which only adds colour), the text agent of the
evaluation harness, the TextArena env and the OpenSpiel game's strings.

- :func:`action_text` names an action for the decision waiting: ``play Q♠``, ``cover 8♣``
  (covering the card just played), ``order ♥``, ``draw``, ``pass``, ``call``. The words
  come from the action ids of :mod:`sto_odno_env.game.cards` and the phase the engine
  reports, never from a preset's name.
- :func:`parse_move` reads what a person or a language model answers, leniently: any case,
  suit symbols, letters or words (``play qs hearts``, ``Q of spades, order ♥``, ``10h``,
  ``take``), a move's number in the list, a listed line copied with its number
  (``1) play 7♣``), a label before the move (``Move:``), markdown, ``[...]`` and a
  trailing parenthesis as the listing shows it. An answer it cannot take, or one that
  names two different moves, raises :class:`TextActionError`, one message naming what is
  wrong and the legal moves.
- :func:`seat_view` is the whole prompt for one seat: round, top card, ordered suit, what
  the decision asks (cover, take a penalty, order a suit), the seat's hand, every seat's
  card count and total, what happened since its last turn and the legal moves.
- :func:`rules_reminder` says what the special cards of a rule set do, from its tables.

The builders (:func:`situation`, :func:`seat_lines`, :func:`event_text`, ...) take a
*styler*: :class:`Plain` here, or the terminal's ``Screen``, which colours cards.

The pieces: :mod:`.actions` (action strings, :class:`Plain`), :mod:`.parse` (the parser),
:mod:`.seat` (a seat's view), :mod:`.events` (record events in words) and :mod:`.prompt`
(how to answer, the rules in brief); this package re-exports their names.
"""

from .actions import SUIT_NAMES, Plain, action_note, action_text, legal_actions, legal_texts
from .events import event_text, match_result_lines, round_result_lines
from .parse import (
    DRAW_WORDS,
    FILLER,
    HELP,
    LEAD_IN,
    ORDER_WORDS,
    PASS_WORDS,
    PLAY_WORDS,
    RANK_WORDS,
    SUIT_WORDS,
    Move,
    TextActionError,
    parse_action,
    parse_move,
)
from .prompt import ANSWER_FORMAT, answer_format, answer_line, rules_brief, rules_reminder
from .seat import (
    TURN_STARTS,
    move_lines,
    opens_turn,
    phase_name,
    seat_lines,
    seat_names,
    seat_view,
    situation,
)

__all__ = [
    "ANSWER_FORMAT",
    "DRAW_WORDS",
    "FILLER",
    "HELP",
    "LEAD_IN",
    "ORDER_WORDS",
    "PASS_WORDS",
    "PLAY_WORDS",
    "RANK_WORDS",
    "SUIT_NAMES",
    "SUIT_WORDS",
    "TURN_STARTS",
    "Move",
    "Plain",
    "TextActionError",
    "action_note",
    "action_text",
    "answer_format",
    "answer_line",
    "event_text",
    "legal_actions",
    "legal_texts",
    "match_result_lines",
    "move_lines",
    "opens_turn",
    "parse_action",
    "parse_move",
    "phase_name",
    "round_result_lines",
    "rules_brief",
    "rules_reminder",
    "seat_lines",
    "seat_names",
    "seat_view",
    "situation",
]
