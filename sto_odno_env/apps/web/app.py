"""The web table as a Starlette application: :func:`create_app`, which mounts the routes
of :mod:`.routes` over one :class:`~.site.Site` and answers every error the same way.

Pages (server-rendered, plain forms: they work without JavaScript) and a JSON API:

==========================================  =================================================
``GET /``                                   a new game: rules, players, seat, opponents
``POST /games``                             start it (form) → ``/games/{id}``
``GET /games/{id}``                         the table from the human's seat
``POST /games/{id}/move``                   a move (form: ``action``, ``move``)
``GET /games/{id}/record.jsonl``            the finished match's record
``POST /games/{id}/baseline``               a bot's duplicate baseline (form: ``agent``)
``GET /replays``                            the records under ``--records``; an upload form
``POST /replays``                           upload a record (multipart, field ``record``)
``GET /replays/file/{name}``                replay a listed record (``?match=&step=``)
``GET /replays/upload/{id}``                replay an upload
``GET /ladder``                             the ``results.json`` files under ``--results``
``GET /rules``                              the rules, and each rule set's tables
``GET /api/options``                        rule sets and agents on offer
``POST /api/games``                         ``{"rules", "players", "opponents", "seat"}``
``GET /api/games/{id}``                     the seat's view (:mod:`sto_odno_env.apps.web.view`)
``POST /api/games/{id}/move``               ``{"action", "move"}`` → the view
``GET /api/games/{id}/record``              the record, once the match is over
``POST /api/games/{id}/baseline``           ``{"agent"}`` → the baseline
``GET /api/records``, ``POST /api/replays``  the listing; upload a record (the body)
``GET /api/ladder``                         the evaluation reports
==========================================  =================================================

Every bad request gets a 4xx with a message that names what is wrong and what is allowed
(JSON ``{"error": ...}`` under ``/api``, a page elsewhere): an unknown game (404), a stale
turn (409), an illegal move (400), a move after the match (409), a malformed (400) or
oversized (413) upload or body, an unknown record or plot (404).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from .bodies import MAX_FORM_BYTES
from .games import RequestError
from .nesting import NestingError
from .routes import games, ladder, replays, rules
from .site import HERE, LOOPBACK_HOSTS, Site, WebConfig, site_of

__all__ = ["LOOPBACK_HOSTS", "MAX_FORM_BYTES", "WebConfig", "create_app"]

LOG = logging.getLogger("sto_odno_env.web")
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        b"frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class _SecurityHeaders:
    """Adds the security headers (no framing, scripts and styles from this server only) and
    ``Cache-Control: no-store`` to every response but the static files."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += SECURITY_HEADERS
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


# --- errors: a message naming what is wrong, as JSON under /api and as a page elsewhere ---


async def on_request_error(request: Request, error: Exception) -> Response:
    status = getattr(error, "status", 400)
    if isinstance(error, NestingError):  # a client probing the decoder: one line each
        client = request.client.host if request.client else "?"
        LOG.warning("refused %s %s from %s: %s", request.method, request.url.path, client, error)
    return site_of(request).error_response(request, str(error), status)


async def on_http_error(request: Request, error: HTTPException) -> Response:
    messages = {404: f"no page at {request.url.path}", 405: "method not allowed here"}
    message = messages.get(error.status_code, str(error.detail))
    return site_of(request).error_response(request, message, error.status_code)


async def on_server_error(request: Request, error: Exception) -> Response:
    # A fault of the server, never of the request: logged here, not shown to the client.
    import traceback

    traceback.print_exception(error, file=sys.stderr)
    return site_of(request).error_response(request, "internal error (logged by the server)", 500)


def create_app(config: WebConfig | None = None, clock: Callable[[], float] | None = None):
    """The web table (see the module docstring). ``clock`` (seconds, monotonic) is for
    tests of expiry."""
    import time

    config = config or WebConfig()
    site = Site(config, clock or time.monotonic)
    routes = [
        *games.ROUTES,
        *replays.ROUTES,
        *ladder.ROUTES,
        *rules.ROUTES,
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=list(config.allowed_hosts)),
        Middleware(_SecurityHeaders),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            RequestError: on_request_error,
            # starlette types every handler as taking an Exception; this one is given
            # HTTPExceptions only
            HTTPException: on_http_error,  # type: ignore[dict-item]
            Exception: on_server_error,
        },
    )
    app.state.site = site
    app.state.store = site.store
    app.state.replays = site.replays
    app.state.catalog = site.catalog
    app.state.config = config
    return app
