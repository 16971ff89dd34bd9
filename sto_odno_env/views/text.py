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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from ..game import cards
from ..game.cards import (
    ALL_RANK_NAMES,
    DECK36,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    Deck,
    action_name,
    card_name,
)
from ..game.engine import State
from ..game.rules import Rules
from ..tools.cli import plural
from ..tools.errors import StoOdnoError

SUIT_NAMES = ("spades", "clubs", "diamonds", "hearts")

# Every way of naming a suit the parser takes (lower case): symbols in both presentations,
# letters, words in singular and plural.
SUIT_WORDS: dict[str, int] = {}
for _suit, (_symbol, _letter, _word, _light) in enumerate(
    zip(SUIT_SYMBOLS, SUIT_LETTERS, SUIT_NAMES, "♤♧♢♡", strict=True)
):
    SUIT_WORDS.update({_symbol: _suit, _light: _suit, _letter.lower(): _suit})
    SUIT_WORDS.update({_word: _suit, _word[:-1]: _suit})

RANK_WORDS = {
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "t": "10",
    "jack": "J",
    "queen": "Q",
    "king": "K",
    "ace": "A",
}

DRAW_WORDS = frozenset({"d", "draw", "take", "accept", "pick"})
PASS_WORDS = frozenset({"p", "pass", "skip", "stop"})
PLAY_WORDS = frozenset({"play", "cover", "put", "lay", "throw", "discard"})
ORDER_WORDS = frozenset({"order", "ordering", "orders", "name", "naming", "choose", "suit"})
# Words an answer may carry that say nothing: "I play the queen of spades and order hearts".
FILLER = frozenset(
    {"i", "will", "ll", "an", "the", "of", "card", "and", "then", "to", "with", "my", "it"}
)

HELP = (
    "type a move number, a move as listed (play Q♠, cover 8♣, draw, pass), or just a card "
    "(Q♠, qs, 10h, queen of spades); after a queen that orders, a suit (♠ ♣ ♦ ♥, s c d h, "
    "hearts), also at once: play qs hearts; d draws (or takes a penalty), p passes"
)


class TextActionError(StoOdnoError):
    """An answer that is not a legal move now; the message names the legal moves."""


class Move(NamedTuple):
    """A parsed answer: the action for the decision waiting and, after a queen that orders
    a suit, the order named with it (``play Q♠ hearts``), or None."""

    action: int
    then: int | None = None


# --- the styler ----------------------------------------------------------------------------


class Plain:
    """Plain text pieces for the builders: card and suit names as they are. The terminal's
    ``Screen`` has the same methods with colour. ``deck`` is the deck whose ids are named;
    the builders that take a state set it to the state's deck."""

    rich = False

    def __init__(self, deck: Deck = DECK36):
        self.deck = deck

    def text(self, text: str) -> str:
        """``text`` made safe to print (as is in plain text)."""
        return text

    def style(self, text: str, style: str) -> str:
        """``text`` in a style (plain text ignores styles)."""
        return self.text(text)

    def card(self, card: int, strong: bool = False) -> str:
        """A card's name, e.g. ``Q♠``."""
        return card_name(card, self.deck)

    def suit(self, suit: int) -> str:
        """A suit's symbol."""
        return SUIT_SYMBOLS[suit]

    def hand(self, bits: int, highlight: int = 0) -> str:
        """The cards of a card mask; cards in ``highlight`` (a mask) stand out."""
        held = [c for c in range(self.deck.cards) if bits >> c & 1]
        return " ".join(self.card(c, strong=bool(highlight >> c & 1)) for c in held) or "-"

    def action(self, action: int, state: State | None = None, game: int = 0) -> str:
        """An action as :func:`action_text` names it, with what it means in the decision
        waiting in parentheses (``draw (take the penalty: 2 cards)``)."""
        if state is not None:
            self.deck = state.tables.deck
        deck = self.deck
        phase = None if state is None else int(state.phase[game])
        if action < deck.cards:
            verb = "cover" if phase == cards.PHASE_COVER else "play"
            text = f"{verb} {self.card(action)}"
        elif deck.order_base <= action < deck.draw:
            text = "order " + self.suit(action - deck.order_base)
        else:
            text = action_name(action, deck)
        note = "" if state is None else action_note(action, state, game)
        return f"{text} ({note})" if note else text


# --- action strings --------------------------------------------------------------------------


def legal_actions(state: State, game: int = 0) -> list[int]:
    """The legal actions of the player to act, in id order (cards, suits, draw, pass)."""
    bits = int(state.legal_bits[game])
    return [a for a in range(state.tables.num_actions) if bits >> a & 1]


def action_text(action: int, state: State | None = None, game: int = 0) -> str:
    """The action string of ``action``: ``play Q♠`` (``cover Q♠`` when it covers the card
    just played), ``order ♥``, ``draw``, ``pass``, ``call``. Without a state, the
    36-card deck's names and ``play`` for every card."""
    deck = DECK36 if state is None else state.tables.deck
    if state is not None and action < deck.cards and int(state.phase[game]) == cards.PHASE_COVER:
        return f"cover {card_name(action, deck)}"
    return action_name(action, deck)


def action_note(action: int, state: State, game: int = 0) -> str:
    """What a draw or pass means in the decision waiting, or ``""``: ``take the penalty:
    2 cards``, ``draw a card to cover``, ``give up the cover``, ``end your turn``,
    ``do not call: draw 1 card``."""
    deck = state.tables.deck
    phase = int(state.phase[game])
    if action == deck.draw:
        if phase == cards.PHASE_RESPOND:
            return "take the penalty: " + plural(int(state.pending[game]), "card")
        if phase == cards.PHASE_COVER:
            return "draw a card to cover"
    if action == deck.pass_:
        if phase == cards.PHASE_COVER:
            return "give up the cover"
        if phase == cards.PHASE_CALL:
            return "do not call: draw " + plural(state.tables.call_penalty, "card")
        if phase == cards.PHASE_AFTER_DRAW:
            return "keep the drawn card"
    return ""


def legal_texts(state: State, game: int = 0) -> list[str]:
    """The action strings of the legal moves, in id order."""
    return [action_text(action, state, game) for action in legal_actions(state, game)]


def _legal_words(state: State, game: int) -> str:
    return "legal: " + ", ".join(legal_texts(state, game))


# --- the parser -------------------------------------------------------------------------------

# What a model writes around its move. Reasoning models' thoughts; an answer tag (as RL
# harnesses ask for); LaTeX's \boxed{...}; a label before the move ("Move:", "Final
# answer:", "Move 2:", "**Action**:"), whose number, if any, is a listed number.
_THOUGHTS = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|$)", re.I | re.S)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.I | re.S)
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_LABEL = re.compile(
    r"(?<![a-z])(?:move|action|answer|choice|decision|option|response)"
    r"[*_\s]*(?:#?\s*(?P<number>\d+))?[*_\s]*[:：]",
    re.I,
)
# Markdown that says nothing about the move: code fences (a whole line, with its language),
# emphasis and code spans, and at a line's start quote marks, bullets and headings.
_FENCE = re.compile(r"^\s*(```|~~~)")
_MARKUP = re.compile(r"[*_`~]+")
_LINE_START = re.compile(r"^(?:\s*(?:[>•+]|-(?!\d)|#{1,6}(?=\s)))+")
# A number a move is listed under, as copied from the list or numbered by the model:
# "1) play 7♣", "1. play 7♣", "1: draw", "(2) draw", "#2 draw", "2 - draw", "2 draw". A
# bare number counts only before a verb, so "10 clubs" and "7 of clubs" stay cards.
_LISTED = re.compile(
    r"^\s*(?:\(\s*(?P<a>\d+)\s*\)|#?(?P<b>\d+)\s*[.):]|#(?P<c>\d+)|(?P<d>\d+)\s+[-–—]"
    r"|(?P<e>\d+)\s+(?=(?:play|cover|order|draw|pass|call|take)\b))\s*(?P<rest>.*)$",
    re.I | re.S,
)
# Contractions before a move: "I'll", "I'd", "I'm", "let's" ("d" alone would draw).
_CONTRACTION = re.compile(r"\b(?:i|we|let)['’](?:d|ll|m|ve|s)\b|\blets\b", re.I)
# Words that may open an answer before the move itself: "let's go with", "my move is".
LEAD_IN = frozenset(
    {"me", "go", "going", "choose", "decide", "would", "like", "want", "move", "is", "option",
     "select", "answer", "action", "now", "so", "ok", "okay", "final"}
)  # fmt: skip


def _tokens(text: str) -> list[str]:
    """Lower-case words of an answer, parentheses and quotes dropped (a rank glued to its
    suit, ``q♠``, stays one word)."""
    text = _CONTRACTION.sub(" ", text.replace("\ufe0f", "")).lower()  # ♥️: emoji selector
    text = re.sub(r"\([^)]*\)", " ", text)  # the listing's "(take the penalty: 2 cards)"
    text = re.sub(r"[\"'‘’“”`*_~#•.,;:!?→\->=\[\]{}]+", " ", text)  # a stray bracket too
    return text.split()


def _focus(text: str) -> str:
    """The part of an answer that holds the move: the last ``<answer>`` tag, then within
    it the last ``[...]`` (or ``\\boxed{...}``), then the line after its last label."""
    text = _THOUGHTS.sub(" ", text.replace("\ufe0f", ""))
    for pattern in (_ANSWER_TAG, _BRACKETS, _BOXED):
        found = pattern.findall(text)
        if found:
            text = found[-1]
    labels = list(_LABEL.finditer(text))
    if not labels:
        return text
    label = labels[-1]
    after = [line for line in text[label.end() :].splitlines() if _has_words(line)]
    rest = after[0] if after else ""
    return f"{label['number']}) {rest}" if label["number"] else rest


def _has_words(line: str) -> bool:
    return bool(_tokens(_MARKUP.sub(" ", line)))


def _answer_lines(text: str) -> list[str]:
    """The lines of an answer's focus (:func:`_focus`) that say something, markdown gone."""
    lines = []
    for line in _focus(text).splitlines():
        if _FENCE.match(line):
            continue
        line = _LINE_START.sub("", _MARKUP.sub(" ", line)).strip()
        if _has_words(line):
            lines.append(line)
    return lines


def _listed(line: str) -> tuple[int | None, str]:
    """The number a line lists its move under (``1) play 7♣``) and the rest of the line,
    or ``(None, line)``."""
    found = _LISTED.match(line)
    if found is None:
        return None, line
    number = next(found[group] for group in "abcde" if found[group] is not None)
    return int(number), found["rest"]


def _card_at(tokens: list[str], deck: Deck) -> tuple[int, int] | None:
    """The card named at the start of ``tokens`` and how many tokens it took, or None:
    ``qs``, ``q♠``, ``10h``, ``q spades``, ``queen spades`` (filler words already gone)."""
    if not tokens:
        return None
    first = tokens[0]
    glued = re.fullmatch(r"(10|[2-9]|[tjqka])([♠♣♦♥♤♧♢♡scdh])", first)
    if glued:
        rank, suit = glued.group(1), SUIT_WORDS[glued.group(2)]
        return _card(rank, suit, deck), 1
    rank = RANK_WORDS.get(first, first).upper()
    if rank in ALL_RANK_NAMES and len(tokens) > 1 and tokens[1] in SUIT_WORDS:
        return _card(rank, SUIT_WORDS[tokens[1]], deck), 2
    return None


def _card(rank: str, suit: int, deck: Deck) -> int:
    rank = RANK_WORDS.get(rank, rank).upper()
    if rank not in deck.rank_names:
        raise TextActionError(
            f"rank {rank} is not in the {deck.cards}-card deck (ranks {' '.join(deck.rank_names)})"
        )
    suits = deck.cards // deck.ranks  # a small deck may have fewer than four
    if suit >= suits:
        raise TextActionError(
            f"suit {SUIT_SYMBOLS[suit]} is not in the {deck.cards}-card deck "
            f"(suits {' '.join(SUIT_SYMBOLS[:suits])})"
        )
    return deck.card_id(suit, deck.rank_names.index(rank))


def _named_moves(tokens: list[str], state: State, game: int) -> list[int]:
    """Every move ``tokens`` name, in order, each once: cards (at a suit order, suits),
    and draw, pass and call in words (not ``d`` and ``p``, which may be suit letters)."""
    deck = state.tables.deck
    ordering = int(state.phase[game]) == cards.PHASE_ORDER
    named: list[int] = []
    at = 0
    while at < len(tokens):
        word, used, action = tokens[at], 1, None
        if ordering and word in SUIT_WORDS:
            action = deck.order_base + SUIT_WORDS[word]
        elif word in DRAW_WORDS - {"d"}:
            action = deck.draw
        elif word in PASS_WORDS - {"p"}:
            action = deck.pass_
        elif word == "call":
            action = deck.call
        elif not ordering:
            try:
                found = _card_at(tokens[at:], deck)
            except TextActionError:  # a rank or suit the deck lacks names no move
                found = None
            if found is not None:
                action, used = found
        if action is not None and action not in named:
            named.append(action)
        at += used
    return named


def _no_move(number: int, state: State, game: int) -> TextActionError:
    """The refusal of a listed number outside the list."""
    count = len(legal_actions(state, game))
    return TextActionError(
        f"there is no move {number} (choose 1 to {count}); " + _legal_words(state, game)
    )


def _two_moves(text: str, actions: Sequence[int], state: State, game: int) -> TextActionError:
    """The refusal of an answer that names more than one move."""
    moves = ", ".join(action_text(action, state, game) for action in actions)
    return TextActionError(
        f"{text.strip()!r} names {len(actions)} moves ({moves}): answer one; "
        + _legal_words(state, game)
    )


def parse_move(text: str, state: State, game: int = 0) -> Move:
    """The move meant by ``text`` for the player to act in ``state`` (game ``game``).

    Reads answers as people and language models write them (docs/text.md, "How answers
    are read"): the part that holds the move is the last ``<answer>...</answer>``, within
    it the last ``[...]`` (TextArena's convention) or ``\\boxed{...}``, then what follows
    the last label (``Move:``, ``Final answer:``); markdown emphasis, code spans, bullets
    and a trailing full stop are ignored. A move is a number in the legal list (from 1), an
    action string or any lenient form of it (case, suit symbols, letters and words,
    ``queen of spades``), ``draw`` / ``take`` / ``d``, ``pass`` / ``p``; at a suit order, a
    suit alone (``h`` is hearts there, ``d`` diamonds). A listed line with its number
    (``1) play 7♣``, ``(2) draw``) is taken when the number and the move agree. After a
    card that orders a suit the suit may follow (``play qs hearts``): it is returned as
    :attr:`Move.then`. An answer of several lines is read line by line: the lines that
    are moves must all name the same one.

    Raises :class:`TextActionError` naming what is wrong and the legal moves; an answer
    that names two different moves is refused.
    """
    legal = legal_actions(state, game)
    if int(state.phase[game]) == cards.PHASE_DONE or not legal:
        raise TextActionError("the match is over: there is no move to take")
    lines = _answer_lines(text)
    if not lines:
        raise TextActionError("empty answer; " + _legal_words(state, game))
    moves: list[Move] = []
    refusal = None
    for line in lines:
        try:
            move = _parse_line(line, state, game)
        except TextActionError as error:
            refusal = refusal or error  # the first refused line tells best what went wrong
            continue
        if move not in moves:
            moves.append(move)
    if len(moves) > 1:
        raise _two_moves(" / ".join(lines), [move.action for move in moves], state, game)
    if moves:
        return moves[0]
    assert refusal is not None
    raise refusal


def _parse_line(line: str, state: State, game: int) -> Move:
    """One line of an answer: a move, optionally after the number it is listed under (the
    two must agree)."""
    number, rest = _listed(line)
    if number is None:
        return _parse_words(line, state, game)
    legal = legal_actions(state, game)
    if not 1 <= number <= len(legal):
        raise _no_move(number, state, game)
    if not _has_words(rest):
        return Move(legal[number - 1])
    move = _parse_words(rest, state, game)
    if move.action != legal[number - 1]:
        listed = action_text(legal[number - 1], state, game)
        raise TextActionError(
            f"{line.strip()!r} names move {number} ({listed}) and "
            f"{action_text(move.action, state, game)}: answer one; " + _legal_words(state, game)
        )
    return move


def _parse_words(text: str, state: State, game: int) -> Move:
    """A move in words (no listed number in front); an answer that cannot be read and
    names more than one move is refused as naming two moves."""
    tokens = [word for word in _tokens(text) if word not in FILLER]
    while len(tokens) > 1 and tokens[0] in LEAD_IN:  # "let's go with", "my move is"
        tokens = tokens[1:]
    try:
        return _read_words(text, tokens, state, game)
    except TextActionError:
        named = _named_moves(tokens, state, game)
        if len(named) > 1:
            raise _two_moves(text, named, state, game) from None
        raise


def _read_words(text: str, tokens: list[str], state: State, game: int) -> Move:
    """The move of an answer's words (filler gone): a listed number alone, a suit at an
    order, draw, pass or call, or a card (with the suit its queen orders)."""
    legal = legal_actions(state, game)
    if not tokens:
        raise TextActionError("empty answer; " + _legal_words(state, game))
    if len(tokens) == 1 and tokens[0].isdigit() and not _card_at(tokens, state.tables.deck):
        number = int(tokens[0])
        if 1 <= number <= len(legal):
            return Move(legal[number - 1])
        raise _no_move(number, state, game)
    if int(state.phase[game]) == cards.PHASE_ORDER:
        return _read_order(text, tokens, state, game)
    if tokens[0] in DRAW_WORDS | PASS_WORDS | {"call"}:
        return _read_verb(text, tokens, state, game)
    return _read_card(text, tokens, state, game)


def _suit_order(suit: int, state: State) -> int | None:
    """The order action of ``suit``, or None where the deck has no such suit."""
    deck = state.tables.deck
    return deck.order_base + suit if suit < deck.cards // deck.ranks else None


def _read_order(text: str, tokens: list[str], state: State, game: int) -> Move:
    legal = legal_actions(state, game)
    words = [word for word in tokens if word not in ORDER_WORDS]
    if len(words) == 1 and words[0] in SUIT_WORDS:
        action = _suit_order(SUIT_WORDS[words[0]], state)
        if action in legal:
            return Move(action)
    deck = state.tables.deck
    suits = " ".join(SUIT_SYMBOLS[a - deck.order_base] for a in legal if a < deck.draw)
    raise TextActionError(
        f"{text.strip()!r} is not a suit: name the suit the next player must follow, "
        f"one of {suits} (a letter or a word: s, spades); " + _legal_words(state, game)
    )


def _read_verb(text: str, tokens: list[str], state: State, game: int) -> Move:
    """``draw``, ``pass`` or ``call``, with words that only say what they mean."""
    deck = state.tables.deck
    verb = tokens[0]
    action = deck.draw if verb in DRAW_WORDS else deck.pass_ if verb in PASS_WORDS else deck.call
    said = ("penalty", "cards", "a", "card", "turn")  # "take the penalty", "pass my turn"
    rest = [word for word in tokens[1:] if word not in said]
    if rest and not all(word.isdigit() for word in rest):
        raise TextActionError(
            f"{text.strip()!r}: {verb} takes nothing after it; " + _legal_words(state, game)
        )
    if action in legal_actions(state, game):
        return Move(action)
    name = action_name(action, deck)
    raise TextActionError(f"you cannot {name} now; " + _legal_words(state, game))


def _read_card(text: str, tokens: list[str], state: State, game: int) -> Move:
    """A card the seat holds and may play, and the suit it orders if one follows."""
    deck = state.tables.deck
    if tokens[0] in PLAY_WORDS:
        tokens = tokens[1:]
    try:
        if tokens[:1] == ["a"] and _card_at(tokens[1:], deck):  # "play a Q♠": not an ace
            tokens = tokens[1:]
        found = _card_at(tokens, deck)
    except TextActionError as error:  # a rank or suit the deck lacks
        raise TextActionError(f"{error}; " + _legal_words(state, game)) from None
    if found is None:
        raise TextActionError(
            f"{text.strip()!r} is not a move: write a move as listed, a card (Q♠, qs, 10h, "
            f"queen of spades), draw or pass; {_legal_words(state, game)}"
        )
    card, used = found
    name = card_name(card, deck)
    hand = int(state.hand[game, int(state.current_player[game])])
    if not hand >> card & 1:
        raise TextActionError(f"you do not hold {name}; " + _legal_words(state, game))
    if card not in legal_actions(state, game):
        raise TextActionError(f"{name} cannot be played now; " + _legal_words(state, game))
    rest = [word for word in tokens[used:] if word not in ORDER_WORDS]
    if not rest:
        return Move(card)
    order = _suit_order(SUIT_WORDS[rest[0]], state) if rest[0] in SUIT_WORDS else None
    if len(rest) == 1 and order is not None:
        if not state.tables.order_suit[card]:
            raise TextActionError(
                f"{name} orders no suit in these rules: play it without one; "
                + _legal_words(state, game)
            )
        return Move(card, order)
    raise TextActionError(
        f"{text.strip()!r}: after {name} only a suit to order may follow "
        f"(play {name} hearts); " + _legal_words(state, game)
    )


def parse_action(text: str, state: State, game: int = 0) -> int:
    """The one action id meant by ``text`` for the decision waiting (see
    :func:`parse_move`); a suit named after a queen is refused here, since the order is
    a decision of its own: name it when asked."""
    move = parse_move(text, state, game)
    if move.then is not None:
        raise TextActionError(
            f"{text.strip()!r} names two decisions; answer {action_text(move.action, state, game)}"
            " now and the suit when asked"
        )
    return move.action


# --- what a seat sees -------------------------------------------------------------------------


def situation(screen: Plain, state: State, game: int = 0) -> list[str]:
    """Top card, ordered suit, stock and pending penalty, and what the phase asks for."""
    screen.deck = state.tables.deck
    no_card = screen.deck.no_card
    top = int(state.top_card[game])
    parts = ["top card " + (screen.card(top, strong=True) if top != no_card else "(none)")]
    suit = int(state.ordered_suit[game])
    if suit >= 0:
        parts.append("ordered suit " + screen.suit(suit))
    parts.append(f"stock {int(state.stock_size[game])}")
    if int(state.pending[game]):
        parts.append(f"penalty pending {int(state.pending[game])}")
    lines = [" · ".join(parts)]
    phase = int(state.phase[game])
    hint = {
        cards.PHASE_AFTER_DRAW: "drawn: {drawn}; play a card or pass",
        cards.PHASE_COVER: "the card just played ({top}) must be covered: play a card on it, or "
        "draw or pass",
        cards.PHASE_ORDER: "name the suit the next player must follow",
        cards.PHASE_RESPOND: "a penalty is coming: add to it or take it",
        cards.PHASE_CALL: "one card left: call it, or pass and draw "
        + plural(state.tables.call_penalty, "card"),
    }.get(phase)
    if hint:
        drawn = int(state.drawn_card[game])
        lines.append(
            hint.format(
                drawn=screen.card(drawn) if drawn != no_card else "a card",
                top=screen.card(top) if top != no_card else "-",
            )
        )
    return lines


def seat_lines(
    screen: Plain,
    state: State,
    names: Sequence[str],
    shown: Sequence[int] = (),
    game: int = 0,
) -> list[str]:
    """One line per seat: marks, name, card count, total, and the hand if in ``shown``.

    Marks: ``>`` to act, ``D`` dealer (leader under ``leader_plays``), ``out`` eliminated.
    """
    screen.deck = state.tables.deck
    current = int(state.current_player[game])
    width = max(len(name) for name in names)
    lines = []
    for seat, name in enumerate(names):
        bits = int(state.hand[game, seat])
        out = not int(state.in_match[game]) >> seat & 1
        mark = (">" if seat == current else " ") + ("D" if seat == state.dealer[game] else " ")
        line = (
            f"{mark} {screen.text(name.ljust(width))}  {bits.bit_count():>2} "
            f"{'card ' if bits.bit_count() == 1 else 'cards'}  "
            f"total {int(state.totals[game, seat]):>3}"
        )
        if out:
            line += "  " + screen.style("out", "dim")
        elif seat in shown:
            line += "  " + screen.hand(bits)
        lines.append(line)
    return lines


def move_lines(screen: Plain, state: State, game: int = 0) -> list[str]:
    """The legal moves numbered from 1, as the player types them."""
    return [
        f"{number:>2}) {screen.action(action, state, game)}"
        for number, action in enumerate(legal_actions(state, game), start=1)
    ]


def event_text(
    screen: Plain, event: dict[str, Any], names: Sequence[str], viewer: int | None = None
) -> str | None:
    """One record event in words, or None for events shown elsewhere (match header).

    ``viewer`` is the seat whose secrets may be shown (a stolen or drawn card is shown to
    the seats that hold or held it only); None shows everything (the record viewer).
    Besides the record's events (docs/rules.md §10) the terminal game passes the cards a
    seat took: ``drawn`` (card ids) on the action of a seat that drew, and ``draw``
    events ``{"player", "cards"}`` for a penalty taken, with ``"cause"`` (the card that
    gave it) where known.
    """
    kind = event["type"]
    player = event.get("player")
    if kind == "action":
        text = f"{screen.text(names[player])}: {screen.action(event['action'])}"
        text += " " + screen.style("(forced)", "dim") if event["forced"] else ""
        if event.get("drawn"):
            text += " → " + _taken(screen, event["drawn"], viewer in (None, player))
        return text
    if kind == "draw":
        verb = "take" if viewer == player else "takes"
        taken = event["cards"]
        cause = event.get("cause")
        why = "penalty" if cause is None else f"penalty of {screen.card(cause)}"
        text = f"{screen.text(names[player])} {verb} {plural(len(taken), 'card')} ({why})"
        return text + (": " + _taken(screen, taken) if viewer in (None, player) else "")
    if kind == "unfinished":
        return "the record stops here: the match was left unfinished"
    if kind == "steal":
        thief, victim = event["player"], event["from"]
        card = "a card"
        if viewer is None or viewer in (thief, victim):
            card = screen.card(event["card"])
        return f"{screen.text(names[thief])} steals {card} from {screen.text(names[victim])}"
    if kind == "reshuffle":
        return f"the discard pile becomes the stock ({plural(len(event['stock']), 'card')})"
    if kind == "round":
        return f"round {event['round'] + 1} dealt by {screen.text(names[event['dealer']])}"
    if kind == "round_end":
        last = event["last_card"]
        how = f"on {screen.card(last)}" if last is not None else "(last card stolen)"
        return f"round over: {screen.text(names[event['finisher']])} finished {how}"
    if kind == "match_end":
        return "match over" + (" (truncated)" if event["truncated"] else "")
    return None


def _taken(screen: Plain, taken: Sequence[int], shown: bool = True) -> str:
    """Cards a seat took: the cards when ``shown``, else only how many."""
    if shown:
        return " ".join(screen.card(card) for card in taken)
    return plural(len(taken), "card")


def round_result_lines(screen: Plain, event: dict[str, Any], names: Sequence[str]) -> list[str]:
    """A ``round_end`` event: who finished, each seat's points and running total."""
    lines = [event_text(screen, event, names) or ""]
    width = max(len(name) for name in names)
    for seat, name in enumerate(names):
        points = event["points"][seat]
        scored = "   -" if points is None else f"{points:>+4d}"
        line = f"{screen.text(name.ljust(width))}  {scored}  total {event['totals'][seat]:>3}"
        if seat in event["out"]:
            line += "  " + screen.style("out", "dim")
        lines.append(line)
    return lines


def match_result_lines(
    screen: Plain, event: dict[str, Any], names: Sequence[str], you: int | None = None
) -> list[str]:
    """A ``match_end`` event: the ranking with totals, and the human's place."""
    lines = []
    if event["truncated"]:
        lines.append("the match was stopped at the turn limit (truncated)")
    for place, seat in enumerate(event["ranking"], start=1):
        lines.append(f"{place}. {screen.text(names[seat])}  total {event['totals'][seat]}")
    if you is not None:
        place = event["ranking"].index(you) + 1
        totals = event["totals"]
        if place == 1 and list(totals).count(totals[you]) == 1:
            lines.append(screen.style("You win!", "bold green"))
        else:
            lines.append(f"You finish {_ordinal(place)} of {len(names)}.")
    return lines


def _ordinal(number: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number if number < 20 else number % 10, "th")
    return f"{number}{suffix}"


def phase_name(state: State, game: int = 0) -> str:
    """The phase of the decision waiting, or ``match over``."""
    phase = int(state.phase[game])
    return "match over" if phase == cards.PHASE_DONE else cards.PHASE_NAMES[phase]


# Decisions that open a seat's turn; the others (after its own draw, cover, queen or call)
# go on with the turn that led to them.
TURN_STARTS = (cards.PHASE_PLAY, cards.PHASE_RESPOND)


def opens_turn(state: State, last_actor: int | None, game: int = 0) -> bool:
    """Whether the decision waiting opens a new turn of the player to act, after a
    decision of ``last_actor`` (None: a round was just dealt). A skip that brings the turn
    back opens a new one; a seat's forced decisions are turns like any other."""
    seat = int(state.current_player[game])
    return last_actor != seat or int(state.phase[game]) in TURN_STARTS


def seat_names(players: int, seat: int, name: str = "You") -> list[str]:
    """``name`` for ``seat`` and ``seat k`` for the others: the default names of a view."""
    return [name if p == seat else f"seat {p}" for p in range(players)]


def seat_view(
    state: State,
    seat: int,
    game: int = 0,
    names: Sequence[str] | None = None,
    recent: Iterable[dict[str, Any]] = (),
    turn: int | None = None,
    show_round: bool = True,
) -> str:
    """The view of ``seat`` as text, to show a player or put in a model's prompt.

    ``names`` names every seat (default: ``You`` and ``seat k``; the viewer's name is
    marked ``(you)`` in the lists unless it is ``You``); ``recent`` is what
    happened since the seat's last turn, as record events (docs/rules.md §10, with the
    ``draw`` events of :func:`event_text`), told as ``seat`` may know it; ``turn`` is the
    number of the seat's own turn to show; ``show_round`` False leaves the round number
    out (a state rebuilt from an observation does not know it). The legal moves are listed
    only when ``seat`` is to act."""
    plain = list(names) if names is not None else seat_names(state.players, seat)
    you = plain[seat] if f"seat {seat}" in plain[seat] else f"{plain[seat]} (seat {seat})"
    names = [
        f"{name} (you)" if p == seat and name != "You" else name for p, name in enumerate(plain)
    ]
    rules = state.tables.rules
    acting = int(state.current_player[game]) == seat and int(state.phase[game]) != cards.PHASE_DONE
    head = f"101 · rules {rules.name} · {state.players} players"
    if show_round:
        head += f" · round {int(state.round[game]) + 1}"
    if turn is not None:
        head += f" · your turn {turn}"
    out = f"a total above {rules.target} is out"
    lines = [head, f"You are {you}; {out}." if plain[seat] != "You" else f"A{out[1:]}."]
    screen = Plain(state.tables.deck)  # this state's deck names every card id below
    events = [text for event in recent if (text := event_text(screen, event, names, seat))]
    if events:
        lines += ["Since your last turn:", *(f"  {text}" for text in events)]
    lines += situation(screen, state, game)
    lines += [
        "Players (> to act, D dealer):",
        *(f"  {line}" for line in seat_lines(screen, state, names, game=game)),
    ]
    lines.append("Your hand: " + screen.hand(int(state.hand[game, seat])))
    if acting:
        lines += ["Legal moves:", *move_lines(screen, state, game)]
        lines.append(answer_line(state, game))
    elif int(state.phase[game]) == cards.PHASE_DONE:
        lines.append("The match is over.")
    return "\n".join(lines)


# --- how to answer ------------------------------------------------------------------------

# The one way every prompt asks for a move (the seat's view, the TextArena rules, a text
# agent's second try), so that no two lines of a prompt ask for different formats.
ANSWER_FORMAT = "one move as listed, in square brackets"


def answer_line(state: State, game: int = 0) -> str:
    """The view's last line: how to answer, with the first legal move as the example
    (``Answer with one move as listed, in square brackets, e.g. [play Q♠].``)."""
    example = action_text(legal_actions(state, game)[0], state, game)
    return f"Answer with {ANSWER_FORMAT}, e.g. [{example}]."


def answer_format(state: State) -> str:
    """How to answer, for the rules part of a prompt, with examples from ``state``'s deck
    and rule set: a card play, a cover and a suit order where the rules have them, draw
    and pass, and a queen's suit named with it."""
    tables = state.tables
    deck = tables.deck
    suits = deck.cards // deck.ranks
    # a card that orders a suit where there is one (the queen of spades in most decks)
    orders = [card for card in range(deck.cards) if tables.order_suit[card]]
    card = card_name(orders[0] if orders else deck.cards - 1, deck)
    examples = [f"[play {card}]"]
    covers = [c for c in range(deck.cards) if tables.cover[c]]
    if covers:
        examples.append(f"[cover {card_name(covers[-1], deck)}]")
    if orders:
        examples.append(f"[order {SUIT_SYMBOLS[suits - 1]}]")
    text = f"Answer with {ANSWER_FORMAT}: {', '.join([*examples, '[draw]', '[pass]'])}"
    if orders:
        named = f"[play {card} {SUIT_NAMES[suits - 1]}]"
        text += f"; a card that orders a suit may name it at once: {named}"
    return text + "."


# --- the rules in brief -----------------------------------------------------------------------


def _effect_words(effect: Any) -> list[str]:
    words = []
    if effect.wild:
        words.append("goes on any card")
    if effect.draw:
        words.append(f"the next player takes {plural(effect.draw, 'card')}")
    if effect.skip:
        words.append("the next player is skipped")
    if effect.cover:
        words.append("must be covered by another card of yours (or draw)")
    if effect.order_suit:
        words.append("you order the suit to follow")
    return words


def rules_brief(rules: Rules) -> list[str]:
    """The rules in a few lines, for a model's prompt: the aim and how a match ends, then
    the special cards (:func:`rules_reminder`), indented."""
    *special, ending = rules_reminder(rules)
    return [
        f"Get rid of your cards: the first to empty the hand ends the round; {ending}.",
        "A card goes on one of the same suit or rank; special cards:",
        *(f"  {line}" for line in special),
    ]


def rules_reminder(rules: Rules) -> list[str]:
    """What the special cards of ``rules`` do, one line each, from its effects and finish
    bonus tables (a card key overrides its rank's), and how a match ends."""
    lines = []
    for key, effect in rules.effects.items():
        words = _effect_words(effect)
        if words:
            lines.append(f"{key}: {'; '.join(words)}")
    for key, bonus in rules.finish_bonus.items():
        parts = []
        if bonus.points:
            parts.append(f"{bonus.points:+d} points")
        if bonus.multiplier != 1:
            parts.append(f"the others' points ×{bonus.multiplier}")
        if parts:
            lines.append(f"finishing on {key}: {', '.join(parts)}")
    if rules.stacking:
        lines.append("a penalty may be passed on with a card of the same rank")
    out = f"a total above {rules.target} is out"
    if rules.reset_at_target:
        out += f" (exactly {rules.target} goes back to 0)"
    end = "ends the match" if rules.match_end == "first_loser" else "puts you out"
    lines.append(f"cards left in hand score against you; {out.replace('is out', end)}")
    return lines
