"""The web table never answers 500 to what a client sends (docs/web.md, "Every request is
checked"): a seeded random client sends every route junk bodies, forged ids, wrong types,
huge numbers, deep nesting and path tricks, and every answer must be below 500. Deep JSON
is refused with a 4xx naming the limit and one log line, not a traceback.

In process (starlette's TestClient): the server's bind is tests/test_web_cli.py's.
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("python_multipart")

from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from sto_odno_env.apps.web.app import WebConfig, create_app
from sto_odno_env.apps.web.nesting import MAX_JSON_DEPTH, json_depth

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "tests" / "data" / "records"
LADDER = ROOT / "docs" / "ladder"
REQUESTS = 600  # about 20 a route


def make_client() -> TestClient:
    config = WebConfig(records=RECORDS, results=LADDER, allowed_hosts=("testserver",))
    return TestClient(create_app(config), raise_server_exceptions=False)


def deep(depth: int, rng: random.Random) -> str:
    """JSON nested ``depth`` levels: arrays, objects or both."""
    kind = rng.choice(["[", "{", "mixed"])
    opens, closes = [], []
    for _ in range(depth):
        bracket = kind if kind != "mixed" else rng.choice("[{")
        opens.append('{"a":' if bracket == "{" else "[")
        closes.append("}" if bracket == "{" else "]")
    return "".join(opens) + "1" + "".join(reversed(closes))


class Fuzzer:
    """Requests drawn from one seeded generator: a path of a real route with real or forged
    ids, and a body of one of many kinds."""

    FIELDS = ["rules", "players", "opponents", "seat", "action", "move", "agent", "baseline"]
    NAMES = ["classic", "nines", "yard", "random", "expert", "greedy", "ppo-classic", "x"]

    def __init__(self, rng: random.Random, ids: dict[str, list[str]]) -> None:
        self.rng = rng
        self.ids = ids

    def text(self) -> str:
        rng = self.rng
        pools = [
            string.printable,
            "0123456789-+.eE",
            "²³١٢٣０１２",  # digits that str.isdigit() takes and int() may not
            '[]{}",:\\',
            "./%~\x00",
            "♠♥♦♣🂡\u202e\ufeff",
        ]
        pool = rng.choice(pools)
        return "".join(rng.choice(pool) for _ in range(rng.choice([0, 1, 3, 12, 80])))

    def value(self, depth: int = 0) -> Any:
        """A random JSON value, any type, now and then huge or deep."""
        rng = self.rng
        choice = rng.randrange(12)
        if choice == 0:
            return rng.choice([0, 1, -1, 2, 6, 7, 41, 42, 2**31, -(2**63), 10**30])
        if choice == 1:
            return rng.choice([0.5, -0.0, 1e308, 2.0])
        if choice == 2:
            return rng.choice([True, False, None])
        if choice == 3:
            return "9" * rng.choice([5, 400, 5000])  # past int()'s 4300 digits
        if choice in (4, 5) and depth < 3:
            return [self.value(depth + 1) for _ in range(rng.randrange(4))]
        if choice == 6 and depth < 3:
            return {self.text(): self.value(depth + 1) for _ in range(rng.randrange(4))}
        if choice == 7:
            return rng.choice(self.NAMES)
        return self.text()

    def fields(self) -> dict[str, Any]:
        rng = self.rng
        names = rng.sample(self.FIELDS, rng.randrange(len(self.FIELDS) + 1))
        return {name: self.value() for name in names}

    def body(self) -> dict[str, Any]:
        """httpx keyword arguments for one body."""
        rng = self.rng
        kind = rng.randrange(10)
        if kind == 0:
            return {}
        if kind == 1:
            return {"json": self.fields()}
        if kind == 2:
            return {"data": {k: str(v) for k, v in self.fields().items()}}
        if kind == 3:
            return {"content": rng.randbytes(rng.choice([1, 17, 300, 5000]))}
        if kind == 4:
            depth = rng.choice([MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 2000, 10_000, 60_000])
            return {"content": deep(depth, rng).encode()}
        if kind == 5:
            text = json.dumps(self.value())
            if rng.random() < 0.2:  # a number past int()'s 4,300 digits
                text = '{"players": ' + "9" * 5000 + "}"
            return {"content": text.encode()}
        if kind == 6:  # a record-like upload: lines of JSON, some broken
            lines = [json.dumps({"type": rng.choice(["match", "deal", "step"]), **self.fields()})]
            lines += [deep(rng.choice([3, 100, 3000]), rng), self.text()]
            return {"content": "\n".join(rng.sample(lines, len(lines))).encode()}
        if kind == 7:
            data = rng.choice([b"", b"{}", rng.randbytes(40), deep(5000, rng).encode()])
            return {"files": {rng.choice(["record", "other"]): ("x.jsonl", data)}}
        if kind == 8:
            boundary = rng.choice(["x", "", "--", "a" * 200])
            content = f"--{boundary}\r\n{self.text()}\r\n--{boundary}--".encode()
            kind_header = f"multipart/form-data; boundary={boundary}"
            return {"content": content, "headers": {"content-type": kind_header}}
        ctype = rng.choice(["application/json", "text/plain", "application/x-www-form-urlencoded"])
        return {
            "content": self.text().encode("utf-8", "surrogatepass"),
            "headers": {"content-type": ctype},
        }

    def fill(self, template: str) -> str:
        """A route's path with each parameter a real id, a forged one or a trick."""
        rng = self.rng
        out = template
        for param, real in self.ids.items():
            if "{" + param not in out:
                continue
            forged = [
                secrets.token_urlsafe(18),
                "..",
                "%2e%2e%2f%2e%2e%2fpyproject.toml",
                "x" * 3000,
                "%00",
                "%F0%9F%82%A1",
                "-1",
                "99999999999999999999",
            ]
            value = rng.choice(real + forged if real else forged)
            out = out.replace("{" + param + "}", value).replace("{" + param + ":path}", value)
            out = out.replace("{" + param + ":int}", value)
        return out

    def query(self) -> dict[str, str]:
        rng = self.rng
        names = rng.sample(["step", "match", "name"], rng.randrange(4))
        return {name: str(self.value()) for name in names}


def routes(app) -> Iterator[tuple[str, str]]:
    """(method, path template) of every route of the app, the static mount included."""
    for route in app.routes:
        if isinstance(route, Route):
            for method in sorted(route.methods or {"GET"}):
                if method != "HEAD":
                    yield method, route.path
        elif isinstance(route, Mount):
            yield "GET", route.path + "/{file:path}"


def test_json_depth_counts_brackets_outside_strings():
    assert json_depth(b"1") == 0
    assert json_depth(b'{"a": [1, {"b": "[[[["}]}') == 3
    assert json_depth(b'["\\"[[[", [[]]]') == 3
    assert json_depth(b"[" * 500) == 500


@pytest.mark.parametrize("route", ["/api/games", "/api/games/x/move", "/api/replays"])
def test_deep_json_is_refused_naming_the_limit_with_one_log_line(route, caplog):
    client = make_client()
    body = "[" * 10_000 + "]" * 10_000
    with caplog.at_level(logging.WARNING):
        response = client.post(route, content=body.encode())
    assert response.status_code == 400, response.text
    assert f"at most {MAX_JSON_DEPTH} are accepted" in response.json()["error"]
    lines = [r for r in caplog.records if r.name.startswith("sto_odno_env")]
    assert len(lines) == 1 and lines[0].exc_info is None, lines
    assert "\n" not in lines[0].getMessage()


def test_a_record_at_the_limit_is_still_decoded():
    client = make_client()
    line = json.dumps(
        {"type": "match", "x": json.loads(deep(MAX_JSON_DEPTH - 1, random.Random(0)))}
    )
    response = client.post("/api/replays", content=line.encode())
    assert response.status_code == 400, response.text
    assert "levels deep" not in response.json()["error"]  # the replayer's own fault


@pytest.mark.parametrize("seed", [0, 1])
def test_a_random_client_never_gets_a_5xx(seed):
    client = make_client()
    rng = random.Random(seed)
    game = client.post("/api/games", json={"opponents": "random"}).json()["game"]
    record = (RECORDS / "classic-2p.jsonl").read_bytes()
    upload = client.post("/api/replays?name=a.jsonl", content=record).json()["id"]
    ids = {
        "game": [game],
        "upload": [upload],
        "name": ["classic-2p.jsonl", "../../pyproject.toml", "/etc/passwd"],
        "index": ["0", "1"],
        "plot": ["winrates.png", "results.json"],
        "file": ["style.css", "../app.py", "%2e%2e/app.py"],
    }
    fuzzer = Fuzzer(rng, ids)
    table = sorted(set(routes(client.app)))
    assert ("POST", "/api/games") in table and ("GET", "/rules") in table
    for number in range(REQUESTS):
        method, template = table[number % len(table)]  # every route, in turn
        if rng.random() < 0.1:
            method = rng.choice(["GET", "POST", "PUT", "DELETE", "PATCH"])
        path = fuzzer.fill(template)
        kwargs = fuzzer.body() if method != "GET" else {}
        response = client.request(method, path, params=fuzzer.query(), **kwargs)
        assert response.status_code < 500, (method, path, kwargs, response.text[:300])
        assert "Traceback" not in response.text
