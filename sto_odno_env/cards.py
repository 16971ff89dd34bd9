"""Card and action ids (docs/rules.md §1).

A card id is ``suit * 9 + rank`` with suits ``♠ ♣ ♦ ♥`` (0–3) and ranks
``6 7 8 9 10 J Q K A`` (0–8), so ``6♠ = 0``, ``Q♠ = 6``, ``K♠ = 7``, ``A♥ = 35``.

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

_RANK_ALIASES = {name: index for index, name in enumerate(RANK_NAMES)}
_RANK_ALIASES["T"] = RANK_NAMES.index("10")
_SUIT_ALIASES = {}
for _index, (_symbol, _letter) in enumerate(zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=False)):
    _SUIT_ALIASES[_symbol] = _index
    _SUIT_ALIASES[_letter] = _index
# The text-presentation variants of the suit symbols (♤ ♧ ♢ ♡) are accepted too.
for _index, _symbol in enumerate(("♤", "♧", "♢", "♡")):
    _SUIT_ALIASES[_symbol] = _index


class CardParseError(ValueError):
    """A text that is not a card or rank in any accepted form."""


def card_id(suit: int, rank: int) -> int:
    """The id of the card of ``suit`` (0–3) and ``rank`` (0–8)."""
    return suit * NUM_RANKS + rank


def suit_of(card: int) -> int:
    """Suit index (0–3) of a card id."""
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    """Rank index (0–8) of a card id."""
    return card % NUM_RANKS


def card_name(card: int) -> str:
    """Pretty name with a suit symbol, e.g. ``Q♠``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card!r} is outside 0..{NUM_CARDS - 1}")
    return RANK_NAMES[rank_of(card)] + SUIT_SYMBOLS[suit_of(card)]


def parse_rank(text: str | int) -> int:
    """Rank index of ``"6"``…``"10"``, ``"T"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"`` (any case).

    YAML turns an unquoted ``6`` into an int; ints 6–10 are accepted for that reason.
    """
    key = str(text).strip().upper()
    if key in _RANK_ALIASES:
        return _RANK_ALIASES[key]
    raise CardParseError(f"{text!r} is not a rank; allowed: {', '.join(RANK_NAMES)} (or T for 10)")


def parse_card(text: str | int) -> int:
    """Card id of a text such as ``Q♠``, ``QS``, ``qs``, ``10h`` or ``Th``.

    An int that is a valid card id is returned as is; a text must name rank and suit.
    """
    if isinstance(text, bool):
        raise CardParseError(f"{text!r} is not a card")
    if isinstance(text, int):
        if 0 <= text < NUM_CARDS:
            return text
        raise CardParseError(f"card id {text} is outside 0..{NUM_CARDS - 1}")
    raw = str(text).strip()
    suit_text, rank_text = raw[-1:].upper(), raw[:-1]
    if suit_text in _SUIT_ALIASES and rank_text:
        try:
            return card_id(_SUIT_ALIASES[suit_text], parse_rank(rank_text))
        except CardParseError:
            pass
    raise CardParseError(
        f"{text!r} is not a card; write rank then suit, e.g. Q♠, QS, qs, 10h, Th "
        f"(ranks {' '.join(RANK_NAMES)}; suits {' '.join(SUIT_SYMBOLS)} or S C D H)"
    )


def parse_cards(text: str) -> list[int]:
    """Card ids of a whitespace- or comma-separated list of cards."""
    return [parse_card(token) for token in text.replace(",", " ").split()]


def action_name(action: int) -> str:
    """Readable name of an action id: ``play Q♠``, ``order ♥``, ``draw``, ``pass``, ``call``."""
    if 0 <= action < NUM_CARDS:
        return f"play {card_name(action)}"
    if ORDER_BASE <= action < DRAW:
        return f"order {SUIT_SYMBOLS[action - ORDER_BASE]}"
    if action == DRAW:
        return "draw"
    if action == PASS:
        return "pass"
    if action == CALL:
        return "call"
    raise ValueError(f"action id {action!r} is outside 0..{MAX_ACTIONS - 1}")
