"""Issue 19: what a player is short of the TOC, each route once, from the same numbers."""

from rulings import StandingRow, load_league_rules, toc_table

RULES = load_league_rules()  # BTown: 1,500 RP and 1,500 BP; 2 BP per missing RP (4.D)


def status(rp: int, bp: int):
    return toc_table([StandingRow("Bea", rp, bp, 8)], RULES)[0]


def test_4_d_short_reads_both_routes_from_the_json_numbers() -> None:
    bea = status(1300, 250)
    assert (bea.rp_short, bea.bp_short, bea.bp_short_outright) == (200, 1650, 1250)
    assert bea.short_text() == "200 RP and 1,250 BP, or 1,650 BP by conversion"
    assert f"{bea.bp_short:,} BP by conversion" in bea.short_text()
    assert "or 200 more RP and 1,250 more BP without converting" in bea.reason


def test_4_d_larry_needs_rp_outright_or_300_bp_by_conversion() -> None:
    larry = status(1250, 1700)  # the book's example: 300 BP shy of the 2,000 needed
    assert larry.short_text() == "250 RP, or 300 BP by conversion"


def test_4_b_short_without_a_conversion_route_names_only_what_is_missing() -> None:
    moe = status(700, 4500)  # under half the RP: no conversion (4.D)
    assert moe.short_text() == "800 RP"
    assert status(1600, 1000).short_text() == "500 BP"
    assert status(1600, 1600).short_text() == ""
