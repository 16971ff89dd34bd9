"""The screenshots of docs/web.md, taken in headless Chromium (the system's /usr/bin/chromium,
driven by Playwright) from a server started here.

    python scripts/web_screenshots.py [--out docs/web]

Writes new-game.png, table.png, match-over.png, replay.png and ladder.png. The table and the
finished match come from matches clicked through at random against ``expert``, so they
differ from run to run.
"""

from __future__ import annotations

import argparse
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(ROOT))

from sto_odno_env.tools import cli  # noqa: E402

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def click(page, locator) -> None:
    with page.expect_navigation():
        locator.click()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/web_screenshots.py")
    parser.add_argument("--out", default=str(ROOT / "docs" / "web"), help="folder for the PNGs")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable, "-m", "sto_odno_env.web", "--port", str(port),
            "--records", str(ROOT / "tests/data/records"), "--results", str(ROOT / "docs/ladder"),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base, timeout=2).close()
                break
            except OSError:
                time.sleep(0.2)
        rng = random.Random(101)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            page.goto(base + "/")
            page.select_option("#players", "3")
            page.screenshot(path=str(out / "new-game.png"), full_page=True)
            click(page, page.locator("#start"))
            # a table a few moves in, with something in the log and a card to play
            for _ in range(200):
                moves = page.locator("#hand button.move")
                if page.locator("#since li").count() >= 4 and moves.count() >= 2:
                    break
                all_moves = page.locator("button.move")
                click(page, all_moves.nth(rng.randrange(all_moves.count())))
            page.screenshot(path=str(out / "table.png"), full_page=True)
            page.goto(base + "/")
            page.select_option("#players", "2")
            click(page, page.locator("#start"))
            while page.locator("#result").count() == 0:
                moves = page.locator("button.move")
                cards = page.locator("#hand button.move")
                pick = cards if cards.count() and rng.random() < 0.9 else moves
                click(page, pick.nth(rng.randrange(pick.count())))
            page.locator("#result").screenshot(path=str(out / "match-over.png"))
            page.goto(base + "/replays/file/classic-3p-stacking.jsonl?match=1&step=40")
            page.screenshot(path=str(out / "replay.png"), full_page=True)
            page.goto(base + "/ladder")
            page.locator("#result-0").screenshot(path=str(out / "ladder.png"))
            browser.close()
    finally:
        cli.stop_child(server)
    for name in ("new-game", "table", "match-over", "replay", "ladder"):
        print(out / f"{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
