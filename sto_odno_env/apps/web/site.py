"""What every handler of the web table shares: the server's settings (:class:`WebConfig`),
the games, the records and the catalog of rule sets and agents, and the page templates
(:class:`Site`, kept on ``app.state.site``), and how a page or an error is answered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ...game.cards import SUIT_SYMBOLS, parse_card
from ...game.rule_values import deck_value
from . import svg
from .games import Catalog, GameStore
from .replays import Replays

HERE = Path(__file__).resolve().parent
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


@dataclass
class WebConfig:
    """The server's settings (``python -m sto_odno_env.web --help``)."""

    records: Path | None = None
    results: Path | None = None
    rules_dir: Path | None = None
    max_games: int = 500
    idle_minutes: float = 30.0
    max_upload_bytes: int = 4 * 1024 * 1024
    allowed_hosts: tuple[str, ...] = tuple(LOOPBACK_HOSTS)


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )

    def card(name: str, deck: Any = 36) -> Markup:
        # deck: a view's "deck" value (36, 52, or a small deck's {ranks, suits})
        cards = deck_value(deck)
        return Markup(svg.card_svg(parse_card(name, cards), cards))

    def suit(symbol: str) -> Markup:
        return Markup(svg.suit_svg(SUIT_SYMBOLS.index(symbol)))

    def num(value: Any, fmt: str = "%.3f") -> str:
        return fmt % value if isinstance(value, int | float) else "–"

    env.globals.update(card=card, back=lambda: Markup(svg.back_svg()), suit=suit, num=num)
    env.filters["pct"] = lambda value: f"{100 * float(value):.1f}%"
    env.filters["signed"] = lambda value: f"{float(value):+.2f}"
    return env


class Site:
    """One server's state: its settings, games, records, catalog and templates."""

    def __init__(self, config: WebConfig, clock: Callable[[], float]):
        idle = config.idle_minutes * 60
        self.config = config
        self.catalog = Catalog(config.rules_dir)
        self.store = GameStore(self.catalog, config.max_games, idle, clock)
        self.replays = Replays(
            config.records, config.max_upload_bytes, idle_seconds=idle, clock=clock
        )
        self.templates = _environment()

    def page(self, request: Request, name: str, code: int = 200, **context) -> HTMLResponse:
        """The template ``name`` rendered as an HTML answer."""
        context.setdefault("title", "101")
        html = self.templates.get_template(name).render(request=request, **context)
        return HTMLResponse(html, status_code=code)

    def error_response(self, request: Request, message: str, status: int) -> Response:
        """An error as JSON ``{"error", "status"}`` under ``/api``, else as a page."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message, "status": status}, status_code=status)
        return self.page(
            request, "error.html", status, message=message, status=status, title="Error"
        )


def site_of(request: Request) -> Site:
    """The :class:`Site` of the application answering ``request``."""
    return request.app.state.site
