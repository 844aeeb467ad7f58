import rulings


def _isort_style(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions; each alphabetical.
    if name.isupper():
        return (0, name)
    return (1, name) if name[0].isupper() else (2, name)


def test_rulings_all_is_sorted_and_resolves():
    assert list(rulings.__all__) == sorted(rulings.__all__, key=_isort_style)
    for name in rulings.__all__:
        assert hasattr(rulings, name), name
