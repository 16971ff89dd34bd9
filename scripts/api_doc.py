"""The generated tables of docs/api.md, from the code.

    python scripts/api_doc.py           rewrite the generated parts of docs/api.md
    python scripts/api_doc.py --check   exit 1 if docs/api.md differs from the code

Each generated part sits between ``<!-- begin generated: NAME -->`` and
``<!-- end generated: NAME -->``; everything else in docs/api.md is written by hand.
``tests/test_api_doc.py`` runs the check.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sto_odno_env.game import engine  # noqa: E402
from sto_odno_env.game.cards import (  # noqa: E402
    CALL,
    DRAW,
    MAX_ACTIONS,
    NUM_RANKS,
    ORDER_BASE,
    PASS,
    PHASE_NAMES,
    RANK_NAMES,
    SUIT_SYMBOLS,
    action_name,
    card_id,
)
from sto_odno_env.tools import docblocks  # noqa: E402
from sto_odno_env.views import observation  # noqa: E402

API_DOC = REPO / "docs" / "api.md"


def layout_meanings() -> dict[str, str]:
    """The meaning of each observation field, from the table in observation.py's docstring."""
    doc = observation.__doc__
    rules = [m.start() for m in re.finditer(r"^=+ +=+ +=+$", doc, re.MULTILINE)]
    body = doc[doc.index("\n", rules[1]) + 1 : rules[2]]
    meanings: dict[str, str] = {}
    name = None
    for line in body.splitlines():
        parts = line.split()
        if parts and parts[0] in observation.LAYOUT:
            name = parts[0]
            meanings[name] = " ".join(parts[2:])
        elif name and line.strip():
            meanings[name] += " " + line.strip()
    return meanings


def layout_table() -> str:
    meanings = layout_meanings()
    kinds = {name: kind for name, _, kind in observation._FIELDS}
    rows = [
        "| field | slice | size | kind | meaning |",
        "|---|---|---|---|---|",
    ]
    for name, part in observation.LAYOUT.items():
        rows.append(
            f"| `{name}` | {part.start}:{part.stop} | {part.stop - part.start} | {kinds[name]} "
            f"| {meanings[name]} |"
        )
    rows.append(f"| | | **{observation.OBS_SIZE}** | | float32 in all |")
    return "\n".join(rows)


def actions_table() -> str:
    header = "| suit | " + " | ".join(RANK_NAMES) + " |"
    rows = [header, "|---" * (NUM_RANKS + 1) + "|"]
    for suit, symbol in enumerate(SUIT_SYMBOLS):
        cells = [f"{card_id(suit, rank)}" for rank in range(NUM_RANKS)]
        rows.append(f"| {symbol} | " + " | ".join(cells) + " |")
    rows += ["", "| id | action |", "|---|---|"]
    rows.append(f"| 0–{ORDER_BASE - 1} | play the card (table above) |")
    for action in range(ORDER_BASE, MAX_ACTIONS):
        note = {
            DRAW: " (also: accept a stacked penalty)",
            PASS: "",
            CALL: " (only with `last_card_call`: `Discrete(43)`)",
        }.get(action, "")
        rows.append(f"| {action} | {action_name(action)}{note} |")
    return "\n".join(rows)


def phases_table() -> str:
    rows = ["| code | phase |", "|---|---|"]
    rows += [f"| {code} | `{name}` |" for code, name in enumerate(PHASE_NAMES)]
    return "\n".join(rows)


ENGINE_FUNCTIONS: list[tuple[str, Callable]] = [
    ("engine.init", engine.init),
    ("engine.step", engine.step),
    ("engine.legal_mask", engine.legal_mask),
    ("engine.num_actions", engine.num_actions),
    ("engine.sample_actions", engine.sample_actions),
    ("engine.reset_games", engine.reset_games),
    ("engine.refresh_legal", engine.refresh_legal),
    ("engine.hand_points", engine.hand_points),
    ("observation.observe", observation.observe),
    ("observation.observe_one", observation.observe_one),
    ("observation.obs_size", observation.obs_size),
    ("observation.layout", observation.layout),
]


def _first_sentence(function: Callable) -> str:
    doc = inspect.getdoc(function) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    # docstrings cite the rules as docs/rules.md; in docs/ that is rules.md
    return paragraph.replace("|", "\\|").replace("docs/rules.md", "rules.md")


def engine_table() -> str:
    rows = ["| function | arguments | what it does |", "|---|---|---|"]
    for name, function in ENGINE_FUNCTIONS:
        arguments = ", ".join(inspect.signature(function).parameters)
        rows.append(f"| `{name}` | `{arguments}` | {_first_sentence(function)} |")
    return "\n".join(rows)


def state_table() -> str:
    """The public fields of State, from the comments in core/state.py."""
    from sto_odno_env.game.core import state as state_module

    source = inspect.getsource(state_module.State)
    public = source.split("# public", 1)[1].split("# match bookkeeping", 1)[0]
    rows = ["| field | shape, dtype and meaning |", "|---|---|"]
    for line in public.splitlines():
        match = re.match(r"\s+(\w+): np\.ndarray\s+#\s*(.*)", line)
        if match:
            rows.append(f"| `{match.group(1)}` | {match.group(2)} |")
    return "\n".join(rows)


TABLES: dict[str, Callable[[], str]] = {
    "layout": layout_table,
    "actions": actions_table,
    "phases": phases_table,
    "engine": engine_table,
    "state": state_table,
}


def render(text: str) -> str:
    """``text`` with every generated block rewritten from the code."""
    found = docblocks.blocks(text)
    unknown = [name for name in found if name not in TABLES]
    if unknown:
        raise KeyError(f"docs/api.md: unknown generated block {unknown[0]!r}")
    missing = set(TABLES) - set(found)
    if missing:
        raise KeyError(f"docs/api.md lacks the generated blocks {sorted(missing)}")
    for name in found:
        text = docblocks.replace_block(text, name, TABLES[name](), "docs/api.md")
    return text


def main(argv: list[str]) -> int:
    text = API_DOC.read_text(encoding="utf-8")
    wanted = render(text)
    if "--check" in argv:
        if wanted != text:
            print("docs/api.md differs from the code: run python scripts/api_doc.py")
            return 1
        print("docs/api.md matches the code")
        return 0
    API_DOC.write_text(wanted, encoding="utf-8")
    print("wrote docs/api.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
