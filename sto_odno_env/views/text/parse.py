"""The parser of answers: what a person or a language model types, read leniently.

:func:`parse_move` takes any case, suit symbols, letters or words (``play qs hearts``,
``Q of spades, order ♥``, ``10h``, ``take``), a move's number in the list, a listed line
copied with its number (``1) play 7♣``), a label before the move (``Move:``), markdown,
``[...]`` and a trailing parenthesis as the listing shows it. An answer it cannot take, or
one that names two different moves, raises :class:`TextActionError`, one message naming
what is wrong and the legal moves. :func:`parse_action` is the same for one decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ...game import cards
from ...game.cards import (
    ALL_RANK_NAMES,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    Deck,
    action_name,
    card_name,
)
from ...game.engine import State
from ...tools.errors import StoOdnoError
from .actions import SUIT_NAMES, action_text, legal_actions, legal_texts

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
