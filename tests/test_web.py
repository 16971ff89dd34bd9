"""The web table through an in-process client (starlette's TestClient): whole matches over
the JSON API and the HTML forms, the record and the duplicate baseline, replays, the
ladder, and every kind of bad request answered with a clear 4xx (docs/web.md).

The hidden-information test is tests/test_web_hidden.py; the browser test
tests/test_web_browser.py; the server process (binding, signals) tests/test_web_cli.py.
"""

from __future__ import annotations

import html
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("python_multipart")

from starlette.testclient import TestClient

from agents import load as load_agent
from sto_odno_env.apps.web.app import MAX_FORM_BYTES, WebConfig, create_app
from sto_odno_env.bots import catalog
from sto_odno_env.game import engine
from sto_odno_env.game.rules import PRESETS, load_rules
from sto_odno_env.records.replay import RecordError, replay_lines
from sto_odno_env.views.observation import observe_one

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "tests" / "data" / "records"
LADDER = ROOT / "docs" / "ladder"
RECORD = "/replays/file/classic-2p.jsonl"
POLICY_PATH = "sto_odno_env/bots/policies/ppo-classic-2p-long.pt"  # a path, not a registry name


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_client(**settings) -> TestClient:
    config = WebConfig(
        records=settings.pop("records", RECORDS),
        results=settings.pop("results", LADDER),
        allowed_hosts=("testserver",),
        **settings,
    )
    return TestClient(create_app(config), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return make_client()


def new_game(client: TestClient, **fields) -> dict:
    response = client.post("/api/games", json={"opponents": "random", **fields})
    assert response.status_code == 201, response.text
    return response.json()


def play_out(client: TestClient, view: dict, rng: random.Random, limit: int = 3000) -> dict:
    """Random legal moves over the API until the match ends; checks each answer."""
    for _ in range(limit):
        if view["over"]:
            return view
        assert view["your_turn"] and len(view["legal"]) >= 2, view
        move = rng.choice(view["legal"])
        response = client.post(
            f"/api/games/{view['game']}/move", json={"action": move["action"], "move": view["move"]}
        )
        assert response.status_code == 200, response.text
        after = response.json()
        assert after["move"] == view["move"] + 1
        view = after
    raise AssertionError("the match did not end")


def test_a_whole_match_over_the_api_ends_with_a_record_the_replayer_opens(client, tmp_path):
    view = new_game(client, opponents="expert", players=3)
    assert view["players"] == 3 and view["seat"] == 0
    assert view["hand"] and len(view["hand"]) == view["seats"][0]["cards"]
    assert [s["name"] for s in view["seats"]] == ["You", "expert (seat 2)", "expert (seat 3)"]
    final = play_out(client, view, random.Random(1))
    result = final["result"]
    assert result["place"] in (1, 2, 3) and sorted(result["ranking"]) == [0, 1, 2]
    assert final["rounds"] and final["rounds"][-1]["totals"] == result["totals"]
    response = client.get(f"/games/{view['game']}/record.jsonl")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    assert replay_lines("download", response.text.splitlines()) == 1
    path = tmp_path / "match.jsonl"
    path.write_text(response.text, encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "sto_odno_env.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert checked.returncode == 0 and "1 match replay cleanly" in checked.stdout, checked
    header = json.loads(response.text.splitlines()[0])
    assert header["players"] == 3 and header["rules"]["name"] == "classic"
    # The record's round results are the page's.
    ends = [json.loads(line) for line in response.text.splitlines() if '"round_end"' in line]
    assert [e["totals"] for e in ends] == [r["totals"] for r in final["rounds"]]
    assert client.get(f"/api/games/{view['game']}/record").text == response.text


def test_the_html_table_plays_by_forms_and_shows_the_legal_moves(client):
    response = client.post(
        "/games",
        data={"rules": "classic", "players": "2", "opponent1": "greedy", "baseline": "expert"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    url = response.headers["location"]
    game_id = url.rsplit("/", 1)[1]
    page = client.get(url).text
    view = client.get(f"/api/games/{game_id}").json()
    # Each legal move is a submit button with its action id; the other cards are disabled.
    buttons = re.findall(r'<button type="submit" name="action" value="(\d+)"', page)
    assert sorted(int(b) for b in buttons) == sorted(m["action"] for m in view["legal"])
    assert page.count("disabled data-card=") == len(view["hand"]) - sum(
        m["kind"] == "card" for m in view["legal"]
    )
    assert f'name="move" value="{view["move"]}"' in page
    rng = random.Random(2)
    for _ in range(3000):
        if view["over"]:
            break
        move = rng.choice(view["legal"])
        response = client.post(
            f"{url}/move",
            data={"action": str(move["action"]), "move": str(view["move"])},
            follow_redirects=False,
        )
        assert response.status_code == 303 and response.headers["location"] == url
        view = client.get(f"/api/games/{game_id}").json()
    page = client.get(url).text
    assert 'id="result"' in page and "Match over" in page
    assert 'id="download"' in page
    # the baseline chosen at the start is on the finished page
    assert 'data-agent="expert"' in page
    assert view["result"]["lines"][-1] in page


def test_the_suit_is_asked_after_a_queen(client):
    """Play until the human plays a queen: the next page asks only for the suit."""
    rng = random.Random(3)
    for _ in range(40):
        view = new_game(client)
        while not view["over"]:
            queens = [m for m in view["legal"] if m["kind"] == "card" and m["card"][0] == "Q"]
            move = queens[0] if queens else rng.choice(view["legal"])
            after = client.post(
                f"/api/games/{view['game']}/move",
                json={"action": move["action"], "move": view["move"]},
            ).json()
            if queens and after["phase"] == "order":
                assert [m["kind"] for m in after["legal"]] == ["suit"] * 4
                assert after["prompt"].startswith("Name the suit")
                page = client.get(f"/games/{view['game']}").text
                assert page.count('class="move suit-button"') == 4
                choice = after["legal"][3]
                done = client.post(
                    f"/api/games/{view['game']}/move",
                    json={"action": choice["action"], "move": after["move"]},
                ).json()
                assert after["since"][0]["text"] == f"You: play {move['card']}"
                assert done["since"][0]["text"] == f"You: {choice['label']}"
                return
            view = after
    raise AssertionError("no queen was played in 40 matches")


def test_the_log_shows_what_each_opponent_did_penalty_draws_included(client):
    """Across matches, the log shows opponents' plays, their draws as counts, and
    penalties taken by either side; the human's own draws with the cards."""
    seen = {"play": False, "draw": False, "penalty_other": False, "penalty_mine": False}
    rng = random.Random(4)
    for _ in range(30):
        view = new_game(client, opponents="random")
        while not view["over"]:
            for entry in view["since"]:
                text = entry["text"]
                if entry["seat"] == 1 and ": play " in text:
                    seen["play"] = True
                if entry["seat"] == 1 and re.search(r": draw.* → 1 card$", text):
                    seen["draw"] = True
                if entry["kind"] == "draw" and entry["seat"] == 1:
                    assert re.fullmatch(
                        r"random \(seat 2\) takes \d+ cards? \(penalty( of \S+)?\)", text
                    )
                    seen["penalty_other"] = True
                if entry["kind"] == "draw" and entry["seat"] == 0:
                    assert re.fullmatch(r"You take \d+ cards? \(penalty( of \S+)?\): .+", text)
                    seen["penalty_mine"] = True
            view = client.post(
                f"/api/games/{view['game']}/move",
                json={"action": rng.choice(view["legal"])["action"], "move": view["move"]},
            ).json()
        if all(seen.values()):
            return
    raise AssertionError(f"not all kinds of log line were seen: {seen}")


def test_the_duplicate_baseline_plays_the_same_deals_with_the_bot_in_the_seat(client):
    view = new_game(client, opponents="greedy", seat=1)
    game = view["game"]
    response = client.post(f"/api/games/{game}/baseline", json={"agent": "expert"})
    assert response.status_code == 409 and "not over" in response.json()["error"]
    final = play_out(client, view, random.Random(5))
    record = client.get(f"/api/games/{game}/record").text.splitlines()
    header = json.loads(record[0])
    baseline = client.post(f"/api/games/{game}/baseline", json={"agent": "expert"}).json()
    # The same match seed, played by the engine with expert in seat 1 and the same agent
    # (a fresh greedy with the game's agent seed) in seat 0.
    rules = load_rules("classic")
    seed = header["seed"]
    trace = engine.Trace(1)
    state = engine.init(rules, 2, 1, seeds=[seed], trace=trace)
    agents = [load_agent("greedy", rules, 2), load_agent("expert", rules, 2)]
    while not state.done[0]:
        seat = int(state.current_player[0])
        action = agents[seat](observe_one(state, seat), state.legal[0])
        engine.step(state, np.array([action]), trace=trace)
    ranking = [int(p) for p in state.final_ranking[0]]
    assert baseline["place"] == ranking.index(1) + 1
    assert baseline["total"] == int(state.final_totals[0, 1])
    assert baseline["you"]["place"] == final["result"]["place"]
    assert baseline["difference"] == pytest.approx(final["result"]["reward"] - baseline["reward"])
    # ... on the same deals: every round both matches played was dealt the same deck.
    human_decks = [json.loads(line)["deck"] for line in record if '"type": "round"' in line]
    bot_decks = [e["deck"] for e in trace.matches[0] if e["type"] == "round"]
    common = min(len(human_decks), len(bot_decks))
    assert common >= 1 and human_decks[:common] == bot_decks[:common]
    page = client.get(f"/games/{game}").text
    assert 'data-agent="expert"' in page
    response = client.post(
        f"/games/{game}/baseline", data={"agent": "random"}, follow_redirects=False
    )
    assert response.status_code == 303
    assert len(client.get(f"/api/games/{game}").json()["baselines"]) == 2
    # A policy for six players has no baseline here: the reason, on the table.
    response = client.post(f"/games/{game}/baseline", data={"agent": "ppo-classic-6p"})
    assert response.status_code == 400 and 'id="result"' in response.text
    assert "plays classic at 6 players, not classic at 2" in html.unescape(response.text)
    response = client.post(f"/api/games/{game}/baseline", json={"agent": "ppo-classic-6p"})
    assert response.status_code == 400 and "at 6 players" in response.json()["error"]


def test_shipped_policies_play_and_a_policy_for_other_players_is_refused_by_name(client):
    view = new_game(client, opponents="ppo-classic-2p-long")
    assert view["names"][1] == "ppo-classic-2p-long (seat 2)"
    play_out(client, view, random.Random(6))
    response = client.post("/api/games", json={"opponents": "ppo-classic-2p-long", "players": 3})
    assert response.status_code == 400
    error = response.json()["error"]
    assert "'ppo-classic-2p-long'" in error and "3" in error and "/" not in error
    assert "plays classic at 2 players" in error


def test_the_options_give_each_policy_the_rules_and_counts_of_the_index(client):
    options = client.get("/api/options").json()
    agents = {a["name"]: a for a in options["agents"]}
    kinds = [a["kind"] for a in options["agents"]]
    assert kinds == sorted(kinds, key=["bot", "recommended", "policy"].index)  # aliases first
    assert [n for n, a in agents.items() if a["kind"] == "recommended"] == list(catalog.aliases())
    for alias, rules in catalog.aliases().items():
        entry = agents[alias]
        counts = list(catalog.index().recommended[rules])
        assert entry["rules"] == rules and entry["players"] == counts
        assert f"recommended {rules} policy, {counts[0]}–{counts[-1]} players" in entry["label"]
        assert entry["tables"] == {rules: counts}
    assert len(agents) == len(options["agents"])  # a name is offered once
    for name, card in catalog.policy_cards().items():
        if name in catalog.aliases():
            continue
        entry = agents[name]
        assert entry["kind"] == "policy" and entry["rules"] == card.rules
        assert entry["players"] == list(card.players)
        span = "–".join(dict.fromkeys(map(str, (card.players[0], card.players[-1]))))
        assert f"{card.rules}, {span} players" in entry["label"]
    assert agents["ppo-classic-first"]["players"] == [2, 3, 4, 5, 6]
    assert agents["expert"]["players"] is None and agents["expert"]["tables"] is None
    # The form carries the same: each policy option says where it can sit.
    page = client.get("/").text
    for name, entry in agents.items():
        option = re.search(rf'<option value="{re.escape(name)}"([^>]*)>([^<]*)<', page)
        assert html.unescape(option.group(2)) == entry["label"]
        if entry["tables"] is not None:
            tables = re.search(r'data-tables="([^"]*)"', option.group(1)).group(1)
            assert json.loads(html.unescape(tables)) == entry["tables"]
    assert '<a href="/rules"' in page


def test_a_policy_that_cannot_sit_at_the_table_is_refused_naming_what_is_allowed(client):
    response = client.post("/api/games", json={"rules": "classic", "opponents": "ppo-yard"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert "'ppo-yard' plays yard at 2–6 players, not classic at 2" in error
    allowed = error.split("allowed there: ")[1].split(", ")
    assert "expert" in allowed and "ppo-classic" in allowed and "ppo-classic-2p-long" in allowed
    assert "ppo-yard" not in allowed and "ppo-classic-6p" not in allowed
    response = client.post(
        "/api/games",
        json={"rules": "nines", "players": 4, "opponents": ["expert", "ppo-yard", "greedy"]},
    )
    assert response.status_code == 400 and "not nines at 4" in response.json()["error"]
    response = client.post(
        "/games",
        data={"rules": "classic", "players": "3", "opponent1": "ppo-classic-2p-long"},
        follow_redirects=False,
    )
    assert response.status_code == 400 and "not classic at 3" in html.unescape(response.text)
    response = client.post(
        "/games",
        data={"rules": "nines", "players": "2", "opponent1": "expert", "baseline": "ppo-classic"},
        follow_redirects=False,
    )
    assert response.status_code == 400
    assert "baseline 'ppo-classic' plays classic" in html.unescape(response.text)
    # The alias sits at every count its rule set has a policy for; the table's baseline
    # choice offers only what fits.
    response = client.post(
        "/games",
        data={"rules": "nines", "players": "3", "opponent1": "ppo-nines",
              "opponent2": "expert", "baseline": "ppo-nines"},
        follow_redirects=False,
    )  # fmt: skip
    assert response.status_code == 303
    game = response.headers["location"].rsplit("/", 1)[1]
    play_out(client, client.get(f"/api/games/{game}").json(), random.Random(8))
    page = client.get(f"/games/{game}").text
    assert 'data-agent="ppo-nines"' in page  # the baseline it asked for, played
    offered = re.findall(r'<option value="([^"]+)"', page)
    assert "ppo-nines" in offered and "expert" in offered
    assert "ppo-classic" not in offered and "ppo-yard" not in offered
    view = new_game(client, opponents="ppo-classic", players=6)
    assert view["names"][1:] == [f"ppo-classic (seat {p})" for p in range(2, 7)]


def test_variants_come_from_the_rules_dir_listing(tmp_path):
    (tmp_path / "stacked.yaml").write_text("base: classic\nname: stacked\nstacking: true\n")
    (tmp_path / "broken.yaml").write_text("base: nosuch\n")
    config = WebConfig(rules_dir=tmp_path, allowed_hosts=("testserver",))
    with _stderr() as captured:
        app = create_app(config)
    assert "broken.yaml left out" in captured.getvalue()
    client = TestClient(app, raise_server_exceptions=False)
    keys = [r["key"] for r in client.get("/api/options").json()["rules"]]
    assert "stacked.yaml" in keys and "broken.yaml" not in keys
    view = new_game(client, rules="stacked.yaml")
    assert view["rules"] == "stacked"
    response = client.post("/api/games", json={"rules": str(tmp_path / "stacked.yaml")})
    assert response.status_code == 400 and "unknown rules" in response.json()["error"]


class _stderr:
    """Captures sys.stderr."""

    def __enter__(self):
        import io

        self.saved, sys.stderr = sys.stderr, io.StringIO()
        return sys.stderr

    def __exit__(self, *exc):
        sys.stderr = self.saved


# --- replays and the ladder ------------------------------------------------------------------


def test_a_listed_record_steps_forward_and_back_and_jumps_to_a_round(client):
    listing = client.get("/api/records").json()
    assert "classic-2p.jsonl" in [r["name"] for r in listing]
    page = client.get("/replays").text
    assert 'href="/replays/file/classic-2p.jsonl"' in page
    url = "/replays/file/classic-2p.jsonl"
    first = client.get(url).text
    assert "step 1 / " in first
    steps = int(re.search(r"step 1 / (\d+)", first).group(1))
    second = client.get(url + "?match=1&step=2").text
    assert "step 2 / " in second and second != first
    assert re.search(r'id="back" href="[^"]*step=1"', second)
    assert re.search(r'id="next" href="[^"]*step=3"', second)
    # every hand face up: as many card faces as cards in the hands, plus the top card
    svg = re.search(r'<div class="picture" id="picture">(.*?)</div>', second, re.S).group(1)
    assert "card back" not in svg
    rounds = re.findall(r'<option value="(\d+)"', second)
    assert len(rounds) >= 2 and rounds[0] == "1"
    jumped = client.get(f"{url}?match=1&step={rounds[1]}").text
    assert f"step {rounds[1]} / {steps} · round 2" in jumped
    assert "round 2 dealt by" in jumped
    last = client.get(f"{url}?match=2&step=1")
    assert last.status_code == 200 and "match 2 of 2" in last.text


def test_an_upload_is_checked_as_the_replayer_checks_it(client):
    good = (RECORDS / "yard-2p.jsonl").read_bytes()
    response = client.post(
        "/replays", files={"record": ("mine.jsonl", good)}, follow_redirects=False
    )
    assert response.status_code == 303
    page = client.get(response.headers["location"])
    assert page.status_code == 200 and "mine.jsonl · match 1 of 2" in page.text
    assert client.get(response.headers["location"] + "?match=1&step=3").status_code == 200
    # A broken copy is refused with the replayer's own message for that file name.
    lines = good.decode().splitlines()
    for broken in (
        lines[:5],  # cut short
        [*lines[:3], lines[3].replace('"action": ', '"action": 1'), *lines[4:]],
        ["not json", *lines[1:]],
    ):
        text = "\n".join(broken) + "\n"
        with pytest.raises(RecordError) as expected:
            replay_lines("mine.jsonl", text.splitlines())
        response = client.post("/replays", files={"record": ("mine.jsonl", text.encode())})
        assert response.status_code == 400
        assert str(expected.value) in html.unescape(response.text)
        api = client.post("/api/replays?name=mine.jsonl", content=text.encode())
        assert api.status_code == 400 and api.json()["error"] == str(expected.value)
    api = client.post("/api/replays?name=ok.jsonl", content=good)
    assert api.status_code == 201 and api.json()["matches"] == 2


def test_the_ladder_shows_the_win_rate_matrix_the_ratings_and_the_plots(client):
    page = client.get("/ladder").text
    report = json.loads((LADDER / "classic-2p" / "results.json").read_text())
    row = report["head_to_head"][0]
    assert f"{row['win_rate']:.3f}" in page
    assert f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]" in page
    mirror = f"[{1 - row['ci_high']:.3f}, {1 - row['ci_low']:.3f}]"
    assert mirror in page  # the pair read from the other side
    for agent in report["agents"]:
        assert f"{agent['openskill_mu']:.2f} ± {agent['openskill_sigma']:.2f}" in page
    # Pairs of different opponents: no per-agent share beside the rating (it would rank
    # an agent by whom it met); a table of all four shows its shares.
    articles = page.split('<article class="result-file"')[1:]
    pairs = next(a for a in articles if "classic-2p" in a)
    table = next(a for a in articles if "classic-4p" in a)
    assert "first place" not in pairs and "do not compare" in pairs
    four = json.loads((LADDER / "classic-4p" / "results.json").read_text())
    assert "first place" in table and f"{four['agents'][0]['first_rate']:.3f}" in table
    plots = re.findall(r'<img src="(/ladder/\d+/winrates.png)"', page)
    assert len(plots) == 2
    image = client.get(plots[0])
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    data = client.get("/api/ladder").json()
    assert {r["name"] for r in data} == {"classic-2p", "classic-4p"}


def test_a_broken_results_file_is_listed_with_its_fault(tmp_path):
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "results.json").write_text(
        (LADDER / "classic-4p" / "results.json").read_text()
    )
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "results.json").write_text("{not json")
    client = make_client(results=tmp_path)
    response = client.get("/ladder")
    assert response.status_code == 200
    assert "bad/results.json:" in response.text and "rollout" in response.text


# --- bad requests ------------------------------------------------------------------------------


def test_every_bad_request_gets_a_clear_4xx(client):
    view = new_game(client)
    game = view["game"]
    actions = [m["action"] for m in view["legal"]]
    legal, illegal = actions[0], next(a for a in range(42) if a not in actions)
    big = b"x" * (MAX_FORM_BYTES + 1)
    api, page, turn = f"/api/games/{game}", f"/games/{game}", view["move"]
    form = {"content-type": "application/x-www-form-urlencoded"}
    multipart = {"content-type": "multipart/form-data; boundary=x"}
    cases = [
        ("get", "/games/nosuchgame", {}, 404, "unknown game"),
        ("get", "/api/games/nosuchgame", {}, 404, "unknown game"),
        ("post", "/api/games/nosuch/move", {"json": {"action": 1, "move": 0}}, 404, "unknown game"),
        ("post", f"{api}/move", {"json": {"action": illegal, "move": turn}}, 400, "illegal move"),
        ("post", f"{api}/move", {"json": {"action": 999, "move": turn}}, 400, "illegal move"),
        ("post", f"{api}/move", {"json": {"action": legal, "move": turn + 5}}, 409, "stale move"),
        (
            "post",
            f"{api}/move",
            {"json": {"action": "x", "move": 0}},
            400,
            "action must be a whole",
        ),
        (
            "post",
            f"{api}/move",
            {"json": {"action": True, "move": 0}},
            400,
            "action must be a whole",
        ),
        ("post", f"{api}/move", {"json": {"move": 0}}, 400, "action must be a whole number"),
        ("post", f"{api}/move", {"content": b"{not json"}, 400, "not JSON"),
        ("post", f"{api}/move", {"content": b"[1, 2]"}, 400, "JSON object"),
        ("post", f"{api}/move", {"content": big}, 413, "at most"),
        ("post", f"{page}/move", {"data": {"action": illegal, "move": turn}}, 400, "illegal move"),
        ("post", f"{page}/move", {"data": {"action": "1", "move": "99"}}, 409, "stale move"),
        ("post", f"{page}/move", {"content": big, "headers": form}, 413, "at most"),
        ("get", f"{page}/record.jsonl", {}, 409, "not over"),
        ("get", f"{api}/record", {}, 409, "not over"),
        ("post", f"{api}/baseline", {"json": {"agent": "expert"}}, 409, "not over"),
        ("post", f"{api}/baseline", {"json": {"agent": "nosuch"}}, 400, "unknown agent"),
        ("post", "/api/games", {"json": {"rules": "nosuch"}}, 400, "unknown rules"),
        ("post", "/api/games", {"json": {"rules": "../pyproject.toml"}}, 400, "unknown rules"),
        ("post", "/api/games", {"json": {"players": 7}}, 400, "players must be 2..6"),
        ("post", "/api/games", {"json": {"rules": "nines", "players": 6}}, 400, "nines"),
        (
            "post",
            "/api/games",
            {"json": {"players": 2, "seat": 2}},
            400,
            "seat (0-based) must be 0..1",
        ),
        ("post", "/api/games", {"json": {"opponents": "nosuch"}}, 400, "unknown agent"),
        ("post", "/api/games", {"json": {"opponents": POLICY_PATH}}, 400, "unknown agent"),
        (
            "post",
            "/api/games",
            {"json": {"opponents": "rollout:samples=9999"}},
            400,
            "unknown agent",
        ),
        ("post", "/api/games", {"json": {"opponents": ["expert"] * 2}}, 400, "2 opponents for 1"),
        ("post", "/api/games", {"json": {"opponents": 3}}, 400, "opponents must be"),
        ("post", "/games", {"data": {"players": "two"}}, 400, "players must be a whole number"),
        ("post", "/games", {"data": {"baseline": "nosuch"}}, 400, "unknown baseline agent"),
        (
            "post",
            "/games",
            {"data": {"baseline": "ppo-classic-6p"}},
            400,
            "baseline 'ppo-classic-6p'",
        ),
        ("get", "/replays/file/nosuch.jsonl", {}, 404, "no record"),
        ("get", "/replays/file/../../pyproject.toml", {}, 404, None),
        ("get", "/replays/file/%2E%2E%2F%2E%2E%2Fpyproject.toml", {}, 404, None),
        ("get", "/replays/file/%2Fetc%2Fpasswd", {}, 404, "no record"),
        ("get", "/replays/file/README.md", {}, 404, "no record"),
        ("get", f"{RECORD}?step=abc", {}, 400, "step must be a whole number"),
        ("get", f"{RECORD}?step=0", {}, 400, "step must be >= 1"),
        ("get", f"{RECORD}?step=100000", {}, 404, "steps 1.."),
        ("get", f"{RECORD}?match=3", {}, 404, "holds matches 1..2"),
        ("get", "/replays/upload/nosuch", {}, 404, "unknown upload"),
        ("post", "/replays", {"files": {"record": ("x.jsonl", b"")}}, 400, "empty"),
        ("post", "/replays", {"files": {"record": ("x.jsonl", b"\xff\xfe")}}, 400, "not UTF-8"),
        ("post", "/replays", {"files": {"other": ("x.jsonl", b"{}")}}, 400, "no file"),
        ("post", "/replays", {"data": {"record": "text"}}, 400, "multipart"),
        ("post", "/replays", {"content": b"--x\r\nbroken", "headers": multipart}, 400, None),
        ("post", "/api/replays", {"content": b"not json\n"}, 400, "line 1: not valid JSON"),
        ("get", "/ladder/99/winrates.png", {}, 404, "no plot"),
        ("get", "/ladder/0/results.json", {}, 404, "no plot"),
        ("get", "/ladder/0/..%2F..%2Fpyproject.toml", {}, 404, None),
        ("get", "/nosuchpage", {}, 404, "no page"),
        ("put", "/games", {}, 405, "method not allowed"),
        ("get", "/", {"headers": {"host": "evil.example"}}, 400, "Invalid host"),
    ]
    for method, url, kwargs, status, text in cases:
        response = getattr(client, method)(url, **kwargs)
        assert response.status_code == status, (url, kwargs, response.status_code, response.text)
        assert "Traceback" not in response.text
        if text is not None:
            assert text in html.unescape(response.text), (url, response.text)
        if url.startswith("/api/") and status != 405:
            assert response.json()["error"]
    # None of them changed the game.
    assert client.get(f"/api/games/{game}").json() == view


def test_an_oversized_upload_is_refused_before_it_is_read():
    client = make_client(max_upload_bytes=2048)
    data = (RECORDS / "classic-2p.jsonl").read_bytes()
    assert len(data) > 4096
    response = client.post("/replays", files={"record": ("big.jsonl", data)})
    assert response.status_code == 413 and "at most" in response.text
    response = client.post("/api/replays", content=data)
    assert response.status_code == 413 and "at most 2048" in response.json()["error"]


def test_a_move_after_the_match_is_refused(client):
    view = play_out(client, new_game(client), random.Random(7))
    response = client.post(
        f"/api/games/{view['game']}/move", json={"action": 40, "move": view["move"]}
    )
    assert response.status_code == 409 and "match is over" in response.json()["error"]


def test_pages_carry_security_headers_and_are_not_cached(client):
    response = client.get("/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "no-store"
    assert "no-store" not in client.get("/static/web.css").headers.get("cache-control", "")


# --- ids, expiry, memory -------------------------------------------------------------------


def test_game_ids_are_unguessable():
    client = make_client()
    ids = {new_game(client)["game"] for _ in range(50)}
    assert len(ids) == 50
    for game_id in ids:
        assert re.fullmatch(r"[A-Za-z0-9_-]{24}", game_id)  # 144 random bits


def test_idle_games_expire_and_the_number_of_games_is_bounded():
    clock = Clock()
    config = WebConfig(max_games=5, idle_minutes=10, allowed_hosts=("testserver",))
    app = create_app(config, clock=clock)
    client = TestClient(app, raise_server_exceptions=False)
    store = app.state.store
    first = new_game(client)["game"]
    clock.now += 9 * 60
    assert client.get(f"/api/games/{first}").status_code == 200  # seen: its clock restarts
    clock.now += 9 * 60
    assert client.get(f"/api/games/{first}").status_code == 200
    clock.now += 11 * 60
    response = client.get(f"/api/games/{first}")
    assert response.status_code == 404 and "10 minutes" in response.json()["error"]
    assert len(store) == 0
    games = [new_game(client)["game"] for _ in range(8)]
    assert len(store) == 5  # the three seen least recently were dropped
    assert [client.get(f"/api/games/{g}").status_code for g in games] == [404] * 3 + [200] * 5


def test_idle_uploads_expire_and_the_number_of_uploads_is_bounded():
    from sto_odno_env.apps.web.games import RequestError
    from sto_odno_env.apps.web.replays import Replays

    clock = Clock()
    replays = Replays(None, max_uploads=3, idle_seconds=600, clock=clock)
    data = (RECORDS / "yard-2p.jsonl").read_bytes()
    first = replays.add_upload("first.jsonl", data).id
    clock.now += 9 * 60
    assert replays.upload(first).name == "first.jsonl"  # seen: its clock restarts
    clock.now += 9 * 60
    assert replays.upload(first).name == "first.jsonl"
    clock.now += 11 * 60
    with pytest.raises(RequestError, match="kept for 10 minutes") as gone:
        replays.upload(first)
    assert gone.value.status == 404
    uploads = [replays.add_upload(f"{k}.jsonl", data).id for k in range(5)]
    replays.upload(uploads[2])  # seen last: kept when the next one comes
    uploads.append(replays.add_upload("5.jsonl", data).id)
    kept = [u.name for u in replays._uploads.values()]
    assert sorted(kept) == ["2.jsonl", "4.jsonl", "5.jsonl"]


def test_the_rules_page_shows_each_offered_rule_set_from_its_tables(tmp_path):
    from sto_odno_env.views.text import rules_reminder

    (tmp_path / "stacked.yaml").write_text("base: classic\nname: stacked\nstacking: true\n")
    client = TestClient(create_app(WebConfig(rules_dir=tmp_path, allowed_hosts=("testserver",))))
    home = client.get("/").text
    assert '<a href="/rules" id="rules-link">' in home and "docs/rules.md</" not in home
    page = client.get("/rules")
    assert page.status_code == 200
    text = html.unescape(page.text)
    for key in [*PRESETS, "stacked.yaml"]:
        rules = client.app.state.catalog.rules[key]
        section = text.split(f'<section class="panel rule-set" id="{key}">')[1].split("</section>")[
            0
        ]
        for line in rules_reminder(rules):
            assert f"<li>{line}</li>" in section
        low, high = rules.players
        assert f"{low}–{high} players, {rules.hand_size} cards each" in section
        ranks = re.findall(
            r"<th>([^<]+)</th>", section.split('class="points"')[1].split("</table>")[0]
        )
        values = re.findall(
            r"<td>(-?\d+)</td>", section.split('class="points"')[1].split("</table>")[0]
        )
        assert dict(zip(ranks, map(int, values), strict=True)) == rules.to_dict()["points"]
    assert "<th>stacking</th><td>yes</td>" in text.split('id="stacked.yaml"')[1]
    # The table links its rule set's section.
    view = new_game(client, rules="stacked.yaml")
    assert 'href="/rules#stacked.yaml"' in client.get(f"/games/{view['game']}").text
