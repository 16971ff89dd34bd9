"""The layers of docs/architecture.md hold in the code.

The floors come from the doc's layer table (its "Layers" section): where each floor's
modules live, which modules those are, which lower floors it imports, and which other
packages it may import. Every ``import`` of every module is read with ``ast``, those
inside functions and ``if TYPE_CHECKING:`` blocks included (and the modules named in
the package face's tables of lazy names), and checked against it:
nothing imports a floor above its own, the doc names exactly the floors each floor uses,
no modules import one another in a circle, and the engine's stages (``game/core``) are
entered only where the doc says. The package face is lazy: importing the engine loads
neither gymnasium nor pettingzoo (checked in a fresh interpreter).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "architecture.md"
PACKAGES = ("sto_odno_env", "agents", "train", "scripts", "lab")  # first-party code, tests aside


@dataclass(frozen=True)
class Floor:
    name: str
    rank: int  # 0 is the ground floor
    where: tuple[str, ...]  # folders (ending in /) and files, relative to the repository
    modules: frozenset[str] | None  # module names the doc lists; None: not listed one by one
    imports_from: frozenset[str]
    packages: frozenset[str] | None  # other packages allowed besides the standard library


@dataclass(frozen=True)
class Import:
    source: str  # dotted module of the importing file
    target: str  # dotted module imported (first-party), or a top-level package
    line: int
    first_party: bool


def ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def read_floors(doc: Path = DOC) -> list[Floor]:
    """The rows of the layer table, top floor first in the doc, as floors."""
    text = doc.read_text(encoding="utf-8")
    section = text.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    expected = ["Floor", "Where", "Modules", "Holds", "Imports from", "Other packages"]
    assert header == expected, f"the layer table's columns are {header}, not {expected}"
    body = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]
    floors = []
    for rank, cells in enumerate(reversed(body)):
        name, where, modules, _, imports_from, packages = cells
        floors.append(
            Floor(
                name=name.strip("*"),
                rank=rank,
                where=tuple(ticked(where)),
                modules=frozenset(ticked(modules)) if ticked(modules) else None,
                imports_from=frozenset(ticked(imports_from)),
                packages=None if packages == "any" else frozenset(ticked(packages)),
            )
        )
    return floors


def module_files(root: Path = REPO) -> dict[str, Path]:
    """dotted module -> file, for the first-party code under ``root``."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if "__pycache__" in path.parts or parts[:2] == ["lab", "tests"]:
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def read_imports(module: str, path: Path, known: set[str]) -> list[Import]:
    """Every import statement of a file, resolved to absolute names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            # a name that is a submodule is an import of that module
            targets = [
                f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin
                for a in node.names
            ]
        elif isinstance(node, ast.Assign) and module == "sto_odno_env":
            # the package face imports the modules of its name tables on first use
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if not names & {"_EXPORTS", "_MODULES"} or not isinstance(node.value, ast.Dict):
                continue
            targets = [v.value for v in node.value.values if isinstance(v, ast.Constant)]
        else:
            continue
        for target in targets:
            first_party = target.split(".")[0] in PACKAGES
            if first_party:
                while target not in known and "." in target:  # a.b.name -> a.b
                    target = target.rsplit(".", 1)[0]
            else:
                target = target.split(".")[0]
            if target != module:
                found.append(Import(module, target, node.lineno, first_party))
    return found


def floor_of(path: Path, floors: list[Floor], root: Path = REPO) -> Floor | None:
    relative = path.relative_to(root).as_posix()
    best, length = None, -1
    for floor in floors:
        for where in floor.where:
            hit = relative.startswith(where) if where.endswith("/") else relative == where
            if hit and len(where) > length:
                best, length = floor, len(where)
    return best


class Plan:
    """The code under ``root`` read against the floors."""

    def __init__(self, floors: list[Floor], root: Path = REPO):
        self.floors = {floor.name: floor for floor in floors}
        self.root = root
        self.files = module_files(root)
        self.floor = {m: floor_of(p, floors, root) for m, p in self.files.items()}
        known = set(self.files)
        self.imports = [i for m, p in self.files.items() for i in read_imports(m, p, known)]

    def unplaced(self) -> list[str]:
        return sorted(m for m, floor in self.floor.items() if floor is None)

    def upward(self) -> list[str]:
        found = []
        for i in self.imports:
            if not i.first_party or i.target not in self.floor:
                continue
            here, there = self.floor[i.source], self.floor[i.target]
            if here and there and there.rank > here.rank:
                found.append(
                    f"{self.files[i.source].relative_to(self.root)}:{i.line} (floor {here.name}) "
                    f"imports {i.target} (floor {there.name}, above it)"
                )
        return found

    def floors_used(self) -> dict[str, set[str]]:
        used: dict[str, set[str]] = {name: set() for name in self.floors}
        for i in self.imports:
            here, there = self.floor.get(i.source), self.floor.get(i.target)
            if i.first_party and here and there and there is not here:
                used[here.name].add(there.name)
        return used

    def other_packages(self) -> list[str]:
        found = []
        for i in self.imports:
            floor = self.floor.get(i.source)
            if i.first_party or floor is None or floor.packages is None:
                continue
            if i.target in sys.stdlib_module_names or i.target == "__future__":
                continue
            if i.target not in floor.packages:
                found.append(
                    f"{i.source}:{i.line} imports {i.target}; floor {floor.name} may import "
                    f"{', '.join(sorted(floor.packages)) or 'only the standard library'}"
                )
        return found

    def circles(self) -> list[list[str]]:
        """Every import circle, as one loop of modules each (Tarjan's components)."""
        graph: dict[str, set[str]] = {m: set() for m in self.files}
        for i in self.imports:
            if i.first_party and i.target in graph:
                graph[i.source].add(i.target)
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []

        def visit(node: str) -> None:
            index[node] = low[node] = len(index)
            stack.append(node)
            on_stack.add(node)
            for nxt in sorted(graph[node]):
                if nxt not in index:
                    visit(nxt)
                    low[node] = min(low[node], low[nxt])
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

        for node in sorted(graph):
            if node not in index:
                visit(node)
        return found


@pytest.fixture(scope="module")
def plan() -> Plan:
    return Plan(read_floors())


def test_the_table_has_the_floors_of_the_package() -> None:
    names = [floor.name for floor in read_floors()]
    package = ["tools", "game", "views", "records", "bots", "envs", "apps", "face"]
    assert [name for name in names if name in package] == package  # in this order, upward
    assert {"agents", "train", "scripts"} <= set(names)


def test_every_module_sits_on_a_floor(plan: Plan) -> None:
    assert not plan.unplaced(), f"modules on no floor of docs/architecture.md: {plan.unplaced()}"


def test_the_doc_lists_the_modules_of_each_floor_of_the_package(plan: Plan) -> None:
    # a floor's entries: the files of its folders (a subfolder as "name/") and its files
    for floor in plan.floors.values():
        if floor.modules is None:
            continue
        actual = set()
        for module, path in plan.files.items():
            if plan.floor[module] is not floor:
                continue
            relative = path.relative_to(REPO).as_posix()
            folders = [w for w in floor.where if w.endswith("/") and relative.startswith(w)]
            folder = folders[0] if folders else None
            if folder is None:
                actual.add(path.stem)
            elif "/" in relative[len(folder) :]:
                actual.add(relative[len(folder) :].split("/")[0] + "/")
            elif path.name != "__init__.py":
                actual.add(path.stem)
        assert actual == set(floor.modules), (
            f"floor {floor.name}: the doc lists {sorted(floor.modules)}, the code has "
            f"{sorted(actual)}"
        )


def test_no_import_points_upward(plan: Plan) -> None:
    assert not plan.upward(), "\n".join(plan.upward())


def test_the_doc_names_the_floors_each_floor_imports(plan: Plan) -> None:
    used = plan.floors_used()
    wrong = {
        name: (sorted(floor.imports_from), sorted(used[name]))
        for name, floor in plan.floors.items()
        if set(floor.imports_from) != used[name]
    }
    assert not wrong, "floor: (the doc says, the code imports): " + repr(wrong)


def test_no_import_circle(plan: Plan) -> None:
    assert not plan.circles(), f"modules importing each other in a circle: {plan.circles()}"


def test_each_floor_imports_only_the_packages_it_may(plan: Plan) -> None:
    assert not plan.other_packages(), "\n".join(plan.other_packages())


def paragraph(start: str) -> str:
    """The paragraph of docs/architecture.md that begins with ``start``."""
    text = DOC.read_text(encoding="utf-8")
    return text[text.index(start) :].split("\n\n", 1)[0]


def doc_path(module: str) -> str:
    """How the doc writes a module: relative to sto_odno_env/ inside the package."""
    path = module.replace(".", "/") + ".py"
    return path.removeprefix("sto_odno_env/")


def test_the_engine_stages_are_entered_where_the_doc_says(plan: Plan) -> None:
    said = paragraph("Modules that import `core/`")
    said = {name for name in ticked(said) if name.endswith(".py")}
    actual = {
        doc_path(i.source)
        for i in plan.imports
        if i.target.startswith("sto_odno_env.game.core")
        and not i.source.startswith("sto_odno_env.game.core")
    }
    assert actual == said, f"the doc names {sorted(said)}, the code has {sorted(actual)}"


def test_the_engine_stages_import_in_the_order_the_doc_gives(plan: Plan) -> None:
    text = DOC.read_text(encoding="utf-8")
    after = text[text.index("Inside `game/core/`") :]
    block = after.split("```text\n", 1)[1].split("```", 1)[0]
    order = [line.split()[0] for line in block.splitlines() if line.strip()]
    stages = {m.rsplit(".", 1)[-1] for m in plan.files if m.startswith("sto_odno_env.game.core.")}
    assert sorted(order) == sorted(stages)
    rank = {name: index for index, name in enumerate(order)}
    backwards = [
        f"{i.source} imports {i.target}"
        for i in plan.imports
        if i.source.startswith("sto_odno_env.game.core.")
        and i.target.startswith("sto_odno_env.game.core.")
        and rank[i.target.rsplit(".", 1)[-1]] >= rank[i.source.rsplit(".", 1)[-1]]
    ]
    assert not backwards, backwards


def defines(path: Path, dotted: str) -> bool:
    """Whether ``path`` defines ``dotted`` (``name`` or ``Class.attribute``) at its top."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    for part in dotted.split("."):
        found = None
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == part:
                found = node
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == part for t in targets):
                    found = node
        if found is None:
            return False
        body = getattr(found, "body", [])
    return True


def test_every_file_and_name_in_the_doc_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    floors = {"views", "records", "bots", "envs", "apps"}
    missing = []
    for file, name in re.findall(r"`([\w/]+\.py):([\w.]+)`", text):
        top = file.split("/")[0]
        base = REPO if top == "scripts" else REPO / "sto_odno_env"
        path = base / file if top in floors | {"scripts"} else base / "game" / file
        if not path.exists() or not defines(path, name):
            missing.append(f"{file}:{name}")
    assert not missing, f"docs/architecture.md names what the code does not have: {missing}"


BAD_PACKAGE = {
    "sto_odno_env/__init__.py": "",
    "sto_odno_env/game/__init__.py": "",
    "sto_odno_env/game/low.py": """
        import json

        def later():
            from sto_odno_env.envs import high  # lazily, and still upward
            import gymnasium
    """,
    "sto_odno_env/envs/__init__.py": "",
    "sto_odno_env/envs/high.py": "from ..game import low\nfrom . import other\n",
    "sto_odno_env/envs/other.py": "from .high import thing\n",
}


def test_the_checks_find_upward_imports_circles_and_packages(tmp_path: Path) -> None:
    for name, text in BAD_PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    floors = [
        Floor("game", 0, ("sto_odno_env/game/",), None, frozenset(), frozenset({"numpy"})),
        Floor("envs", 1, ("sto_odno_env/envs/", "sto_odno_env/__init__.py"), None,
              frozenset({"game"}), None),
    ]  # fmt: skip
    bad = Plan(floors, tmp_path)
    assert bad.upward() == [
        "sto_odno_env/game/low.py:5 (floor game) imports sto_odno_env.envs.high "
        "(floor envs, above it)"
    ]
    assert bad.circles() == [
        ["sto_odno_env.envs.high", "sto_odno_env.envs.other", "sto_odno_env.game.low"]
    ]
    assert bad.other_packages() == [
        "sto_odno_env.game.low:6 imports gymnasium; floor game may import numpy"
    ]
    assert bad.floors_used() == {"game": {"envs"}, "envs": {"game"}}


# --- the package face ------------------------------------------------------------------


def python(code: str) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter at the repository root."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_engine_and_the_face_load_without_gymnasium_or_pettingzoo() -> None:
    done = python(
        """
        import sys
        import sto_odno_env.game
        import sto_odno_env.game.engine, sto_odno_env.views.observation
        import sto_odno_env.records.record, sto_odno_env.bots.registry
        from sto_odno_env import LAYOUT, OBS_SIZE, Rules, init, load_rules, observe, step
        state = init(load_rules("classic"), 2, 4, seed=0)
        loaded = sorted({"gymnasium", "pettingzoo", "torch"} & set(sys.modules))
        print("loaded:", loaded)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded: []"


@pytest.mark.parametrize("first", ["sto_odno_env", "gymnasium"])
def test_the_envs_are_registered_whichever_is_imported_first(first: str) -> None:
    pytest.importorskip("gymnasium")
    other = "gymnasium" if first == "sto_odno_env" else "sto_odno_env"
    done = python(
        f"""
        import {first}
        import {other}
        import gymnasium, pettingzoo
        env = gymnasium.make("StoOdno-v0", players=2)
        vector = gymnasium.make_vec("StoOdno-v0", num_envs=2,
                                    vectorization_mode="vector_entry_point")
        aec = pettingzoo.make("aec", "sto_odno_v0", players=3)
        print(type(env.unwrapped).__name__, type(vector).__name__, aec.possible_agents)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["StoOdnoEnv", "StoOdnoVectorEnv"]
    assert "player_2" in done.stdout


def test_every_name_of_the_face_resolves() -> None:
    pytest.importorskip("gymnasium")
    import sto_odno_env

    for name in sto_odno_env.__all__:
        assert getattr(sto_odno_env, name) is not None, name
    assert {"StoOdnoEnv", "StoOdnoVectorEnv", "LearnerGames", "TableConfig"} <= set(
        sto_odno_env.__all__
    )
    assert "StoOdnoVecEnv" in dir(sto_odno_env)  # there, but not in * (it needs SB3)
    with pytest.raises(AttributeError, match="has no attribute 'engine_room'"):
        sto_odno_env.engine_room  # noqa: B018


COMMANDS = {
    "record": "records.record",
    "replay": "records.replay",
    "play": "apps.play",
    "web": "apps.web.__main__",
}


@pytest.mark.parametrize(("command", "program"), [*COMMANDS.items(), ("bench", "apps.bench")])
def test_the_command_modules_run_their_programs(command: str, program: str) -> None:
    # python -m sto_odno_env.<command> (the commands the README and docs write) runs the
    # program's main; subprocess runs of each are in the files of the programs
    import importlib

    entry = importlib.import_module(f"sto_odno_env.{command}")
    assert entry.main is importlib.import_module(f"sto_odno_env.{program}").main


def test_the_installed_scripts_name_the_programs() -> None:
    tomllib = pytest.importorskip("tomllib")
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert scripts == {
        f"sto-odno-{command}": f"sto_odno_env.{program}:main"
        for command, program in COMMANDS.items()
    }


def test_the_version_lives_in_one_place() -> None:
    tomllib = pytest.importorskip("tomllib")
    import sto_odno_env
    from sto_odno_env import _version

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "sto_odno_env._version.__version__"
    assert sto_odno_env.__version__ == _version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", _version.__version__)
