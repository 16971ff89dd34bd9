"""The games' routes: the new-game form and what it offers, starting a game, the table
from the human's seat, moves, the finished match's record and a bot's duplicate baseline,
each as a page (plain forms) and as JSON under ``/api``."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..bodies import read_form, read_json, whole_number
from ..games import RequestError, duplicate_baseline
from ..match import MoveError
from ..site import Site, site_of

# --- new game -----------------------------------------------------------------------------


def options(site: Site) -> dict[str, Any]:
    """The rule sets and agents on offer, and how seats are counted."""
    catalog = site.catalog
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
    site = site_of(request)
    return site.page(request, "index.html", options=options(site), title="101 · new game")


async def options_api(request: Request) -> Response:
    return JSONResponse(options(site_of(request)))


def new_game(site: Site, fields: dict[str, Any]):
    """A game started from a form's or a JSON body's fields."""
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
    return site.store.create(rules_key, players, opponents, seat)


async def create_game_form(request: Request) -> Response:
    site = site_of(request)
    catalog = site.catalog
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
    game = await run_in_threadpool(new_game, site, fields)
    game.wanted_baseline = baseline or None
    return RedirectResponse(f"/games/{game.id}", status_code=303)


async def create_game_api(request: Request) -> Response:
    fields = await read_json(request)
    game = await run_in_threadpool(new_game, site_of(request), fields)
    with game.lock:
        view = game.view()
    return JSONResponse(view, status_code=201)


# --- the table ------------------------------------------------------------------------------


def view_of(site: Site, game_id: str, baseline: bool = False) -> dict[str, Any]:
    """The seat's view of a game; with ``baseline``, the wanted baseline computed first
    once the match is over."""
    game = site.store.get(game_id)
    with game.lock:
        wanted = game.wanted_baseline
        if baseline and game.match.over and wanted and wanted not in game.baselines:
            try:
                game.baselines[wanted] = duplicate_baseline(site.catalog, game, wanted)
            except RequestError as error:  # the page still shows the match's end
                game.baselines[wanted] = {"agent": wanted, "error": str(error)}
        return game.view()


def table(request: Request, view: dict[str, Any], status: int = 200, error: str = ""):
    """The table page of a view, with the agents that may give its baseline."""
    site = site_of(request)
    catalog = site.catalog
    game = site.store.get(view["game"])
    fitting = [a for a in catalog.agents if catalog.fits(a.name, game.rules_key, view["players"])]
    return site.page(
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
    view = await run_in_threadpool(view_of, site_of(request), request.path_params["game"], True)
    return table(request, view)


async def game_api(request: Request) -> Response:
    view = await run_in_threadpool(view_of, site_of(request), request.path_params["game"])
    return JSONResponse(view)


# --- moves ------------------------------------------------------------------------------------


def move(site: Site, game_id: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Plays the move of ``fields`` (``action``, and ``move``, the turn it answers)."""
    game = site.store.get(game_id)
    action = whole_number(fields.get("action"), "action", 0)
    turn = whole_number(fields.get("move"), "move", 0)
    with game.lock:
        game.match.play(action, turn)
        return game.view()


async def move_form(request: Request) -> Response:
    site = site_of(request)
    game_id = request.path_params["game"]
    fields = await read_form(request)
    try:
        await run_in_threadpool(move, site, game_id, fields)
    except MoveError as error:  # the page as it is now, with what went wrong
        view = await run_in_threadpool(view_of, site, game_id)
        return table(request, view, error.status, str(error))
    return RedirectResponse(f"/games/{game_id}", status_code=303)


async def move_api(request: Request) -> Response:
    fields = await read_json(request)
    try:
        view = await run_in_threadpool(move, site_of(request), request.path_params["game"], fields)
    except MoveError as error:
        raise RequestError(str(error), error.status) from None
    return JSONResponse(view)


# --- the record and the baseline ----------------------------------------------------------


def record_of(site: Site, game_id: str) -> str:
    """The finished match's record as JSON lines."""
    game = site.store.get(game_id)
    with game.lock:
        try:
            return game.match.record_text()
        except MoveError as error:
            raise RequestError(str(error), error.status) from None


async def record(request: Request) -> Response:
    text = await run_in_threadpool(record_of, site_of(request), request.path_params["game"])
    return Response(
        text,
        media_type="application/x-ndjson; charset=utf-8",
        headers={"content-disposition": 'attachment; filename="match-101.jsonl"'},
    )


def baseline_of(site: Site, game_id: str, agent: Any) -> dict[str, Any]:
    """The duplicate baseline of ``agent`` for a game (computed once, then kept)."""
    game = site.store.get(game_id)
    site.catalog.check_fits(agent, game.rules_key, game.match.players)  # a known agent too
    with game.lock:
        if agent not in game.baselines:
            game.baselines[agent] = duplicate_baseline(site.catalog, game, agent)
        return game.baselines[agent]


async def baseline_form(request: Request) -> Response:
    site = site_of(request)
    game_id = request.path_params["game"]
    fields = await read_form(request)
    try:
        await run_in_threadpool(baseline_of, site, game_id, fields.get("agent"))
    except RequestError as error:
        if error.status == 404:
            raise
        view = await run_in_threadpool(view_of, site, game_id)  # the table, with the reason
        return table(request, view, error.status, str(error))
    return RedirectResponse(f"/games/{game_id}#baseline", status_code=303)


async def baseline_api(request: Request) -> Response:
    fields = await read_json(request)
    game_id = request.path_params["game"]
    baseline = await run_in_threadpool(baseline_of, site_of(request), game_id, fields.get("agent"))
    return JSONResponse(baseline)


ROUTES = [
    Route("/", home),
    Route("/games", create_game_form, methods=["POST"]),
    Route("/games/{game}", show_game),
    Route("/games/{game}/move", move_form, methods=["POST"]),
    Route("/games/{game}/record.jsonl", record),
    Route("/games/{game}/baseline", baseline_form, methods=["POST"]),
    Route("/api/options", options_api),
    Route("/api/games", create_game_api, methods=["POST"]),
    Route("/api/games/{game}", game_api),
    Route("/api/games/{game}/move", move_api, methods=["POST"]),
    Route("/api/games/{game}/record", record),
    Route("/api/games/{game}/baseline", baseline_api, methods=["POST"]),
]
