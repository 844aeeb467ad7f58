import ast
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rulings
import rulings.errors

SUB_PACKAGES = (
    "rulings.clock",
    "rulings.league",
    "rulings.poker",
    "rulings.rulebook",
    "rulings.tournament",
)


def _isort_style(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions; each alphabetical.
    if name.isupper():
        return (0, name)
    return (1, name) if name[0].isupper() else (2, name)


def test_rulings_all_is_sorted_and_resolves():
    assert list(rulings.__all__) == sorted(rulings.__all__, key=_isort_style)
    for name in rulings.__all__:
        assert hasattr(rulings, name), name


def test_every_sub_package_is_listed():
    found = {f"rulings.{m.name}" for m in pkgutil.iter_modules(rulings.__path__) if m.ispkg} - {
        "rulings.data"
    }
    assert found == set(SUB_PACKAGES)


@pytest.mark.parametrize("package", SUB_PACKAGES)
def test_sub_package_all_is_sorted_and_resolves(package):
    module = importlib.import_module(package)
    assert list(module.__all__) == sorted(module.__all__, key=_isort_style)
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert hasattr(module, name), f"{package}.{name}"


def _static_imports(package: str) -> dict[str, str]:
    """name -> module of every ``from rulings... import name`` in a package's ``__init__``."""
    module = importlib.import_module(package)
    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith(package + ".")
        and node.module != "rulings._exports"
        for alias in node.names
    }


@pytest.mark.parametrize("package", ["rulings", *SUB_PACKAGES])
def test_sub_package_all_is_exactly_what_its_init_imports(package):
    # Complete and honest: the imports readers and type checkers follow (plain, or under
    # TYPE_CHECKING where the package exports on first use) are exactly ``__all__``, and
    # each name is the object of the module it is imported from.
    module = importlib.import_module(package)
    imported = _static_imports(package)
    assert set(imported) == set(module.__all__)
    for name, home in imported.items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name


def test_a_name_outside_all_is_not_an_attribute_of_a_lazy_package():
    import rulings.league

    with pytest.raises(AttributeError, match="parse_hand_query"):
        _ = rulings.parse_hand_query  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="dataclass"):
        _ = rulings.league.dataclass  # type: ignore[attr-defined]
    assert "LeagueRules" in dir(rulings.league)
    assert "LeagueRules" in dir(rulings)


# Re-exported by ``rulings``; the heavy ones (numpy, hand tables, the search's data) are
# imported by name by the code that uses them.
EAGER_PACKAGES = ("rulings.clock", "rulings.league", "rulings.tournament")
HEAVY_PACKAGES = ("rulings.poker", "rulings.rulebook")


def test_import_rulings_loads_no_heavy_sub_package():
    code = (
        "import sys, rulings; "
        f"print(sorted(m for m in {(*HEAVY_PACKAGES, 'numpy', 'rapidfuzz')!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_rulings_re_exports_every_light_sub_package_and_the_error_tree():
    assert set(EAGER_PACKAGES) | set(HEAVY_PACKAGES) == set(SUB_PACKAGES)
    expected = {n for p in EAGER_PACKAGES for n in importlib.import_module(p).__all__}
    errors = {
        name
        for name, value in vars(rulings.errors).items()
        if isinstance(value, type) and issubclass(value, Exception)
    }
    assert set(rulings.__all__) == expected | errors
    for package in EAGER_PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            assert getattr(rulings, name) is getattr(module, name), name


def _drawn_tree(doc: str) -> dict[str, str | None]:
    """Class -> parent as the errors docstring draws it (4 columns per level)."""
    parents: dict[str, str | None] = {}
    stack: list[str] = []
    for line in doc.splitlines():
        match = re.match(r"^    ((?:[│ ]   )*)(?:[├└]── )?([A-Z]\w+)(?: |$)", line)
        if not match or not match.group(2).endswith(
            ("Error", "NotFound", "AlreadyExists", "BadOption")
        ):
            continue
        depth = len(match.group(1)) // 4 + (1 if "──" in line else 0)
        name = match.group(2)
        del stack[depth:]
        parents[name] = stack[-1] if stack else None
        stack.append(name)
    return parents


def test_the_errors_docstring_draws_the_whole_engine_storage_and_bot_tree():
    import bot.errors
    import storage.errors

    drawn = _drawn_tree(rulings.errors.__doc__ or "")
    actual: dict[str, str | None] = {"RulingsError": None}
    pending = [rulings.errors.RulingsError]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__ in ("rulings.errors", "storage.errors", "bot.errors"):
                actual[sub.__name__] = cls.__name__
    assert {k: v for k, v in drawn.items() if k in actual} == actual
    for name in actual:
        module = next(m for m in (storage.errors, bot.errors, rulings.errors) if hasattr(m, name))
        assert issubclass(getattr(module, name), rulings.errors.RulingsError)
