"""During play, no page or JSON answer of the web table carries a card the human cannot know.

Across many matches (every preset, 2 to 4 players, bots and a trained policy, played by the
HTML forms and by the JSON API), every answer the server sends while a match is in play
is scanned for the cards the human's seat has never had access to: cards that were never
in its hand, never face up on the table, never stolen by or from it. Those are the cards
of the other hands and the stock; the test reads them from the server's own game state.
An answer fails if it names one (``Q♠``), draws its face (the picture code's card SVG), or
holds the match seed (which determines every deal). Every face drawn must be one the seat
may see: its hand and the top card. Legal-move ids must be the seat's own cards.
"""

from __future__ import annotations

import json
import random
import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("python_multipart")

from starlette.testclient import TestClient

from sto_odno_env.apps.web import svg
from sto_odno_env.apps.web.app import WebConfig, create_app
from sto_odno_env.apps.web.match import WebMatch
from sto_odno_env.game.cards import card_name
from sto_odno_env.records.stepping import SteppedMatch

# (rules, players, opponent) played by the API and by the forms; yard steals from a hand
# when the stock runs dry, ukrainian and classic 3-4 players have penalties and skips.
TABLES = [
    ("classic", 2, "random"),
    ("classic", 2, "expert"),
    ("classic", 3, "greedy"),
    ("classic", 4, "random"),
    ("classic", 2, "ppo-classic"),
    ("yard", 2, "random"),
    ("yard", 3, "expert"),
    ("nines", 2, "expert"),
    ("encyclopedia", 3, "random"),
    ("ukrainian", 4, "greedy"),
    ("steal.yaml", 5, "random"),  # five hands of seven leave no stock: every draw steals
]
STEAL = "base: classic\nname: steal\nplayers: [2, 5]\nhand_size: 7\nempty_stock: steal\n"
FACE = re.compile(r'width="38" height="54" rx="4" fill="#fffdf7"')  # a card face up


class Seen:
    """What the human's seat has had access to in one match, by round, collected from the
    server's state after every engine step: its hand (also as a round ended), the discard
    pile (every card in it was played face up), the cards played, cards stolen by or from
    it. A new deal makes the earlier rounds' knowledge moot for where the cards are now;
    an answer may still show what happened since the human's last decision (its log), so
    the cards the human may know are those of the rounds from that decision's on."""

    def __init__(self) -> None:
        self.by_round: dict[int, int] = {}  # round -> card mask
        self.round = 0  # the round at the last step
        self.last_round = 0  # the round of the human's last decision
        self.events = self.logged = self.steals = self.penalties = 0

    def add(self, round_: int, cards: int) -> None:
        self.by_round[round_] = self.by_round.get(round_, 0) | cards

    def known(self, now: int) -> int:
        mask = 0
        for round_ in range(self.last_round, now + 1):
            mask |= self.by_round.get(round_, 0)
        return mask


def _watch(monkeypatch) -> dict[int, Seen]:
    seen: dict[int, Seen] = {}
    take, play, gather = WebMatch._take, WebMatch.play, SteppedMatch._gather

    def watched_gather(self: SteppedMatch, before):
        self.deals_seen = list(self.chance.deals)  # before the match takes them
        return gather(self, before)

    def watched_take(self: WebMatch, events):
        record = seen.setdefault(id(self), Seen())
        for hands, _ in self.stepped.deals_seen:  # the hands a round ended with, before the deal
            record.add(record.round, hands[self.seat])
        take(self, events)
        state, round_ = self.state, record.round
        for event in self.record[record.events :]:
            if event["type"] == "round":
                round_ = event["round"]
            elif event["type"] == "steal":
                record.steals += 1
                if self.seat in (event["player"], event["from"]):
                    record.add(round_, 1 << event["card"])
            elif event["type"] == "action" and event["action"] < state.tables.deck.cards:
                record.add(round_, 1 << event["action"])  # a card played face up
        record.round = int(state.round[0])
        record.add(record.round, int(state.hand[0, self.seat]) | int(state.discard_bits[0]))
        record.penalties += sum(entry["kind"] == "draw" for entry in self.log[record.logged :])
        record.events, record.logged = len(self.record), len(self.log)

    def watched_play(self: WebMatch, action: int, move: int):
        if move == self.move and not self.over:
            seen[id(self)].last_round = int(self.state.round[0])
            seen[id(self)].logged = 0  # the log starts anew at the human's decision
        play(self, action, move)

    monkeypatch.setattr(SteppedMatch, "_gather", watched_gather)
    monkeypatch.setattr(WebMatch, "_take", watched_take)
    monkeypatch.setattr(WebMatch, "play", watched_play)
    return seen


def check(text: str, match: WebMatch, seen: Seen, view: dict) -> int:
    """Assert ``text`` (an answer sent during play) shows nothing the seat cannot know;
    return how many hidden cards were looked for."""
    deck = match.state.tables.deck
    known = seen.known(int(match.state.round[0]))
    hidden = [c for c in range(deck.cards) if not known >> c & 1]
    for card in hidden:
        name = card_name(card, deck)
        assert not re.search(rf"(?<![0-9]){re.escape(name)}", text), (name, text[:3000])
        assert svg.card_svg(card, deck) not in text, name
    assert str(match.seed) not in text
    faces = len(FACE.findall(text))
    assert faces <= len(view["hand"]) + (view["table"]["top"] is not None), faces
    hand = {
        card_name(c, deck)
        for c in range(deck.cards)
        if int(match.state.hand[0, match.seat]) >> c & 1
    }
    assert set(view["hand"]) == hand
    for move in view["legal"]:
        if move["kind"] == "card":
            assert card_name(move["action"], deck) in hand
    return len(hidden)


def shuffled_view(match: WebMatch, view: dict, rng: random.Random) -> bool:
    """Assert that the seat's view is the same when everything it cannot know is changed:
    the other hands and the stock dealt anew from their cards (each hand keeping its
    size), the match seed and the random stream changed. Return whether the hands
    changed (they do, unless one card is hidden)."""
    state, seat = match.state, match.seat
    cards = state.tables.deck.cards
    others = [p for p in range(state.players) if p != seat]
    pool = [c for p in others for c in range(cards) if int(state.hand[0, p]) >> c & 1]
    stock = int(state.stock_size[0])
    pool += [int(c) for c in state.stock[0, :stock]]
    rng.shuffle(pool)
    alternative = state.copy()
    start = 0
    for p in others:
        size = int(state.hand[0, p]).bit_count()
        alternative.hand[0, p] = sum(1 << c for c in pool[start : start + size])
        start += size
    alternative.stock[0, :stock] = pool[start:]
    alternative.seed[0] = rng.randrange(2**62)
    alternative.rng_key[0] = rng.randrange(2**64)
    alternative.rng_counter[0] = rng.randrange(2**32)
    match.stepped.state = alternative
    try:
        assert match.view(view["game"], view["baselines"]) == view
    finally:
        match.stepped.state = state
    return bool((alternative.hand != state.hand).any())


def test_no_answer_during_play_shows_a_card_the_seat_cannot_know(monkeypatch, tmp_path):
    seen = _watch(monkeypatch)
    (tmp_path / "steal.yaml").write_text(STEAL)
    app = create_app(WebConfig(rules_dir=tmp_path, allowed_hosts=("testserver",)))
    client = TestClient(app, raise_server_exceptions=False)
    store = app.state.store
    rng = random.Random(23)
    checked = answers = rich = views = changed = 0
    for round_ in range(2):
        for index, (rules, players, opponent) in enumerate(TABLES):
            by_form = (index + round_) % 2 == 0
            seat = rng.randrange(players)
            if by_form:
                response = client.post(
                    "/games",
                    data={"rules": rules, "players": players, "opponent1": opponent, "seat": seat},
                    follow_redirects=False,
                )
                assert response.status_code == 303
                game_id = response.headers["location"].rsplit("/", 1)[1]
                view = client.get(f"/api/games/{game_id}").json()
            else:
                body = {"rules": rules, "players": players, "opponents": opponent, "seat": seat}
                response = client.post("/api/games", json=body)
                assert response.status_code == 201
                view = response.json()
                game_id = view["game"]
            match = store.get(game_id).match
            record = seen[id(match)]
            texts = [response.text]
            stale_sent = False
            while not view["over"]:
                page = client.get(f"/games/{game_id}")
                texts += [page.text, json.dumps(view, ensure_ascii=False)]
                if not stale_sent:  # an error page shows the table too
                    stale = client.post(
                        f"/games/{game_id}/move", data={"action": "0", "move": view["move"] + 9}
                    )
                    assert stale.status_code == 409 and 'id="moves"' in stale.text
                    texts.append(stale.text)
                    stale_sent = True
                for text in texts:
                    hidden = check(text, match, record, view)
                    checked += hidden
                    rich += hidden >= 10
                    answers += 1
                views += 1
                changed += shuffled_view(match, view, rng)
                # mostly a card when one can be played: rounds as long as people play them
                cards = [m for m in view["legal"] if m["kind"] == "card"]
                move = rng.choice(cards if cards and rng.random() < 0.9 else view["legal"])
                if by_form:
                    response = client.post(
                        f"/games/{game_id}/move",
                        data={"action": move["action"], "move": view["move"]},
                        follow_redirects=False,
                    )
                    assert response.status_code == 303
                    view = client.get(f"/api/games/{game_id}").json()
                    texts = [response.text]
                else:
                    response = client.post(
                        f"/api/games/{game_id}/move",
                        json={"action": move["action"], "move": view["move"]},
                    )
                    assert response.status_code == 200
                    view = response.json()
                    texts = [response.text]
            assert view["result"] is not None
    records = list(seen.values())
    assert len(records) == 2 * len(TABLES)
    # Not a vacuous scan: thousands of answers, many against ten hidden cards or more (late
    # in a long round the seat has seen nearly every card once), views checked against
    # hidden cards dealt anew, and the matches had steals and penalty draws.
    assert answers > 1000 and rich > answers / 4, (answers, rich, checked)
    assert changed > 0.9 * views
    assert sum(r.steals for r in records) > 0
    assert sum(r.penalties for r in records) > 0


def test_the_scan_finds_a_card_of_another_hand(monkeypatch):
    """The check above fails on an answer that shows an opponent's card, by name or face."""
    seen = _watch(monkeypatch)
    app = create_app(WebConfig(allowed_hosts=("testserver",)))
    client = TestClient(app, raise_server_exceptions=False)
    view = client.post("/api/games", json={"opponents": "expert"}).json()
    match = app.state.store.get(view["game"]).match
    record = seen[id(match)]
    deck = match.state.tables.deck
    other = int(match.state.hand[0, 1])
    known = record.known(0)
    card = next(c for c in range(deck.cards) if other >> c & 1 and not known >> c & 1)
    assert check(json.dumps(view, ensure_ascii=False), match, record, view) > 0
    for leak in (card_name(card, deck), svg.card_svg(card, deck)):
        with pytest.raises(AssertionError):
            check(json.dumps(view, ensure_ascii=False) + leak, match, record, view)
    from sto_odno_env.views.picture import table_svg

    with pytest.raises(AssertionError):  # the whole table face up, as the replays draw it
        check(table_svg(match.state, view=None), match, record, view)
