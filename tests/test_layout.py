"""The package's shape (issue #17): no import cycles in pyshim/, the top level holds only the
entry points and packages, and the translator package stands alone.

Static (ast): every `import`/`from ... import` anywhere in a module counts, function-level
(lazy) imports included, since a lazy import hides a cycle without removing it."""

from __future__ import annotations

import ast
from pathlib import Path

from pyshim.paths import PACKAGE_DIR

TOP_LEVEL_FILES = {"__init__.py", "__main__.py", "cli.py", "paths.py"}


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for p in sorted(PACKAGE_DIR.rglob("*.py")):
        name, is_pkg = _module_name(p)
        out[name] = (p, is_pkg)
    return out


def _resolve(name: str, modules: dict) -> str | None:
    """The pyshim module `name` denotes (a function imported from a module: that module)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, (path, is_pkg) in modules.items():
        package = name if is_pkg else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                # `from pkg import mod` imports the module pkg.mod; `from mod import f`, mod
                wanted = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in modules else origin
                          for a in node.names]
            else:
                continue
            for w in wanted:
                if w == "pyshim" or w.startswith("pyshim."):
                    target = _resolve(w, modules)
                    if target and target != name:
                        targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
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
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return found


def test_no_import_cycles_in_pyshim() -> None:
    assert cycles(import_graph()) == []


def test_cycle_finder_finds_a_cycle() -> None:
    # the check above must be able to fail
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_top_level_holds_only_entry_points_and_packages() -> None:
    stray = []
    for p in sorted(PACKAGE_DIR.iterdir()):
        if p.name.startswith((".", "__pycache__")):
            continue
        if p.is_dir():
            if not (p / "__init__.py").is_file():
                stray.append(f"{p.name}/ (a folder that is not a package)")
        elif p.name not in TOP_LEVEL_FILES:
            stray.append(p.name)
    assert stray == [], f"pyshim/ top level: move these into a package: {stray}"


def test_the_translator_imports_nothing_outside_itself() -> None:
    """pyshim.ptx is a library: commands, builds and kernel loading use it, never the reverse."""
    outside = {f"{m} -> {t}" for m, targets in import_graph().items()
               if m.startswith("pyshim.ptx") for t in targets
               if not t.startswith("pyshim.ptx")}
    assert outside == set()


def test_every_command_module_exists() -> None:
    from pyshim.cli import COMMANDS

    modules = _modules()
    for name, (module, _help) in COMMANDS.items():
        assert module == f"pyshim.commands.{name}"
        assert module in modules, module
