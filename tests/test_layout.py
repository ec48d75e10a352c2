"""One namespace, no import circles, nobody imports the command line.

Every package installs under ``hakam`` (the folders stay at the root: engine/, vision/, gui/,
datasets/, training/); ``import datasets`` must reach the machine-learning library of that name,
never ours. The module graph counts every import, at the top of a module or inside a function:
an import deferred into a function is still a dependency, and a circle of them is one design.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "hakam": ROOT / "hakam",
    "hakam.engine": ROOT / "engine",
    "hakam.vision": ROOT / "vision",
    "hakam.gui": ROOT / "gui",
    "hakam.datasets": ROOT / "datasets",
    "hakam.training": ROOT / "training",
    "hakam.board": ROOT / "board",
}
SCRIPTS = {"benchmarks": ROOT / "benchmarks"}  # run from the repository, never installed


def modules(scripts: bool = False) -> dict[str, Path]:
    """Every module of ours by its installed name (with ``scripts``, the benchmarks too)."""
    found: dict[str, Path] = {}
    for package, folder in {**PACKAGES, **(SCRIPTS if scripts else {})}.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            if package == "hakam" and len(parts) and parts[0] in {"engine", "vision", "gui"}:
                continue  # never: those live in their own folders
            found[name] = path
    return found


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """Our modules that ``name`` imports anywhere in its text (the module, not the package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                out.add(target)
    return out


def graph(scripts: bool = False) -> dict[str, set[str]]:
    found = modules(scripts)
    known = set(found)
    return {name: imports_of(path, name, known) for name, path in found.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_circle_finder_finds_a_circle_through_three_modules():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_among_our_modules_and_benchmarks():
    assert circles(graph(scripts=True)) == []


def test_no_package_imports_the_command_line():
    for name, deps in graph().items():
        if name == "hakam.__main__" or name.startswith("hakam.cli"):
            continue
        assert not {d for d in deps if d == "hakam.cli" or d.startswith("hakam.cli.")}, name


def test_the_engine_imports_only_the_standard_library_and_itself():
    for name, path in modules().items():
        if not name.startswith("hakam.engine"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                tops = [node.module or ""]
            else:
                continue
            for top in tops:
                if top.startswith("hakam."):
                    assert top.startswith(("hakam.engine", "hakam.errors")), (name, top)
                else:
                    assert top.split(".")[0] in sys.stdlib_module_names, (name, top)


def test_every_folder_of_ours_is_listed_in_pyproject():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for package, folder in PACKAGES.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            name = ".".join([package, *parts])
            assert f'"{name}"' in text, f"{name} is not installed (pyproject.toml packages)"


@pytest.mark.slow
def test_installed_hakam_owns_no_top_level_name_but_hakam(tmp_path):
    """Outside the repository (so the folders are not on the path) only ``hakam`` imports."""
    code = (
        "import importlib.util, sys\n"
        "for name in ('engine', 'vision', 'gui', 'training'):\n"
        "    assert importlib.util.find_spec(name) is None, name\n"
        "spec = importlib.util.find_spec('datasets')\n"
        "assert spec is None or 'hakam' not in str(spec.origin), spec\n"
        "import hakam.engine.referee, hakam.vision.pipeline, hakam.gui.models\n"
        "import hakam.datasets.scene, hakam.training.evaluation\n"
        "print('ok')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
    help_run = subprocess.run(
        [sys.executable, "-m", "hakam", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert help_run.returncode == 0 and "usage: hakam" in help_run.stdout, help_run.stderr
