"""The integration's shape: no import cycle among its modules, and a loop that only coordinates."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "custom_components" / "overseer"
COORDINATOR_MAX_LINES = 250


def module_name(path: Path) -> str:
    """custom_components/overseer/core/tools.py -> core.tools; __init__.py -> its package."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Every module of the package this file imports, wherever the import stands (TYPE_CHECKING too)."""
    here = module_name(path).split(".") if module_name(path) else []
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
        target = [*base, *(node.module.split(".") if node.module else [])]
        for alias in node.names:
            candidate = ".".join([*target, alias.name])
            found.add(candidate if candidate in modules else ".".join(target))
    return {name for name in found if name in modules and name != module_name(path)}


def graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    paths = [path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts]
    modules = {module_name(path) for path in paths}
    return {module_name(path): imports_of(path, modules) for path in paths}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the list of modules around it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_sees_relative_and_type_checking_imports():
    edges = graph()
    assert "loop" in edges["sensor"]
    assert "core.tools" in edges["core.policy"]
    assert "providers" in edges["providers.ollama"]


def test_no_import_cycle_among_the_integrations_modules():
    assert find_cycle(graph()) is None


def test_the_loop_only_coordinates():
    lines = len((PACKAGE / "loop.py").read_text().splitlines())
    assert lines < COORDINATOR_MAX_LINES, f"loop.py has {lines} lines"
