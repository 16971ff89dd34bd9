"""``python -m sto_odno_env.web`` as a process: it binds 127.0.0.1 by default and warns when
told to bind another address, answers over real HTTP, stops on Ctrl-C and SIGTERM without a
traceback, and refuses bad settings (a missing extra, a folder that is not there, a port in
use) with a message instead of starting."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import default_sigint

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sto_odno_env.web", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )


def own_address() -> str | None:
    """This machine's address on its network (none sent: a UDP socket only picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def wait_until_up(port: int, process: subprocess.Popen, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server left: {process.communicate()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                return response.read().decode()
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the server did not answer")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_it_serves_on_loopback_and_stops_cleanly(stop):
    port = free_port()
    process = start("--port", str(port), "--records", "tests/data/records")
    try:
        page = wait_until_up(port, process)
        assert "Play 101" in page
        address = own_address()
        if address is not None:  # bound to 127.0.0.1 only: the machine's address is refused
            with socket.socket() as probe:
                probe.settimeout(2)
                assert probe.connect_ex((address, port)) != 0
        process.send_signal(stop)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, (process.returncode, err)  # a stop, as every command
    name = "Ctrl-C" if stop == signal.SIGINT else "SIGTERM"
    assert err == f"stopped by {name}: the web table is closed\n", err  # one line
    assert f"http://127.0.0.1:{port}/" in out
    assert "warning" not in err


def test_it_warns_when_told_to_bind_another_address():
    port = free_port()
    process = start("--host", "0.0.0.0", "--port", str(port))
    try:
        wait_until_up(port, process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert "warning: binding 0.0.0.0, not 127.0.0.1" in err
    assert "Traceback" not in err


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sto_odno_env.web", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_bad_settings_are_refused_before_it_starts(tmp_path):
    result = run("--records", str(tmp_path / "nosuch"))
    assert result.returncode == 2 and "is not a folder" in result.stderr
    result = run("--port", "70000")
    assert result.returncode == 2 and "a port is 1..65535" in result.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = run("--port", str(taken.getsockname()[1]))
    assert result.returncode == 2 and "cannot bind" in result.stderr
    assert "Traceback" not in result.stderr


def test_without_the_web_extra_it_names_the_packages(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    hidden = ["starlette", "uvicorn"]
    lines = ["import sys"] + [f"sys.modules[{name!r}] = None" for name in hidden]
    (site / "sitecustomize.py").write_text("\n".join(lines) + "\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    # find_spec sees through sys.modules: None there reads as not installed
    result = run("--port", str(free_port()), env=env)
    assert result.returncode == 2, result
    assert "starlette, uvicorn" in result.stderr and "[web]" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_names_every_option():
    result = run("--help")
    assert result.returncode == 0
    for option in ("--host", "--port", "--records", "--results", "--rules-dir", "--max-games"):
        assert option in result.stdout
