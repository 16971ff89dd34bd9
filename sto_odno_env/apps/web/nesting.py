"""How deep a client's JSON may nest: a body or an uploaded record line nested deeper than
:data:`MAX_JSON_DEPTH` is refused before it is decoded.

Python's ``json`` decoder recurses once per level and raises ``RecursionError`` near 1,000
levels, which the server would answer with a 500 and a traceback for every such request.
Nothing the table reads nests past a few levels (a request body 2, a record line 4), so
a far lower limit costs no honest client anything and is checked here, in C-speed passes,
without decoding.
"""

from __future__ import annotations

import re

import numpy as np

from .games import RequestError

MAX_JSON_DEPTH = 64
# A JSON string, escapes included, within one line: its brackets are text, not nesting.
_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
_STEP = np.zeros(256, dtype=np.int8)  # byte -> +1 opens a level, -1 closes one
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


class NestingError(RequestError):
    """JSON nested past :data:`MAX_JSON_DEPTH` (400); the server logs one line for it."""


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in the JSON text ``data`` (0 for a
    scalar). Malformed text gets a number too (its unclosed brackets count); the decoder
    then names its fault."""
    bare = np.frombuffer(_STRING.sub(b'""', data), dtype=np.uint8)
    if not bare.size:
        return 0
    depth = np.cumsum(_STEP[bare], dtype=np.int32)
    return max(int(depth.max()), 0)


def check_depth(data: bytes, what: str) -> None:
    """Raise :class:`NestingError` when ``data`` (JSON text, named ``what`` in the
    message) nests deeper than :data:`MAX_JSON_DEPTH`."""
    # Counting the openers first keeps every ordinary body away from the exact pass.
    if data.count(b"[") + data.count(b"{") <= MAX_JSON_DEPTH:
        return
    depth = json_depth(data)
    if depth > MAX_JSON_DEPTH:
        raise NestingError(
            f"{what} nests {depth} levels deep; at most {MAX_JSON_DEPTH} are accepted"
        )


def check_lines(data: bytes, name: str) -> None:
    """:func:`check_depth` for each line of a JSON Lines file (a record), naming the line."""
    for number, line in enumerate(data.split(b"\n"), 1):
        check_depth(line, f"{name}: line {number}")
