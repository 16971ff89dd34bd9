"""Load test of the web table on loopback: many concurrent games, the move latency measured.

    python scripts/web_load.py [--games 50] [--agents expert,ppo-classic] [--seconds 60]
        [--think 0.5,1.5] [--repeat 3] [--pages]

Starts ``python -m sto_odno_env.web`` on a free loopback port, then plays ``--games``
games at once, each in its own client thread with its own keep-alive connection: a game
is created (``POST /api/games``, two players, the agent in the other seat), then each move
is a random legal move (a card when one can be played, nine times in ten) sent after a
think time drawn uniformly from ``--think`` seconds (a person's pace; ``0`` sends the next
move at once, the server's saturation); a finished game is followed by a new one until
``--seconds`` have passed. A move's latency is the time from sending ``POST
/api/games/{id}/move`` to reading the answer: the server applies the move and lets the
agent play until the human's next decision. ``--pages`` also fetches the HTML page after
every move (what a browser does after its form's redirect), timed apart.

Prints one row per agent and run as it ends, then the medians over the runs: moves,
moves/s, latency percentiles in ms, the server process's CPU (one core = 100%). Exit code 1
when the median p95 move latency of an agent is over ``--limit`` ms (100). Ctrl-C or SIGTERM
stops the clients and the server: one line saying how many runs were measured (their rows
are above), exit 130.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(ROOT))

from sto_odno_env.bots.registry import split_agent_names  # noqa: E402
from sto_odno_env.tools import cli  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Client:
    """One browser's worth of games over one keep-alive connection."""

    def __init__(self, port: int, agent: str, think: tuple[float, float], seed: int, pages: bool):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.agent, self.think, self.pages = agent, think, pages
        self.rng = random.Random(seed)
        self.moves: list[float] = []
        self.page_times: list[float] = []
        self.games = 0
        self.errors: list[str] = []

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"} if data else {}
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def run(self, stop: float, halt: threading.Event | None = None) -> None:
        """Play games until ``stop`` (a ``perf_counter`` time) or until ``halt`` is set."""
        halt = halt or threading.Event()
        try:
            while time.perf_counter() < stop and not halt.is_set():
                status, body = self.request("POST", "/api/games", {"opponents": self.agent})
                if status != 201:
                    self.errors.append(f"new game: {status} {body[:200]!r}")
                    return
                view = json.loads(body)
                self.games += 1
                while not view["over"] and time.perf_counter() < stop:
                    if halt.wait(self.rng.uniform(*self.think)):
                        return
                    cards = [m for m in view["legal"] if m["kind"] == "card"]
                    legal = cards if cards and self.rng.random() < 0.9 else view["legal"]
                    move = self.rng.choice(legal)
                    path = f"/api/games/{view['game']}/move"
                    started = time.perf_counter()
                    status, body = self.request(
                        "POST", path, {"action": move["action"], "move": view["move"]}
                    )
                    self.moves.append(time.perf_counter() - started)
                    if status != 200:
                        self.errors.append(f"move: {status} {body[:200]!r}")
                        return
                    view = json.loads(body)
                    if self.pages:
                        started = time.perf_counter()
                        status, _ = self.request("GET", f"/games/{view['game']}")
                        self.page_times.append(time.perf_counter() - started)
        except (OSError, http.client.HTTPException) as error:
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            self.connection.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def one_run(port: int, pid: int, args, agent: str, seed: int) -> dict:
    """One run of ``--games`` clients for ``--seconds``; a stop (cli.Stopped) halts the
    clients, waits for their requests under way, and passes on."""
    think = args.think
    clients = [Client(port, agent, think, seed * 1000 + k, args.pages) for k in range(args.games)]
    cpu_before, started = cpu_seconds(pid), time.perf_counter()
    stop = started + args.seconds
    halt = threading.Event()
    threads = [threading.Thread(target=client.run, args=(stop, halt)) for client in clients]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    finally:  # a stop: the clients end their requests under way, then leave
        halt.set()
        for thread in threads:
            thread.join()
    elapsed = time.perf_counter() - started
    cpu = (cpu_seconds(pid) - cpu_before) / elapsed
    moves = [t for client in clients for t in client.moves]
    pages = [t for client in clients for t in client.page_times]
    errors = [e for client in clients for e in client.errors]
    if errors:
        raise SystemExit(f"error: {len(errors)} client(s) failed, e.g. {errors[0]}")
    return {
        "agent": agent,
        "games": sum(client.games for client in clients),
        "moves": len(moves),
        "rate": len(moves) / elapsed,
        "p50": 1000 * percentile(moves, 0.50),
        "p95": 1000 * percentile(moves, 0.95),
        "p99": 1000 * percentile(moves, 0.99),
        "max": 1000 * max(moves, default=float("nan")),
        "page_p95": 1000 * percentile(pages, 0.95) if pages else None,
        "cpu": 100 * cpu,
    }


def row(result: dict, label: str) -> str:
    page = "" if result["page_p95"] is None else f" {result['page_p95']:8.1f}"
    return (
        f"{label:<24} {result['games']:>6} {result['moves']:>7} {result['rate']:>8.1f} "
        f"{result['p50']:>7.1f} {result['p95']:>7.1f} {result['p99']:>7.1f} {result['max']:>8.1f} "
        f"{result['cpu']:>6.0f}%{page}"
    )


def parse_think(text: str) -> tuple[float, float]:
    parts = [float(part) for part in text.split(",")]
    if len(parts) == 1:
        parts *= 2
    if len(parts) != 2 or parts[0] < 0 or parts[1] < parts[0]:
        raise argparse.ArgumentTypeError(f"--think is LOW,HIGH seconds (or one number), got {text}")
    return parts[0], parts[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python scripts/web_load.py",
        description=__doc__.split("\n\n")[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=50, help="concurrent games (50)")
    parser.add_argument("--agents", default="expert,ppo-classic", help="the opponents")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of a run (60)")
    parser.add_argument(
        "--think", type=parse_think, default=(0.5, 1.5), help="think time LOW,HIGH s (0.5,1.5)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per agent (3)")
    parser.add_argument("--pages", action="store_true", help="also fetch the page per move")
    parser.add_argument("--limit", type=float, default=100.0, help="p95 limit in ms (100)")
    args = parser.parse_args(argv)
    agents = split_agent_names(args.agents)
    port = free_port()
    done: list[dict] = []  # the runs measured
    try:
        with cli.stopping(), tempfile.TemporaryFile("w+") as log:
            # Its own session: a Ctrl-C at the terminal reaches this script only, which stops
            # the server itself; the server's own lines go to a log shown if it fails.
            command = [sys.executable, "-m", "sto_odno_env.web", "--port", str(port)]
            server = subprocess.Popen(
                [*command, "--max-games", "5000"],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
            try:
                return 1 if measure(args, agents, port, server, log, done) else 0
            finally:
                cli.stop_child(server)
    except cli.Stopped as stop:
        total = len(agents) * args.repeat
        kept = "their rows are above" if done else "nothing to show"
        return cli.stopped(stop, f"{len(done)} of {total} runs measured; {kept}")


def wait_for_server(port: int, server: subprocess.Popen, log: IO[str]) -> None:
    """Return once the server accepts connections; exit with its log if it does not."""
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise SystemExit(f"error: the server did not start\n{log.read()}") from None
            time.sleep(0.2)


def measure(
    args: argparse.Namespace,
    agents: list[str],
    port: int,
    server: subprocess.Popen,
    log: IO[str],
    done: list[dict],
) -> bool:
    """Print a row per run as it ends (appended to ``done``) and each agent's medians;
    whether an agent's median p95 is over ``--limit``."""
    wait_for_server(port, server, log)
    load = os.getloadavg()
    print(
        f"{args.games} concurrent games, think {args.think[0]:g}-{args.think[1]:g} s, "
        f"{args.seconds:g} s per run, {os.cpu_count()} cores, load average before "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    header = (
        f"{'agent (run)':<24} {'games':>6} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} "
        f"{'p95 ms':>7} {'p99 ms':>7} {'max ms':>8} {'server':>7}"
    )
    print(header + ("  page p95" if args.pages else ""), flush=True)
    failed = False
    for agent in agents:
        warm = Client(port, agent, (0.0, 0.0), 0, False)  # loads the agent (torch) once
        warm.run(time.perf_counter() + 2)
        runs = []
        for seed in range(args.repeat):
            runs.append(one_run(port, server.pid, args, agent, seed))
            done.append(runs[-1])
            print(row(runs[-1], f"{agent} ({seed + 1})"), flush=True)
        median = {
            key: statistics.median(r[key] for r in runs) if runs[0][key] is not None else None
            for key in runs[0]
            if key != "agent"
        }
        print(row(median, f"{agent} (median)"), flush=True)
        failed |= median["p95"] > args.limit
    return failed


if __name__ == "__main__":
    sys.exit(main())
