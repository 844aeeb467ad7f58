import rulings


def test_rulings_all_is_sorted_and_resolves():
    assert list(rulings.__all__) == sorted(rulings.__all__)
    for name in rulings.__all__:
        assert hasattr(rulings, name), name
