"""``ppo-<rules>`` plays the best measured policy at every table, from one index.

The index (``sto_odno_env/bots/policies/index.yaml``, read by
:mod:`sto_odno_env.bots.catalog`) names the files that ship and the one each rule set's
name loads at each player count; the strength data in ``lab/strength/strength.json``
justifies every choice; no user-facing file names a policy that no longer ships.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

import agents
from sto_odno_env.bots import catalog
from sto_odno_env.bots.registry import SHIPPED, AgentError
from sto_odno_env.game.rules import PRESETS, load_rules
from tests.helpers import needs

REPO = Path(__file__).resolve().parents[1]
STRENGTH = REPO / "lab" / "strength" / "strength.json"
ARCHIVE = REPO / "lab" / "policies"


def strength_rows() -> list[dict]:
    return json.loads(STRENGTH.read_text(encoding="utf-8"))["rows"]


def test_every_shipped_file_is_in_the_index_and_every_card_has_its_file() -> None:
    # A policy is a trained network (.pt) or a table solved exactly (.npz, bots/tabular.py).
    weights = (".pt", ".npz")
    files = {path.stem for path in catalog.POLICY_DIR.iterdir() if path.suffix in weights}
    assert files == set(catalog.policy_cards()) == set(SHIPPED)
    # Only the weights and the index ship: training records and configs stay in the lab.
    assert {p.name for p in catalog.POLICY_DIR.iterdir() if p.suffix not in weights} <= {
        "index.yaml",
        "__pycache__",
    }


def test_every_preset_has_a_recommended_policy_at_every_count_it_allows() -> None:
    recommended = catalog.index().recommended
    for preset in PRESETS:
        rules = load_rules(preset)
        low, high = rules.players
        allowed = tuple(range(low, high + 1))
        if preset in recommended:
            assert catalog.served_counts(f"ppo-{preset}") == allowed, preset
            continue
        # A rule set the index recommends no PPO policy for (micro: its agent is the exact
        # solution, cfr-micro) must still ship a policy of its own at every count it allows.
        served = {
            n for c in catalog.policy_cards().values() if c.rules == preset for n in c.players
        }
        assert tuple(sorted(served)) == allowed, f"{preset}: no shipped policy at some count"


def test_each_recommended_file_is_the_best_measured_against_experts() -> None:
    best: dict[tuple[str, int], tuple[float, str]] = {}
    bots = ("search", "rollout", "expert", "greedy", "random")
    for row in strength_rows():
        if row["against"] != "expert" or row["policy"].partition(":")[0] in bots:
            continue
        key = (row["rules"], row["players"])
        best[key] = max(best.get(key, (-1.0, "")), (row["rate"], row["policy"]))
    for rules, choices in catalog.index().recommended.items():
        for players, name in choices.items():
            assert (rules, players) in best, f"no strength row for {rules} at {players} players"
            assert best[(rules, players)][1] == name, (rules, players, best[(rules, players)])


@needs("torch")
@pytest.mark.parametrize("preset", PRESETS)
def test_the_rule_set_name_loads_the_recommended_file_at_every_count(preset: str) -> None:
    for players in catalog.served_counts(f"ppo-{preset}"):
        agent = agents.load(f"ppo-{preset}", preset, players)
        expected = catalog.policy_cards()[agents.recommended(preset, players)].path
        assert Path(agent.path) == expected, (preset, players)


@needs("torch")
def test_a_rule_set_name_without_a_count_or_at_a_count_it_does_not_serve_is_refused() -> None:
    with pytest.raises(AgentError, match=r"give the player count \(2–6\)"):
        agents.load("ppo-classic", "classic")
    with pytest.raises(AgentError, match="nines is played by 2–4 players, not 5"):
        agents.load("ppo-nines", "nines", 5)
    with pytest.raises(AgentError, match="takes no parameters"):
        agents.load("ppo-classic:samples=3", "classic", 2)
    # A specific file still loads by its own name, and only where it fits.
    assert Path(agents.load("ppo-classic-first", "classic", 6).path).stem == "ppo-classic-first"
    with pytest.raises(AgentError, match="ppo-classic-6p"):
        agents.load("ppo-classic-6p", "classic", 4)


@needs("torch")
def test_an_archived_policy_loads_by_path() -> None:
    path = ARCHIVE / "ppo-classic-mix.pt"
    assert Path(agents.load(str(path), "classic", 4).path) == path


def test_a_bad_index_is_refused_naming_the_fault(tmp_path: Path) -> None:
    data = yaml.safe_load(catalog.INDEX.read_text(encoding="utf-8"))
    data["recommended"]["nines"][5] = "ppo-nines"
    with pytest.raises(catalog.PolicyIndexError, match="nines at 5 players is 'ppo-nines'"):
        catalog.parse_index(data)
    data = yaml.safe_load(catalog.INDEX.read_text(encoding="utf-8"))
    with pytest.raises(catalog.PolicyIndexError, match=r"has no file ppo-classic-2p-long\.pt"):
        catalog.parse_index(data, policy_dir=tmp_path)


# Files a user reads or runs: they name only what ships (an archived policy only by its
# path under lab/policies/). The lab and the changelog keep the names of their day.
USER_FACING = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    *sorted((REPO / "notebooks").glob("*.ipynb")),
    *sorted((REPO / "configs").rglob("*.yaml")),
    *(
        path
        for folder in ("sto_odno_env", "agents", "train", "scripts")
        for path in sorted((REPO / folder).rglob("*"))
        if path.suffix in (".py", ".html", ".js", ".yaml") and "__pycache__" not in path.parts
    ),
]


def test_no_user_facing_file_names_an_archived_policy() -> None:
    archived = sorted(path.stem for path in ARCHIVE.glob("*.pt"))
    assert archived, "the lab keeps the archived policies"
    name = re.compile(rf"(?<![\w/-])({'|'.join(map(re.escape, archived))})(?![\w-])")
    found = []
    for path in USER_FACING:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(REPO)}:{number}: {m}" for m in name.findall(line)]
    assert not found, "archived policies named where users read: " + "; ".join(found)


def test_count_span_writes_a_run_as_a_span_and_other_counts_as_a_list():
    assert catalog.count_span([6]) == "6"
    assert catalog.count_span((2, 3, 4, 5, 6)) == "2–6"
    assert catalog.count_span([5, 3]) == "3, 5"  # not a run: 4 is not served
