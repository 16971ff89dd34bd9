"""``python -m sto_odno_env.web``: serve the web table (docs/web.md).

    python -m sto_odno_env.web [--host 127.0.0.1] [--port 8101] [--records DIR]
        [--results DIR] [--rules-dir DIR] [--max-games N] [--idle-minutes M]
        [--max-upload-kb K]

It binds 127.0.0.1 (this machine only) unless told otherwise, and says so when asked to
bind another address. Ctrl-C or SIGTERM stop it cleanly.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from ...tools import cli
from . import INSTALL_WEB, missing_packages


def _folder(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return path


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    return parse


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise argparse.ArgumentTypeError(f"a port is 1..65535, got {text!r}")
    return int(text)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m sto_odno_env.web",
        description="Serve the web table: play 101 against the agent registry's bots and "
        "trained policies, replay records, browse the ladder.",
        epilog="examples:\n"
        "  python -m sto_odno_env.web\n"
        "  python -m sto_odno_env.web --records tests/data/records --results docs/ladder\n"
        "Then open http://127.0.0.1:8101/ in a browser.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=8101, help="port (default 8101)")
    p.add_argument("--records", type=_folder, help="folder of records (*.jsonl) to list")
    p.add_argument("--results", type=_folder, help="folder of agents.evaluate results")
    p.add_argument("--rules-dir", type=_folder, help="folder of variant rule sets (*.yaml)")
    p.add_argument("--max-games", type=_positive(int), default=500, help="games kept at once (500)")
    p.add_argument(
        "--idle-minutes",
        type=_positive(float),
        default=30.0,
        help="a game without a request for this long is dropped (30)",
    )
    p.add_argument(
        "--max-upload-kb",
        type=_positive(int),
        default=4096,
        help="largest record upload in KB (4096)",
    )
    return p


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _port_problem(host: str, port: int) -> str | None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host.strip("[]"), port))
    except OSError as error:
        return f"cannot bind {host}:{port}: {error.strerror or error}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server until Ctrl-C or SIGTERM; returns the exit code (130 after a stop, with
    one line saying so)."""
    args = parser().parse_args(argv)
    code = 0
    # uvicorn takes SIGINT and SIGTERM while it serves, shuts down gracefully, then raises
    # the signal again: it reaches cli.stopping's handler (as one during start-up does),
    # whose Stopped uvicorn.run swallows, or which stops the start-up; either way the
    # handler has noted the signal.
    with contextlib.suppress(cli.Stopped), cli.stopping() as stop:
        code = _serve(args)
    if stop.received is not None:
        return cli.stopped(cli.Stopped(stop.received), "the web table is closed")
    return code


def _serve(args: argparse.Namespace) -> int:
    """Check the settings, then serve until uvicorn returns."""
    missing = missing_packages()
    if missing:
        print(
            f"error: the web table needs {', '.join(missing)} (the web extra): {INSTALL_WEB}",
            file=sys.stderr,
        )
        return 2
    problem = _port_problem(args.host, args.port)
    if problem:
        print(f"error: {problem}; choose another --port", file=sys.stderr)
        return 2
    import uvicorn

    from .app import LOOPBACK_HOSTS, WebConfig, create_app

    hosts = tuple(LOOPBACK_HOSTS)
    if not is_loopback(args.host):
        print(
            f"warning: binding {args.host}, not 127.0.0.1: anyone who can reach this machine "
            "on port {args.port} can open the table. There is no login; game ids are the only "
            "key.".replace("{args.port}", str(args.port)),
            file=sys.stderr,
        )
        hosts = ("*",)
    config = WebConfig(
        records=args.records,
        results=args.results,
        rules_dir=args.rules_dir,
        max_games=args.max_games,
        idle_minutes=args.idle_minutes,
        max_upload_bytes=args.max_upload_kb * 1024,
        allowed_hosts=hosts,
    )
    app = create_app(config)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"101 web table on http://{shown}:{args.port}/ (Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=args.host.strip("[]"), port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
