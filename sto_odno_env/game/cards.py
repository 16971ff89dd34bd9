"""Card and action ids (docs/rules.md §1, §12).

A card id is ``suit * 9 + rank`` with suits ``♠ ♣ ♦ ♥`` (0–3) and ranks
``6 7 8 9 10 J Q K A`` (0–8), so ``6♠ = 0``, ``Q♠ = 6``, ``K♠ = 7``, ``A♥ = 35``.
The module constants below are those of this 36-card deck. A rule set with ``deck: 52``
(docs/rules.md §12) adds the ranks ``2 3 4 5`` below the 6: its :class:`Deck`
(:func:`deck_of`) has ids ``suit * 13 + rank`` with ranks counted from the 2, and actions
``0…51`` play, ``52…55`` order, ``56`` draw, ``57`` pass, ``58`` call. A small deck,
``deck: {ranks: [8, Q, A], suits: 2}`` (:func:`small_deck`), has the chosen ranks in the
first suits: ids ``suit * ranks + rank``, one order action per suit, then draw, pass and
call. Card naming and parsing take an optional ``deck`` (the 36-card one by default).

One ``Discrete(42)`` action space serves every decision:

======  ==========================================
id      action
======  ==========================================
0–35    play card *id*
36–39   order suit ♠ ♣ ♦ ♥ (after a queen that orders)
40      draw (also: accept a stacked penalty)
41      pass
42      call (only in rule sets with ``last_card_call``, docs/rules.md §12)
======  ==========================================

``NUM_ACTIONS`` is the classic 42; a rule set with ``last_card_call`` has 43 actions
(``Rules.num_actions``), the call at ``CALL``.

Phase codes (``State.phase``) say which decision the player to act faces (docs/rules.md §4):
``PHASE_PLAY`` (play, draw or pass), ``PHASE_AFTER_DRAW`` (play the drawn card or pass),
``PHASE_COVER`` (cover the card just played), ``PHASE_ORDER`` (order a suit after a queen),
``PHASE_RESPOND`` (stack onto a penalty or accept it), ``PHASE_DONE`` (the match is over),
``PHASE_CALL`` (call the last card or pass; only with ``last_card_call``, docs/rules.md §12).
"""

from __future__ import annotations

import dataclasses
from functools import cache

from ..tools.errors import StoOdnoError

NUM_SUITS = 4
NUM_RANKS = 9
NUM_CARDS = NUM_SUITS * NUM_RANKS
ORDER_BASE = NUM_CARDS
DRAW = ORDER_BASE + NUM_SUITS
PASS = DRAW + 1
NUM_ACTIONS = PASS + 1
CALL = PASS + 1  # the last-card call: an action only where the rules have last_card_call
MAX_ACTIONS = CALL + 1  # action ids of any rule set are below this
ORDER_ACTIONS = range(ORDER_BASE, DRAW)
NO_CARD = NUM_CARDS  # "no card": an empty table, nothing drawn; tables have a row for it

PHASE_PLAY, PHASE_AFTER_DRAW, PHASE_COVER, PHASE_ORDER, PHASE_RESPOND, PHASE_DONE = range(6)
PHASE_CALL = 6  # after DONE, so the classic codes (and observations) keep their values
NUM_PHASES = 7
PHASE_NAMES = ("PLAY", "AFTER_DRAW", "COVER", "ORDER", "RESPOND", "DONE", "CALL")

SUIT_SYMBOLS = ("♠", "♣", "♦", "♥")
SUIT_LETTERS = ("S", "C", "D", "H")
RANK_NAMES = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
QUEEN = RANK_NAMES.index("Q")

_SUIT_ALIASES = {}
for _index, (_symbol, _letter) in enumerate(zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=False)):
    _SUIT_ALIASES[_symbol] = _index
    _SUIT_ALIASES[_letter] = _index
# The text-presentation variants of the suit symbols (♤ ♧ ♢ ♡) are accepted too.
for _index, _symbol in enumerate(("♤", "♧", "♢", "♡")):
    _SUIT_ALIASES[_symbol] = _index


class CardParseError(StoOdnoError):
    """A text that is not a card or rank in any accepted form."""


ALL_RANK_NAMES = ("2", "3", "4", "5", *RANK_NAMES)  # every rank of any deck, lowest first
DECK_SIZES = (36, 52)  # the full decks, named by their size alone


@dataclasses.dataclass(frozen=True)
class Deck:
    """A deck and its card and action ids (docs/rules.md §1, §12).

    ``cards`` ids ``suit * ranks + rank`` (ranks counted from ``lowest``, suits from ♠ in
    the order ♠ ♣ ♦ ♥); actions: plays ``0…cards-1``, one order per suit from
    ``order_base``, then ``draw``, ``pass_`` and ``call`` (the call only with
    last_card_call). ``no_card`` (= ``cards``) is the tables' "no card" row. Build it with
    :func:`deck_of` (36 or 52 cards) or :func:`small_deck` (chosen ranks and suits).
    """

    cards: int
    ranks: int
    rank_names: tuple[str, ...]
    lowest: str
    suits: int = NUM_SUITS

    @property
    def order_base(self) -> int:
        return self.cards

    @property
    def draw(self) -> int:
        return self.cards + self.suits

    @property
    def pass_(self) -> int:
        return self.draw + 1

    @property
    def call(self) -> int:
        return self.pass_ + 1

    @property
    def no_card(self) -> int:
        return self.cards

    @property
    def queen(self) -> int | None:
        """The queens' rank index, or None in a deck without queens."""
        return self.rank_names.index("Q") if "Q" in self.rank_names else None

    @property
    def suit_symbols(self) -> tuple[str, ...]:
        return SUIT_SYMBOLS[: self.suits]

    @property
    def full(self) -> bool:
        """A 36- or 52-card deck (named by its size in a rule set)."""
        return (
            self.suits == NUM_SUITS
            and self.cards in DECK_SIZES
            and (self.rank_names == ALL_RANK_NAMES[len(ALL_RANK_NAMES) - self.ranks :])
        )

    def value(self) -> int | dict[str, list[str] | int]:
        """The rule set's ``deck`` value: 36, 52, or ``{ranks: [...], suits: k}``."""
        if self.full:
            return self.cards
        return {"ranks": list(self.rank_names), "suits": self.suits}

    def actions(self, call: bool = False) -> int:
        """The number of actions: plays, orders, draw, pass (and the call)."""
        return self.pass_ + 1 + int(call)

    def card_id(self, suit: int, rank: int) -> int:
        return suit * self.ranks + rank

    def suit_of(self, card: int) -> int:
        return card // self.ranks

    def rank_of(self, card: int) -> int:
        return card % self.ranks


@cache
def deck_of(size: int | Deck = 36) -> Deck:
    """The :class:`Deck` of ``size`` cards: 36 (6 to ace) or 52 (2 to ace); a Deck as is."""
    if isinstance(size, Deck):
        return size
    if isinstance(size, bool) or size not in DECK_SIZES:
        raise ValueError(f"deck {size!r} is not allowed; allowed: 36, 52")
    names = ALL_RANK_NAMES[len(ALL_RANK_NAMES) - size // NUM_SUITS :]
    return Deck(cards=size, ranks=len(names), rank_names=names, lowest=names[0])


@cache
def small_deck(rank_names: tuple[str, ...], suits: int = NUM_SUITS) -> Deck:
    """The deck of the ranks ``rank_names`` (canonical names, lowest first, each once) in
    the first ``suits`` suits (♠ ♣ ♦ ♥ order): a 36- or 52-card deck when it is one."""
    names = tuple(rank_names)
    if not names or any(name not in ALL_RANK_NAMES for name in names):
        raise ValueError(f"ranks {list(names)!r}: allowed: some of {', '.join(ALL_RANK_NAMES)}")
    if sorted(names, key=ALL_RANK_NAMES.index) != list(names) or len(set(names)) != len(names):
        raise ValueError(f"ranks {list(names)!r} must be distinct, lowest first")
    if isinstance(suits, bool) or suits not in range(1, NUM_SUITS + 1):
        raise ValueError(f"suits {suits!r}: allowed: 1, 2, 3, 4")
    deck = Deck(
        cards=len(names) * suits, ranks=len(names), rank_names=names, lowest=names[0], suits=suits
    )
    return deck_of(deck.cards) if deck.full else deck


DECK36 = deck_of(36)


def _deck(deck: Deck | int | None) -> Deck:
    if deck is None:
        return DECK36
    return deck if isinstance(deck, Deck) else deck_of(deck)


def card_id(suit: int, rank: int) -> int:
    """The id of the card of ``suit`` (0–3) and ``rank`` (0–8)."""
    return suit * NUM_RANKS + rank


def suit_of(card: int) -> int:
    """Suit index (0–3) of a card id."""
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    """Rank index (0–8) of a card id."""
    return card % NUM_RANKS


def card_name(card: int, deck: Deck | int | None = None) -> str:
    """Pretty name with a suit symbol, e.g. ``Q♠`` (ids of ``deck``, 36 cards by default)."""
    deck = _deck(deck)
    if not 0 <= card < deck.cards:
        raise ValueError(f"card id {card!r} is outside 0..{deck.cards - 1}")
    return deck.rank_names[card % deck.ranks] + SUIT_SYMBOLS[card // deck.ranks]


def parse_rank(text: str | int, deck: Deck | int | None = None) -> int:
    """Rank index of ``"6"``…``"10"``, ``"T"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"`` (any case),
    and ``"2"``…``"5"`` in a 52-card ``deck`` (indices count from the deck's lowest rank).

    YAML turns an unquoted ``6`` into an int; ints (2–)6–10 are accepted for that reason.
    """
    deck = _deck(deck)
    key = str(text).strip().upper()
    if key == "T":
        key = "10"
    if key in deck.rank_names:
        return deck.rank_names.index(key)
    extra = ""
    if key in ALL_RANK_NAMES and deck.full:
        extra = f" (rank {key} is only in the 52-card deck, deck: 52)"
    raise CardParseError(
        f"{text!r} is not a rank of the {deck.cards}-card deck{extra}; allowed: "
        f"{', '.join(deck.rank_names)} (or T for 10)"
    )


def parse_card(text: str | int, deck: Deck | int | None = None) -> int:
    """Card id of a text such as ``Q♠``, ``QS``, ``qs``, ``10h`` or ``Th`` (in ``deck``,
    36 cards by default).

    An int that is a valid card id is returned as is; a text must name rank and suit.
    """
    deck = _deck(deck)
    if isinstance(text, bool):
        raise CardParseError(f"{text!r} is not a card")
    if isinstance(text, int):
        if 0 <= text < deck.cards:
            return text
        raise CardParseError(f"card id {text} is outside 0..{deck.cards - 1}")
    raw = str(text).strip()
    suit_text, rank_text = raw[-1:].upper(), raw[:-1]
    if suit_text in _SUIT_ALIASES and _SUIT_ALIASES[suit_text] < deck.suits and rank_text:
        try:
            return deck.card_id(_SUIT_ALIASES[suit_text], parse_rank(rank_text, deck))
        except CardParseError:
            pass
    raise CardParseError(
        f"{text!r} is not a card of the {deck.cards}-card deck; write rank then suit, e.g. "
        f"Q♠, QS, qs, 10h, Th (ranks {' '.join(deck.rank_names)}; suits "
        f"{' '.join(deck.suit_symbols)} or {' '.join(SUIT_LETTERS[: deck.suits])})"
    )


def parse_cards(text: str, deck: Deck | int | None = None) -> list[int]:
    """Card ids of a whitespace- or comma-separated list of cards."""
    return [parse_card(token, deck) for token in text.replace(",", " ").split()]


def action_name(action: int, deck: Deck | int | None = None) -> str:
    """Readable name of an action id: ``play Q♠``, ``order ♥``, ``draw``, ``pass``, ``call``
    (ids of ``deck``, 36 cards by default)."""
    deck = _deck(deck)
    if 0 <= action < deck.cards:
        return f"play {card_name(action, deck)}"
    if deck.order_base <= action < deck.draw:
        return f"order {SUIT_SYMBOLS[action - deck.order_base]}"
    if action == deck.draw:
        return "draw"
    if action == deck.pass_:
        return "pass"
    if action == deck.call:
        return "call"
    raise ValueError(f"action id {action!r} is outside 0..{deck.call}")
