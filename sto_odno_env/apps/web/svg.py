"""Cards, card backs and suit symbols as small SVG pictures, drawn by the shapes of
:mod:`sto_odno_env.views.picture` (the notebooks' and ``render()``'s table), one picture per card
so that a page can lay them out and make them buttons. The whole-table picture of the
replay page is :func:`sto_odno_env.views.picture.table_svg` itself.
"""

from __future__ import annotations

from functools import lru_cache

from ...game.cards import SUIT_SYMBOLS, Deck, card_name
from ...views import picture

# One shape to SVG text: the serialiser of picture.table_svg, so a card here and a card in
# the table picture are the same markup.
_shape_svg = picture._svg_shape


def _svg(shapes: list, width: float, height: float, label: str, css: str) -> str:
    body = "".join(_shape_svg(shape) for shape in shapes)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{label}" font-family="{picture.FONT_FAMILY}">'
        f"<title>{label}</title>{body}</svg>"
    )


@lru_cache(maxsize=256)
def card_svg(card: int, deck: Deck) -> str:
    """A card face up (its name as the picture's label)."""
    shapes = picture.card_shapes(card, 0, 0, deck)
    return _svg(shapes, picture.CARD_W, picture.CARD_H, card_name(card, deck), "card")


@lru_cache(maxsize=1)
def back_svg() -> str:
    """A card face down."""
    return _svg(picture.back_shapes(0, 0), picture.CARD_W, picture.CARD_H, "card back", "card")


@lru_cache(maxsize=8)
def suit_svg(suit: int) -> str:
    """A suit symbol (♠ ♣ black, ♦ ♥ red)."""
    return _svg(picture.suit_shapes(suit, 0, 0, 24), 24, 24, SUIT_SYMBOLS[suit], "suit")
