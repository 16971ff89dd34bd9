"""Generated blocks of a Markdown file: the text between a ``<!-- begin generated: NAME -->``
line and the next ``<!-- end generated: NAME -->``, which a generator rewrites from the code
while everything else in the file stays as written by hand. The one mechanism of every
generator of the kit (``scripts/api_doc.py``'s tables of docs/api.md, ``train/config.py``'s
config table of docs/training.md, ``lab/tools/strength.py``'s which-policy table of the
README): :func:`blocks` reads them, :func:`replace_block` rewrites one.
"""

from __future__ import annotations

import re

from .errors import StoOdnoError

NAME = re.compile(r"[\w-]+")
BLOCK = re.compile(
    r"<!-- begin generated: (?P<name>[\w-]+) -->\n(?P<body>.*?)<!-- end generated: (?P=name) -->",
    re.DOTALL,
)


class BlockError(StoOdnoError):
    """A generated block that a file lacks, leaves open or holds twice."""


def markers(name: str) -> tuple[str, str]:
    """The begin and end comments of the block ``name`` (letters, digits, ``_`` and ``-``)."""
    if not NAME.fullmatch(name):
        raise ValueError(f"a generated block's name is letters, digits, _ and -, not {name!r}")
    return f"<!-- begin generated: {name} -->", f"<!-- end generated: {name} -->"


def blocks(text: str) -> dict[str, str]:
    """Every generated block of ``text``: its name -> its body, in the order they stand."""
    found: dict[str, str] = {}
    for match in BLOCK.finditer(text):
        found.setdefault(match.group("name"), match.group("body"))
    return found


def replace_block(text: str, name: str, body: str, source: str = "the text") -> str:
    """``text`` with the body of its generated block ``name`` replaced by ``body`` (a final
    newline added if it lacks one, so that the end comment keeps its own line) and nothing
    else changed. ``source`` names the file in the error raised when ``text`` has no such
    block, has its begin comment without the end one after it, or has it twice."""
    begin, end = markers(name)
    pattern = re.compile(rf"({re.escape(begin)}\n).*?({re.escape(end)})", re.DOTALL)
    found = pattern.findall(text)
    if len(found) != 1:
        if found:
            problem = f"holds the generated block {name!r} {len(found)} times; keep one"
        elif begin in text:
            problem = f"has {begin} with no {end} after it"
        else:
            problem = f"has no generated block {name!r} (a line {begin}, then a line {end})"
        raise BlockError(f"{source} {problem}")
    if body and not body.endswith("\n"):
        body += "\n"
    return pattern.sub(lambda match: match.group(1) + body + match.group(2), text)
