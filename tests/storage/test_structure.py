"""storage's modules depend one way: no import cycle, not even through an import in a function."""

import ast
from pathlib import Path

import storage

ROOT = Path(storage.__file__).parent
MAX_LINES = 600
GENERATED = {"league_models.py", "clock_models.py", "tournament_models.py"}


def _imports(path: Path) -> set[str]:
    """Every storage module ``path`` imports, at any depth of the file (functions included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("storage"):
            if node.module == "storage":
                found.update(f"storage.{a.name}" for a in node.names)
            else:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("storage."))
    return found


def _graph() -> dict[str, set[str]]:
    return {f"storage.{p.stem}": _imports(p) for p in ROOT.glob("*.py") if p.stem != "__init__"}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_storage_has_no_import_cycle():
    assert _cycle(_graph()) is None


def test_the_cycle_check_sees_an_import_hidden_in_a_function(tmp_path):
    module = tmp_path / "leagues.py"
    module.write_text("def f():\n    from storage.events import get_event\n", encoding="utf-8")
    assert _imports(module) == {"storage.events"}
    graph = {"storage.leagues": _imports(module), "storage.events": {"storage.leagues"}}
    assert _cycle(graph) == ["storage.events", "storage.leagues", "storage.events"]


def test_no_storage_module_is_beyond_600_lines():
    long = {
        p.name: n
        for p in ROOT.glob("*.py")
        if p.name not in GENERATED
        and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
