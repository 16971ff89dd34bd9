"""The ladder's routes: the evaluation reports (``results.json``) under ``--results``, as a
page and as JSON, and their plots."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ..games import RequestError
from ..ladder import list_results
from ..site import site_of


async def ladder(request: Request) -> Response:
    site = site_of(request)
    results = await run_in_threadpool(list_results, site.config.results)
    return site.page(
        request, "ladder.html", results=results, root=site.config.results, title="101 · ladder"
    )


async def ladder_api(request: Request) -> Response:
    results = await run_in_threadpool(list_results, site_of(request).config.results)
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
    results = await run_in_threadpool(list_results, site_of(request).config.results)
    index, name = request.path_params["index"], request.path_params["plot"]
    if not 0 <= index < len(results) or name not in results[index].plots:
        raise RequestError(f"no plot {name!r} in result {index} of the ladder", 404)
    return FileResponse(results[index].folder / name, media_type="image/png")


ROUTES = [
    Route("/ladder", ladder),
    Route("/ladder/{index:int}/{plot}", ladder_plot),
    Route("/api/ladder", ladder_api),
]
