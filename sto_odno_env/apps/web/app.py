"""The web table as a Starlette application: :func:`create_app`.

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

import io
import json
import logging
import re
import sys
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ...game.cards import SUIT_SYMBOLS, parse_card
from ...game.rule_values import deck_value
from ...views.picture import table_svg
from ...views.screen import Screen, event_text, phase_name
from . import svg
from .games import Catalog, GameStore, RequestError, duplicate_baseline
from .ladder import list_results
from .match import MoveError
from .nesting import NestingError, check_depth
from .replays import Replays, replay_frame
from .rulebook import rule_set_page

HERE = Path(__file__).resolve().parent
LOG = logging.getLogger("sto_odno_env.web")
MAX_FORM_BYTES = 64 * 1024  # a form or JSON body: a few fields
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
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


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, at most ``limit`` bytes (413 past that, before reading it all)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise RequestError(f"bad Content-Length {length!r}")
        if int(length) > limit:
            raise RequestError(f"the body is {length} bytes; at most {limit} are accepted", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(f"the body is over {limit} bytes; at most {limit} are accepted", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def read_form(request: Request) -> dict[str, str]:
    """An urlencoded form's fields (the last value of each)."""
    body = await read_body(request, MAX_FORM_BYTES)
    try:
        return dict(urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except (UnicodeDecodeError, ValueError):
        raise RequestError("the form is not UTF-8 urlencoded text") from None


async def read_json(request: Request) -> dict[str, Any]:
    """A JSON object body."""
    body = await read_body(request, MAX_FORM_BYTES)
    check_depth(body, "the body")  # before decoding: the decoder recurses once per level
    try:
        data = json.loads(body.decode("utf-8") or "{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RequestError(f"the body is not JSON: {error}") from None
    except ValueError as error:  # a number past int()'s 4,300 digits
        raise RequestError(f"the body is not JSON the table takes: {error}") from None
    if not isinstance(data, dict):
        raise RequestError("the body must be a JSON object")
    return data


def whole_number(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int (a JSON int or a decimal text), within [low, high]."""
    if isinstance(value, bool):
        value = None
    # ASCII digits only: str.isdigit() takes '²', which int() refuses, and a number is
    # never longer than 18 digits here (int() refuses past 4,300 with a ValueError).
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,18}", value.strip()):
        value = int(value.strip())
    if not isinstance(value, int):
        raise RequestError(f"{name} must be a whole number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise RequestError(f"{name} must be {bounds}, got {value}")
    return value


def create_app(config: WebConfig | None = None, clock: Callable[[], float] | None = None):
    """The web table (see the module docstring). ``clock`` (seconds, monotonic) is for
    tests of expiry."""
    import time

    config = config or WebConfig()
    clock = clock or time.monotonic
    idle = config.idle_minutes * 60
    catalog = Catalog(config.rules_dir)
    store = GameStore(catalog, config.max_games, idle, clock)
    replays = Replays(config.records, config.max_upload_bytes, idle_seconds=idle, clock=clock)
    templates = _environment()

    def page(request: Request, name: str, code: int = 200, **context) -> HTMLResponse:
        context.setdefault("title", "101")
        html = templates.get_template(name).render(request=request, **context)
        return HTMLResponse(html, status_code=code)

    def error_response(request: Request, message: str, status: int) -> Response:
        if _is_api(request):
            return JSONResponse({"error": message, "status": status}, status_code=status)
        return page(request, "error.html", status, message=message, status=status, title="Error")

    async def on_request_error(request: Request, error: Exception) -> Response:
        status = getattr(error, "status", 400)
        if isinstance(error, NestingError):  # a client probing the decoder: one line each
            client = request.client.host if request.client else "?"
            LOG.warning(
                "refused %s %s from %s: %s", request.method, request.url.path, client, error
            )
        return error_response(request, str(error), status)

    async def on_http_error(request: Request, error: HTTPException) -> Response:
        messages = {404: f"no page at {request.url.path}", 405: "method not allowed here"}
        return error_response(
            request, messages.get(error.status_code, str(error.detail)), error.status_code
        )

    async def on_server_error(request: Request, error: Exception) -> Response:
        # A fault of the server, never of the request: logged here, not shown to the client.
        import traceback

        traceback.print_exception(error, file=sys.stderr)
        return error_response(request, "internal error (logged by the server)", 500)

    # --- new game -------------------------------------------------------------------------

    def options() -> dict[str, Any]:
        return {
            "rules": [
                {
                    "key": key,
                    "label": catalog.rules_label(key),
                    "players": list(rules.players),
                }
                for key, rules in catalog.rules.items()
            ],
            "agents": [
                {
                    "name": a.name,
                    "label": a.label,
                    "kind": a.kind,
                    "rules": a.rules,
                    "players": list(a.players) or None,
                    "tables": catalog.tables[a.name],
                    "card": a.card or None,
                }
                for a in catalog.agents
            ],
            "seats": "0-based: seat 0 deals first; the pages show seat n as n + 1",
        }

    async def home(request: Request) -> Response:
        return page(request, "index.html", options=options(), title="101 · new game")

    def new_game(fields: dict[str, Any]):
        rules_key = str(fields.get("rules") or "classic")
        players = whole_number(fields.get("players", 2), "players", 2, 6)
        seat = whole_number(fields.get("seat", 0), "seat (0-based)", 0, players - 1)
        opponents = fields.get("opponents")
        if opponents is None:
            opponents = [
                str(fields.get(f"opponent{k}") or fields.get("opponent1") or "expert")
                for k in range(1, players)
            ]
        if isinstance(opponents, str):
            opponents = [opponents]
        if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
            raise RequestError("opponents must be an agent name or a list of agent names")
        return store.create(rules_key, players, opponents, seat)

    async def create_game_form(request: Request) -> Response:
        fields = await read_form(request)
        baseline = fields.get("baseline") or ""
        if baseline and baseline not in catalog.agent_names:
            raise RequestError(
                f"unknown baseline agent {baseline!r}; allowed: {', '.join(catalog.agent_names)}"
            )
        if baseline:  # refused now, not at the end, when it cannot play these rules
            rules_key = str(fields.get("rules") or "classic")
            players = whole_number(fields.get("players", 2), "players", 2, 6)
            catalog.rule_set(rules_key)
            catalog.check_fits(baseline, rules_key, players, role="baseline")
        game = await run_in_threadpool(new_game, fields)
        game.wanted_baseline = baseline or None
        return RedirectResponse(f"/games/{game.id}", status_code=303)

    async def create_game_api(request: Request) -> Response:
        fields = await read_json(request)
        game = await run_in_threadpool(new_game, fields)
        with game.lock:
            view = game.view()
        return JSONResponse(view, status_code=201)

    # --- the table ------------------------------------------------------------------------

    def view_of(game_id: str, baseline: bool = False) -> dict[str, Any]:
        game = store.get(game_id)
        with game.lock:
            wanted = game.wanted_baseline
            if baseline and game.match.over and wanted and wanted not in game.baselines:
                try:
                    game.baselines[wanted] = duplicate_baseline(catalog, game, wanted)
                except RequestError as error:  # the page still shows the match's end
                    game.baselines[wanted] = {"agent": wanted, "error": str(error)}
            return game.view()

    def table(request: Request, view: dict[str, Any], status: int = 200, error: str = ""):
        game = store.get(view["game"])
        fitting = [
            a for a in catalog.agents if catalog.fits(a.name, game.rules_key, view["players"])
        ]
        return page(
            request,
            "game.html",
            status,
            view=view,
            error=error,
            agents=fitting,
            rules_key=game.rules_key,
            title=f"101 · {view['rules']} · round {view['round']}",
        )

    async def show_game(request: Request) -> Response:
        view = await run_in_threadpool(view_of, request.path_params["game"], True)
        return table(request, view)

    def move(game_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        game = store.get(game_id)
        action = whole_number(fields.get("action"), "action", 0)
        turn = whole_number(fields.get("move"), "move", 0)
        with game.lock:
            game.match.play(action, turn)
            return game.view()

    async def move_form(request: Request) -> Response:
        game_id = request.path_params["game"]
        fields = await read_form(request)
        try:
            await run_in_threadpool(move, game_id, fields)
        except MoveError as error:  # the page as it is now, with what went wrong
            view = await run_in_threadpool(view_of, game_id)
            return table(request, view, error.status, str(error))
        return RedirectResponse(f"/games/{game_id}", status_code=303)

    async def move_api(request: Request) -> Response:
        fields = await read_json(request)
        try:
            view = await run_in_threadpool(move, request.path_params["game"], fields)
        except MoveError as error:
            raise RequestError(str(error), error.status) from None
        return JSONResponse(view)

    async def game_api(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(view_of, request.path_params["game"]))

    def record_of(game_id: str) -> str:
        game = store.get(game_id)
        with game.lock:
            try:
                return game.match.record_text()
            except MoveError as error:
                raise RequestError(str(error), error.status) from None

    async def record(request: Request) -> Response:
        game_id = request.path_params["game"]
        text = await run_in_threadpool(record_of, game_id)
        return Response(
            text,
            media_type="application/x-ndjson; charset=utf-8",
            headers={"content-disposition": 'attachment; filename="match-101.jsonl"'},
        )

    def baseline_of(game_id: str, agent: Any) -> dict[str, Any]:
        game = store.get(game_id)
        catalog.check_fits(agent, game.rules_key, game.match.players)  # a known agent too
        with game.lock:
            if agent not in game.baselines:
                game.baselines[agent] = duplicate_baseline(catalog, game, agent)
            return game.baselines[agent]

    async def baseline_form(request: Request) -> Response:
        game_id = request.path_params["game"]
        fields = await read_form(request)
        try:
            await run_in_threadpool(baseline_of, game_id, fields.get("agent"))
        except RequestError as error:
            if error.status == 404:
                raise
            view = await run_in_threadpool(view_of, game_id)  # the table, with the reason
            return table(request, view, error.status, str(error))
        return RedirectResponse(f"/games/{game_id}#baseline", status_code=303)

    async def baseline_api(request: Request) -> Response:
        fields = await read_json(request)
        game_id = request.path_params["game"]
        return JSONResponse(await run_in_threadpool(baseline_of, game_id, fields.get("agent")))

    # --- replays --------------------------------------------------------------------------

    async def replay_list(request: Request) -> Response:
        listing = replays.listing()
        return page(
            request,
            "replays.html",
            records=list(listing.values()),
            root=config.records,
            max_kb=config.max_upload_bytes // 1024,
            title="101 · replays",
        )

    async def upload_form(request: Request) -> Response:
        limit = config.max_upload_bytes + MAX_FORM_BYTES  # the file and the form around it
        body = await read_body(request, limit)
        if "multipart/form-data" not in request.headers.get("content-type", ""):
            raise RequestError("an upload is a multipart/form-data form with a 'record' file")

        async def receive():
            return {"type": "http.request", "body": body, "more_body": False}

        try:
            form = await Request(request.scope, receive).form(max_files=1, max_fields=8)
            upload = form.get("record")
            if upload is None or isinstance(upload, str):
                raise RequestError("no file: choose a record file (.jsonl) to upload")
            data = await upload.read()
            name = upload.filename
        except RequestError:
            raise
        except Exception as error:  # python-multipart's faults: a malformed form
            raise RequestError(f"malformed upload: {error}") from None
        stored = await run_in_threadpool(replays.add_upload, name, data)
        return RedirectResponse(f"/replays/upload/{stored.id}", status_code=303)

    async def upload_api(request: Request) -> Response:
        body = await read_body(request, config.max_upload_bytes)
        name = request.query_params.get("name") or "upload.jsonl"
        stored = await run_in_threadpool(replays.add_upload, name, body)
        return JSONResponse(
            {"id": stored.id, "name": stored.name, "matches": stored.matches, "url":
             f"/replays/upload/{stored.id}"},
            status_code=201,
        )  # fmt: skip

    def replay_page(request: Request, playback, source: dict[str, Any]) -> Response:
        step = whole_number(request.query_params.get("step", "1"), "step", 1)
        data = replay_frame(playback, step)
        frame, state = data["frame"], data["frame"].state
        names = [f"player {p}" for p in range(playback.players)]
        screen = Screen(io.StringIO())
        screen.deck = playback.rules.deck_spec
        lines = [
            (number, text)
            for number, event in frame.events
            if (text := event_text(screen, event, names))
        ]
        to_act = "match over"
        if not bool(state.done[0]):
            to_act = f"{names[int(state.current_player[0])]} to act ({phase_name(state)})"
        return page(
            request,
            "replay.html",
            source=source,
            playback=playback,
            data=data,
            lines=lines,
            picture=Markup(table_svg(state, view=None, names=names)),
            to_act=to_act,
            title=f"101 · replay · {source['name']}",
        )

    def match_number(request: Request) -> int:
        return whole_number(request.query_params.get("match", "1"), "match", 1)

    async def replay_listed(request: Request) -> Response:
        name = request.path_params["name"]
        match = match_number(request)
        playback = await run_in_threadpool(replays.listed_playback, name, match)
        base = f"/replays/file/{urllib.parse.quote(name)}"
        return replay_page(request, playback, {"name": name, "url": base, "match": match})

    async def replay_upload(request: Request) -> Response:
        match = match_number(request)
        upload, playback = await run_in_threadpool(
            replays.upload_playback, request.path_params["upload"], match
        )
        base = f"/replays/upload/{upload.id}"
        return replay_page(request, playback, {"name": upload.name, "url": base, "match": match})

    async def records_api(request: Request) -> Response:
        return JSONResponse(
            [
                {
                    "name": r.name,
                    "bytes": r.size,
                    "url": f"/replays/file/{urllib.parse.quote(r.name)}",
                }
                for r in replays.listing().values()
            ]
        )

    # --- ladder ---------------------------------------------------------------------------

    async def ladder(request: Request) -> Response:
        results = await run_in_threadpool(list_results, config.results)
        return page(
            request, "ladder.html", results=results, root=config.results, title="101 · ladder"
        )

    async def ladder_api(request: Request) -> Response:
        results = await run_in_threadpool(list_results, config.results)
        return JSONResponse(
            [
                {
                    "index": r.index,
                    "name": r.name,
                    "error": r.error,
                    "report": r.report,
                    "matrix": r.matrix,
                    "plots": [f"/ladder/{r.index}/{name}" for name in r.plots],
                }
                for r in results
            ]
        )

    async def ladder_plot(request: Request) -> Response:
        results = await run_in_threadpool(list_results, config.results)
        index, name = request.path_params["index"], request.path_params["plot"]
        if not 0 <= index < len(results) or name not in results[index].plots:
            raise RequestError(f"no plot {name!r} in result {index} of the ladder", 404)
        return FileResponse(results[index].folder / name, media_type="image/png")

    async def options_api(request: Request) -> Response:
        return JSONResponse(options())

    async def rules_page(request: Request) -> Response:
        rule_sets = [
            rule_set_page(key, catalog.rules_label(key), rules)
            for key, rules in catalog.rules.items()
        ]
        return page(request, "rules.html", rule_sets=rule_sets, title="101 · rules")

    routes = [
        Route("/", home),
        Route("/games", create_game_form, methods=["POST"]),
        Route("/games/{game}", show_game),
        Route("/games/{game}/move", move_form, methods=["POST"]),
        Route("/games/{game}/record.jsonl", record),
        Route("/games/{game}/baseline", baseline_form, methods=["POST"]),
        Route("/replays", replay_list),
        Route("/replays", upload_form, methods=["POST"]),
        Route("/replays/file/{name:path}", replay_listed),
        Route("/replays/upload/{upload}", replay_upload),
        Route("/ladder", ladder),
        Route("/rules", rules_page),
        Route("/ladder/{index:int}/{plot}", ladder_plot),
        Route("/api/options", options_api),
        Route("/api/games", create_game_api, methods=["POST"]),
        Route("/api/games/{game}", game_api),
        Route("/api/games/{game}/move", move_api, methods=["POST"]),
        Route("/api/games/{game}/record", record),
        Route("/api/games/{game}/baseline", baseline_api, methods=["POST"]),
        Route("/api/records", records_api),
        Route("/api/replays", upload_api, methods=["POST"]),
        Route("/api/ladder", ladder_api),
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
            HTTPException: on_http_error,
            Exception: on_server_error,
        },
    )
    app.state.store = store
    app.state.replays = replays
    app.state.catalog = catalog
    app.state.config = config
    return app
