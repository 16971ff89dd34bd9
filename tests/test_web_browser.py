"""The web table in a real browser: headless Chromium from the system packages
(/usr/bin/chromium, installed by .ci/run), driven by Playwright, against the server
started as ``python -m sto_odno_env.web``. It plays a whole match by clicking, downloads
the record, steps a replay forward and back (buttons and arrow keys), jumps to a round,
opens an uploaded record and the ladder. A failing test leaves a screenshot, named in the
failure, under $WEB_TEST_ARTIFACTS (default: the system's temporary folder).

Where the browser or Playwright is missing the tests are skipped, except under CI (the
environment variable CI set), where they must run.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import default_sigint

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(os.environ.get("WEB_TEST_ARTIFACTS", tempfile.gettempdir())) / "sto-odno-web"


def _require_browser():
    problems = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("Playwright is not installed (pip install playwright: the dev extra)")
    if not CHROMIUM.exists():
        problems.append(f"{CHROMIUM} is missing (apt-get install chromium)")
    for module in ("starlette", "uvicorn", "jinja2", "python_multipart"):
        try:
            __import__(module)
        except ImportError:
            problems.append(f"{module} is not installed (the web extra)")
    if problems:
        message = "; ".join(problems)
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {message}", pytrace=False)
        pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    _require_browser()
    records = tmp_path_factory.mktemp("records")
    shutil.copy(ROOT / "tests" / "data" / "records" / "classic-2p.jsonl", records)
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable, "-m", "sto_odno_env.web", "--port", str(port),
            "--records", str(records), "--results", str(ROOT / "docs" / "ladder"),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(base + "/", timeout=5).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"the server did not start: {process.communicate()}") from None
            time.sleep(0.2)
    yield base
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


@contextlib.contextmanager
def screenshot_on_failure(page, name: str):
    """On a failure inside, a full-page screenshot, its path added to the error."""
    try:
        yield
    except BaseException as error:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}-{int(time.time())}.png"
        with contextlib.suppress(Exception):
            page.screenshot(path=str(path), full_page=True)
            error.add_note(f"screenshot of the page: {path}")
        raise


def click_and_wait(page, locator) -> None:
    """Click something that loads a new page (a form's button, a link), and wait for it."""
    with page.expect_navigation():
        locator.click()


def test_a_whole_match_by_clicking(server, page, tmp_path):
    from sto_odno_env.records.replay import replay_lines

    with screenshot_on_failure(page, "match"):
        page.goto(server + "/")
        page.select_option("#players", "2")
        page.select_option("#opponent1", "expert")
        page.select_option("#baseline", "expert")
        assert page.locator("#opponent2").is_hidden()  # the script hides unused seats
        click_and_wait(page, page.locator("#start"))
        assert re.search(r"/games/[A-Za-z0-9_-]{24}$", page.url)
        rng = random.Random(11)
        clicks = 0
        while page.locator("#result").count() == 0:
            moves = page.locator("button.move")
            count = moves.count()
            assert count >= 2, "a real decision has at least two moves"
            hand = page.locator("#hand .card-button").count()
            disabled = page.locator("#hand .card-button[disabled]").count()
            legal_cards = page.locator("#hand button.move").count()
            assert hand == disabled + legal_cards
            assert int(page.locator("#game").get_attribute("data-move")) == clicks
            click_and_wait(page, moves.nth(rng.randrange(count)))
            clicks += 1
            assert clicks < 3000
            assert page.locator("#error").count() == 0
        assert page.locator("#result h2").inner_text() == "Match over"
        assert page.locator("#baseline tr[data-agent=expert]").count() == 1
        assert page.locator("#rounds tbody tr").count() >= 1
        with page.expect_download() as download:
            page.locator("#download").click()
        path = tmp_path / "match.jsonl"
        download.value.save_as(path)
        assert replay_lines("download", path.read_text(encoding="utf-8").splitlines()) == 1
        # Another bot's baseline, by its form.
        page.select_option("#baseline select[name=agent]", "greedy")
        click_and_wait(page, page.locator("#baseline button[type=submit]"))
        assert page.locator("#baseline tr[data-agent=greedy]").count() == 1


def test_the_form_greys_out_the_policies_that_do_not_fit_the_table(server, page):
    import json

    with urllib.request.urlopen(server + "/api/options", timeout=10) as answer:
        agents = json.load(answer)["agents"]

    def fits(agent: dict, rules: str, players: int) -> bool:
        return agent["tables"] is None or players in agent["tables"].get(rules, [])

    def offered(select: str) -> dict[str, bool]:
        options = page.locator(f"{select} option")
        return {
            options.nth(k).get_attribute("value"): not options.nth(k).is_disabled()
            for k in range(options.count())
        }

    with screenshot_on_failure(page, "form"):
        page.goto(server + "/")
        for rules, players in [("classic", 2), ("classic", 6), ("nines", 3), ("yard", 5)]:
            page.select_option("#rules", rules)
            page.select_option("#players", str(players))
            expected = {a["name"]: fits(a, rules, players) for a in agents}
            assert offered("#opponent1") == expected, (rules, players)
            assert offered("#baseline") == {**expected, "": True}
            note = page.locator("#unfit")
            greyed = {name for name, ok in expected.items() if not ok}
            assert note.is_visible() == bool(greyed)
            if greyed:
                listed = note.inner_text().split("players: ")[1].split(" (")[0]
                assert set(listed.split(", ")) == greyed
        # A choice that stops fitting falls back to expert; a count the rules lack is off.
        page.select_option("#rules", "classic")
        page.select_option("#players", "2")
        page.select_option("#opponent1", "ppo-classic-2p-long")
        page.select_option("#players", "3")
        assert page.locator("#opponent1").input_value() == "expert"
        page.select_option("#players", "6")
        page.select_option("#rules", "nines")
        assert page.locator("#players").input_value() == "2"
        assert page.locator("#players option[value='6']").is_disabled()
        # Seats count from 1, as many as the players.
        page.select_option("#players", "3")
        seats = page.locator("#seat option:not([disabled])")
        assert [seats.nth(k).inner_text() for k in range(seats.count())] == ["1", "2", "3"]
        page.select_option("#seat", label="2")
        page.select_option("#opponent1", "ppo-nines")
        page.select_option("#opponent2", "greedy")
        page.select_option("#baseline", "ppo-nines")
        click_and_wait(page, page.locator("#start"))
        names = page.locator("li.seat .who").all_inner_texts()
        assert names[0].startswith("ppo-nines (seat 1)") and names[1].startswith("You")
        assert names[2].startswith("greedy (seat 3)")
        # The table's rule set links its part of the rules page.
        click_and_wait(page, page.locator("#rules-link"))
        assert page.url.endswith("/rules#nines")
        section = page.locator("section#nines")
        assert section.is_visible() and "9: must be covered" in section.inner_text()


def test_a_replay_steps_forward_and_back_and_jumps_to_a_round(server, page):
    with screenshot_on_failure(page, "replay"):
        page.goto(server + "/")
        click_and_wait(page, page.get_by_role("link", name="Replays"))
        click_and_wait(page, page.get_by_role("link", name="classic-2p.jsonl"))
        counter = page.locator("#counter")
        assert counter.inner_text().startswith("step 1 / ")
        click_and_wait(page, page.locator("#next"))
        click_and_wait(page, page.locator("#next"))
        assert counter.inner_text().startswith("step 3 / ")
        picture = page.locator("#picture").inner_html()
        click_and_wait(page, page.locator("#back"))
        assert counter.inner_text().startswith("step 2 / ")
        assert page.locator("#picture").inner_html() != picture
        with page.expect_navigation():
            page.keyboard.press("ArrowRight")
        assert counter.inner_text().startswith("step 3 / ")
        with page.expect_navigation():
            page.keyboard.press("ArrowLeft")
        assert counter.inner_text().startswith("step 2 / ")
        page.select_option("#round-select", index=1)
        click_and_wait(page, page.locator("#jump-round"))
        assert "· round 2 ·" in counter.inner_text()
        assert "round 2 dealt by" in page.locator("#lines").inner_text()


def test_an_uploaded_record_opens_and_a_bad_one_is_refused(server, page, tmp_path):
    with screenshot_on_failure(page, "upload"):
        page.goto(server + "/replays")
        page.set_input_files(
            "#upload input[name=record]", str(ROOT / "tests/data/records/yard-2p.jsonl")
        )
        click_and_wait(page, page.locator("#upload button"))
        assert "yard-2p.jsonl · match 1 of 2" in page.locator("h1").inner_text()
        click_and_wait(page, page.locator("#last"))
        assert "match over" in page.locator("#to-act").inner_text()
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"type": "round"}\n', encoding="utf-8")
        page.goto(server + "/replays")
        page.set_input_files("#upload input[name=record]", str(bad))
        click_and_wait(page, page.locator("#upload button"))
        assert "bad.jsonl: line 1" in page.locator("#error").inner_text()


def test_the_ladder_opens_with_its_matrix_and_plots(server, page):
    with screenshot_on_failure(page, "ladder"):
        page.goto(server + "/")
        click_and_wait(page, page.get_by_role("link", name="Ladder"))
        assert page.locator("table.matrix").count() == 1
        assert "rollout" in page.locator("table.matrix").inner_text()
        assert page.locator("table.agents").count() == 2
        images = page.locator("#ladder img")
        assert images.count() == 2
        for index in range(images.count()):
            image = images.nth(index)
            image.scroll_into_view_if_needed()
            page.wait_for_function("(img) => img.complete", arg=image.element_handle())
            assert image.evaluate("(img) => img.naturalWidth") > 0
