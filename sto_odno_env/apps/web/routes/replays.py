"""The records' routes: the listing under ``--records`` and the upload form, uploads (a
form or the body), and a record stepped through as a page (``?match=&step=``)."""

from __future__ import annotations

import io
import urllib.parse
from typing import Any

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ....views.picture import table_svg
from ....views.screen import Screen, event_text, phase_name
from ..bodies import MAX_FORM_BYTES, read_body, whole_number
from ..games import RequestError
from ..replays import replay_frame
from ..site import site_of


async def replay_list(request: Request) -> Response:
    site = site_of(request)
    return site.page(
        request,
        "replays.html",
        records=list(site.replays.listing().values()),
        root=site.config.records,
        max_kb=site.config.max_upload_bytes // 1024,
        title="101 · replays",
    )


async def records_api(request: Request) -> Response:
    return JSONResponse(
        [
            {
                "name": r.name,
                "bytes": r.size,
                "url": f"/replays/file/{urllib.parse.quote(r.name)}",
            }
            for r in site_of(request).replays.listing().values()
        ]
    )


async def upload_form(request: Request) -> Response:
    site = site_of(request)
    limit = site.config.max_upload_bytes + MAX_FORM_BYTES  # the file and the form around it
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
    stored = await run_in_threadpool(site.replays.add_upload, name, data)
    return RedirectResponse(f"/replays/upload/{stored.id}", status_code=303)


async def upload_api(request: Request) -> Response:
    site = site_of(request)
    body = await read_body(request, site.config.max_upload_bytes)
    name = request.query_params.get("name") or "upload.jsonl"
    stored = await run_in_threadpool(site.replays.add_upload, name, body)
    return JSONResponse(
        {"id": stored.id, "name": stored.name, "matches": stored.matches, "url":
         f"/replays/upload/{stored.id}"},
        status_code=201,
    )  # fmt: skip


def replay_page(request: Request, playback, source: dict[str, Any]) -> Response:
    """One step of a record: the table as a picture and the events up to it."""
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
    return site_of(request).page(
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
    playback = await run_in_threadpool(site_of(request).replays.listed_playback, name, match)
    base = f"/replays/file/{urllib.parse.quote(name)}"
    return replay_page(request, playback, {"name": name, "url": base, "match": match})


async def replay_upload(request: Request) -> Response:
    match = match_number(request)
    upload, playback = await run_in_threadpool(
        site_of(request).replays.upload_playback, request.path_params["upload"], match
    )
    base = f"/replays/upload/{upload.id}"
    return replay_page(request, playback, {"name": upload.name, "url": base, "match": match})


ROUTES = [
    Route("/replays", replay_list),
    Route("/replays", upload_form, methods=["POST"]),
    Route("/replays/file/{name:path}", replay_listed),
    Route("/replays/upload/{upload}", replay_upload),
    Route("/api/records", records_api),
    Route("/api/replays", upload_api, methods=["POST"]),
]
