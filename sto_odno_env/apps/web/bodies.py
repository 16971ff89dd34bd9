"""Reading a request: its body within a size limit, an urlencoded form, a JSON object, and
whole numbers from either. Each refusal is a :class:`~.games.RequestError` (400, or 413
past the limit) whose message names what is wrong."""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import Any

from starlette.requests import Request

from .games import RequestError
from .nesting import check_depth

MAX_FORM_BYTES = 64 * 1024  # a form or JSON body: a few fields


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
