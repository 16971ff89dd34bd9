"""Pictures of the table: an SVG drawing of one game of an engine state, and the same
drawing as an RGB array (the envs' ``render_mode="rgb_array"``).

* :func:`table_svg` returns the SVG text (an :class:`Svg`, a ``str`` that notebooks show
  inline through ``_repr_svg_``); it needs nothing beyond the standard library.
* :func:`table_rgb` draws the same picture with Pillow (``pip install
  'sto-odno-env[picture]'``) into an ``(H, W, 3)`` uint8 array; its size depends on the
  player count only (:func:`picture_size`).

The picture: the rule set, round, turn and the seat to act with its decision; the stock
(a card back and its size), the discard pile (its top card and size), the suit ordered by
the last queen and a stacked penalty; then one row per seat with its name, total, card
count, the dealer's mark, and its hand: face up for the seat whose view it is (``view``;
every hand with ``view=None``), as card backs for the others. Cards show their rank and a
suit symbol, red for ♦ ♥ and black for ♠ ♣. Suit symbols are drawn as shapes, not font
glyphs, so both drawings look the same with any font.

Both drawings come from one list of shapes (:func:`scene`), so they always agree. Nothing
here runs unless a picture is asked for: the envs import this module in ``render()`` only.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..game.cards import (
    NUM_CARDS,
    PHASE_DONE,
    PHASE_NAMES,
    RANK_NAMES,
    Deck,
    rank_of,
    suit_of,
)

if TYPE_CHECKING:
    from ..game.core.state import State

WIDTH = 720
CARD_W, CARD_H = 38, 54
ROW_H = 66
HEADER_H = 34
TABLE_H = 92
HAND_X = 200  # where the hands start
MARGIN = 10
FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"

FELT = "#2f6f4f"
FELT_LIGHT = "#3f8a63"
INK = "#f4f1e8"
DIM = "#b9cbbf"
CARD_FACE = "#fffdf7"
CARD_EDGE = "#6b6b6b"
BACK = "#8e2b3a"
BACK_INNER = "#b8475a"
RED = "#c62828"
BLACK = "#1d1d1d"
GOLD = "#f2c14e"


class Svg(str):
    """SVG text that Jupyter draws inline (``_repr_svg_``); otherwise a plain ``str``."""

    def _repr_svg_(self) -> str:
        return str(self)


# --- shapes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str | None = None
    radius: float = 0.0


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float
    fill: str


@dataclass(frozen=True)
class Polygon:
    points: tuple[tuple[float, float], ...]
    fill: str


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # the baseline
    text: str
    size: int
    fill: str
    anchor: str = "start"  # start, middle or end
    bold: bool = False


Shape = Rect | Circle | Polygon | Text

# Suit symbols in a unit box (x right, y down): circles (x, y, r) and polygons.
_SUIT_SHAPES: dict[int, tuple[tuple, tuple]] = {
    0: (  # ♠: an upside-down heart and a stem
        ((0.29, 0.58, 0.22), (0.71, 0.58, 0.22)),
        (((0.5, 0.02), (0.93, 0.5), (0.5, 0.8), (0.07, 0.5)), ((0.5, 0.6), (0.3, 1.0), (0.7, 1.0))),
    ),
    1: (  # ♣: three leaves and a stem
        ((0.5, 0.27, 0.22), (0.26, 0.6, 0.22), (0.74, 0.6, 0.22)),
        (((0.5, 0.45), (0.3, 1.0), (0.7, 1.0)),),
    ),
    2: ((), (((0.5, 0.0), (0.88, 0.5), (0.5, 1.0), (0.12, 0.5)),)),  # ♦
    3: (  # ♥
        ((0.29, 0.33, 0.24), (0.71, 0.33, 0.24)),
        (((0.07, 0.42), (0.93, 0.42), (0.5, 0.97)),),
    ),
}


def suit_colour(suit: int) -> str:
    """Red for ♦ ♥, black for ♠ ♣."""
    return RED if suit >= 2 else BLACK


def suit_shapes(suit: int, x: float, y: float, size: float, fill: str | None = None) -> list:
    """The shapes of a suit symbol in the box (x, y, size, size)."""
    fill = fill or suit_colour(suit)
    circles, polygons = _SUIT_SHAPES[suit]
    shapes: list[Shape] = [
        Circle(x + cx * size, y + cy * size, r * size, fill) for cx, cy, r in circles
    ]
    shapes += [
        Polygon(tuple((x + px * size, y + py * size) for px, py in points), fill)
        for points in polygons
    ]
    return shapes


def card_shapes(card: int, x: float, y: float, deck: Deck | None = None) -> list:
    """A card face up: rank and suit in the corner, a large suit symbol in the middle (ids
    of ``deck``, the 36-card one by default)."""
    if deck is None:
        suit, rank_name = suit_of(card), RANK_NAMES[rank_of(card)]
    else:
        suit, rank_name = deck.suit_of(card), deck.rank_names[deck.rank_of(card)]
    colour = suit_colour(suit)
    return [
        Rect(x, y, CARD_W, CARD_H, CARD_FACE, CARD_EDGE, 4),
        Text(x + 4, y + 15, rank_name, 13, colour, bold=True),
        *suit_shapes(suit, x + 4, y + 19, 9),
        *suit_shapes(suit, x + CARD_W - 24, y + CARD_H - 25, 19),
    ]


def back_shapes(x: float, y: float) -> list:
    """A card face down."""
    return [
        Rect(x, y, CARD_W, CARD_H, BACK, CARD_EDGE, 4),
        Rect(x + 5, y + 5, CARD_W - 10, CARD_H - 10, BACK_INNER, "#f0d5da", 2),
        *suit_shapes(2, x + CARD_W / 2 - 6, y + CARD_H / 2 - 6, 12, "#f0d5da"),
    ]


def picture_size(players: int) -> tuple[int, int]:
    """(height, width) in pixels of the picture of a game of ``players`` seats."""
    return HEADER_H + TABLE_H + players * ROW_H + MARGIN, WIDTH


def _cards(bits: int, cards: int = NUM_CARDS) -> list[int]:
    return [c for c in range(cards) if bits >> c & 1]


def _fan(count: int) -> float:
    """The step between overlapping cards of a hand of ``count``."""
    room = WIDTH - MARGIN - HAND_X - CARD_W
    return min(CARD_W + 4, room / max(count - 1, 1))


def scene(
    state: State, game: int = 0, view: int | None = None, names: list[str] | None = None
) -> tuple[tuple[int, int], list]:
    """(height, width) and the shapes of the picture (see the module docstring)."""
    players = state.players
    if not 0 <= game < state.batch:
        raise ValueError(f"game {game} is outside 0..{state.batch - 1}")
    if view is not None and not 0 <= view < players:
        raise ValueError(f"view {view} is not a seat; allowed: None or 0..{players - 1}")
    names = names or [f"player_{p}" for p in range(players)]
    height, width = picture_size(players)
    current = int(state.current_player[game])
    phase = int(state.phase[game])
    shapes: list[Shape] = [Rect(0, 0, width, height, FELT)]

    # header: rule set, round, turn; the seat to act
    shapes.append(
        Text(
            MARGIN,
            22,
            f"{state.rules.name} · round {int(state.round[game]) + 1} "  # from 1, as on screen
            f"· turn {int(state.turn[game])}"
            + (f" · {names[view]}'s view" if view is not None else ""),
            14,
            INK,
        )
    )
    status = (
        ("match truncated" if state.truncated[game] else "match over")
        if phase == PHASE_DONE
        else f"{names[current]} to act: {PHASE_NAMES[phase]}"
    )
    shapes.append(Text(width - MARGIN, 22, status, 14, GOLD, "end", bold=True))

    # the table: stock, discard pile with its top card, ordered suit, penalty
    y = HEADER_H + 6
    x = MARGIN + 20
    stock = int(state.stock_size[game])
    if stock:
        shapes += back_shapes(x, y)
    else:
        shapes.append(Rect(x, y, CARD_W, CARD_H, FELT_LIGHT, DIM, 4))
    shapes.append(Text(x + CARD_W / 2, y + CARD_H + 16, f"stock {stock}", 12, INK, "middle"))
    x += CARD_W + 50
    deck = state.tables.deck
    top = int(state.top_card[game])
    if top != deck.no_card:
        shapes += card_shapes(top, x, y, deck)
    else:
        shapes.append(Rect(x, y, CARD_W, CARD_H, FELT_LIGHT, DIM, 4))
    discard = int(state.discard_size[game])
    shapes.append(Text(x + CARD_W / 2, y + CARD_H + 16, f"discard {discard}", 12, INK, "middle"))
    x += CARD_W + 40
    suit = int(state.ordered_suit[game])
    if suit >= 0:
        shapes.append(Text(x, y + 20, "ordered suit", 12, INK))
        shapes.append(Rect(x + 84, y + 2, 28, 28, CARD_FACE, CARD_EDGE, 14))
        shapes += suit_shapes(suit, x + 90, y + 8, 16)
    pending = int(state.pending[game])
    if pending:
        shapes.append(Text(x, y + 48, f"penalty pending: {pending}", 12, GOLD, bold=True))

    # one row per seat
    for seat in range(players):
        top_y = HEADER_H + TABLE_H + seat * ROW_H
        out = not (int(state.in_match[game]) >> seat & 1)
        if seat == current:
            shapes.append(Rect(4, top_y + 2, width - 8, ROW_H - 4, FELT_LIGHT, GOLD, 6))
            shapes.append(Polygon(((10, top_y + 14), (20, top_y + 21), (10, top_y + 28)), GOLD))
        colour = DIM if out else INK
        shapes.append(Text(26, top_y + 26, names[seat], 14, colour, bold=True))
        if seat == int(state.dealer[game]) and not out:
            shapes.append(Circle(HAND_X - 20, top_y + 21, 9, CARD_FACE))
            shapes.append(Text(HAND_X - 20, top_y + 25, "D", 11, BLACK, "middle", bold=True))
        bits = int(state.hand[game, seat])
        count = bits.bit_count()
        detail = f"total {int(state.totals[game, seat])} · {count} card{'s' * (count != 1)}"
        shapes.append(Text(26, top_y + 46, detail + (" · out" if out else ""), 12, colour))
        step = _fan(count)
        cards_y = top_y + (ROW_H - CARD_H) / 2
        face_up = view is None or view == seat
        for index, card in enumerate(_cards(bits, deck.cards)):
            cx = HAND_X + index * step
            shapes += card_shapes(card, cx, cards_y, deck) if face_up else back_shapes(cx, cards_y)
    return (height, width), shapes


# --- SVG ------------------------------------------------------------------------------------


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _svg_shape(shape: Shape) -> str:
    if isinstance(shape, Rect):
        stroke = f' stroke="{shape.stroke}"' if shape.stroke else ""
        radius = f' rx="{_n(shape.radius)}"' if shape.radius else ""
        return (
            f'<rect x="{_n(shape.x)}" y="{_n(shape.y)}" width="{_n(shape.w)}" '
            f'height="{_n(shape.h)}"{radius} fill="{shape.fill}"{stroke}/>'
        )
    if isinstance(shape, Circle):
        return (
            f'<circle cx="{_n(shape.x)}" cy="{_n(shape.y)}" r="{_n(shape.r)}" fill="{shape.fill}"/>'
        )
    if isinstance(shape, Polygon):
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in shape.points)
        return f'<polygon points="{points}" fill="{shape.fill}"/>'
    weight = ' font-weight="bold"' if shape.bold else ""
    return (
        f'<text x="{_n(shape.x)}" y="{_n(shape.y)}" font-size="{shape.size}" '
        f'fill="{shape.fill}" text-anchor="{shape.anchor}"{weight}>{escape(shape.text)}</text>'
    )


def table_svg(
    state: State, game: int = 0, view: int | None = None, names: list[str] | None = None
) -> Svg:
    """The SVG picture of game ``game``: every hand face up (``view=None``) or the table as
    seat ``view`` sees it (the other hands as backs). ``names`` label the seats."""
    (height, width), shapes = scene(state, game, view, names)
    body = "\n".join(_svg_shape(shape) for shape in shapes)
    return Svg(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT_FAMILY}">\n{body}\n</svg>'
    )


# --- raster (Pillow) ------------------------------------------------------------------------

_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}


@lru_cache(maxsize=16)
def _font(size: int, bold: bool):
    """DejaVu Sans where Pillow or matplotlib can find it, Pillow's own font otherwise."""
    from PIL import ImageFont

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    try:
        return ImageFont.truetype(name, size)
    except OSError:
        pass
    try:
        import matplotlib

        path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name
        return ImageFont.truetype(str(path), size)
    except (ImportError, OSError):
        return ImageFont.load_default(size)


NEEDS_PILLOW = (
    "render_mode='rgb_array' and table_rgb() need Pillow: "
    "pip install 'sto-odno-env[picture]' (or pip install pillow)"
)


def rgb_available() -> bool:
    """Whether Pillow is installed, so that :func:`table_rgb` can draw (the envs advertise
    ``render_mode="rgb_array"`` only then). Pillow is looked up, not imported."""
    try:
        return importlib.util.find_spec("PIL") is not None
    except (ImportError, ValueError):  # a broken or half-removed installation
        return False


def _image_module():
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise ImportError(NEEDS_PILLOW) from None
    return Image, ImageDraw


def table_rgb(
    state: State, game: int = 0, view: int | None = None, names: list[str] | None = None
) -> np.ndarray:
    """The picture of :func:`table_svg` as an ``(H, W, 3)`` uint8 array (Pillow)."""
    Image, ImageDraw = _image_module()
    (height, width), shapes = scene(state, game, view, names)
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    for shape in shapes:
        if isinstance(shape, Rect):
            box = (shape.x, shape.y, shape.x + shape.w, shape.y + shape.h)
            draw.rounded_rectangle(
                box, radius=shape.radius, fill=shape.fill, outline=shape.stroke, width=1
            )
        elif isinstance(shape, Circle):
            box = (shape.x - shape.r, shape.y - shape.r, shape.x + shape.r, shape.y + shape.r)
            draw.ellipse(box, fill=shape.fill)
        elif isinstance(shape, Polygon):
            draw.polygon(shape.points, fill=shape.fill)
        else:
            draw.text(
                (shape.x, shape.y),
                shape.text,
                fill=shape.fill,
                font=_font(shape.size, shape.bold),
                anchor=_ANCHORS[shape.anchor],
            )
    return np.asarray(image, dtype=np.uint8).copy()
