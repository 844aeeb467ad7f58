"""`pokerfloor rule` and the shared `/rule` reply (bot.features.rule.wording)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rulings
import rulings.rulebook
from bot.features.rule.wording import escape_markdown, rule_reply, section_pages
from bot.surfaces.cli import main


@pytest.fixture(scope="module")
def index() -> rulings.rulebook.RuleIndex:
    return rulings.rulebook.load_rulebooks()


@pytest.fixture(autouse=True)
def no_rulebook_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RULEBOOK_DIR", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["rule", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- the CLI ---------------------------------------------------------------------------------


def test_text_answer_cites_the_rule(capsys):
    code, out, err = run(capsys, "oversized chip")
    assert code == 0
    assert err == ""
    assert out.startswith("BTown Poker League 2.G.d.6: Betting Procedure")
    assert "A single over-sized chip placed in front of a player" in out
    assert "-- btown-poker-league 2.G.d.6" in out


def test_words_without_quotes_are_one_query(capsys):
    code, out, _ = run(capsys, "points", "for", "7th")
    assert code == 0
    assert "Finishing Position 7: Regular Points Awarded 300" in out


def test_json_shape_is_exact(capsys):
    code, out, _ = run(capsys, "points for 7th", "--json", "--limit", "2")
    assert code == 0
    data = json.loads(out)
    assert isinstance(data, list)
    assert len(data) == 2
    for item in data:
        assert set(item) == {"book", "section", "title", "text", "score", "answers"}
        assert isinstance(item["score"], float)
        assert len(item["text"]) <= 1500
    assert data[0] == {
        "book": "btown-poker-league",
        "section": "1.C.a",
        "title": "Regular Points",
        "text": "Finishing Position 7: Regular Points Awarded 300",
        "score": data[0]["score"],
        "answers": True,
    }
    assert data[0]["score"] >= data[1]["score"]


def test_json_rule_number_and_book_filter(capsys):
    code, out, _ = run(capsys, "2-G-d-6", "--json")
    assert code == 0
    assert json.loads(out)[0]["section"] == "2.G.d.6"
    code, out, _ = run(capsys, "misdeal", "--json", "--book", "red-white-blue-league")
    assert code == 0
    assert {m["book"] for m in json.loads(out)} == {"red-white-blue-league"}


def test_json_no_match_gives_closest_and_says_so(capsys):
    code, out, err = run(capsys, "who won the super bowl", "--json")
    assert code == 0
    assert "no rule answers this" in err
    closest = json.loads(out)
    assert len(closest) >= 1
    assert all(m["answers"] is False for m in closest)


def test_json_every_result_says_whether_it_answers(capsys):
    code, out, _ = run(capsys, "oversized chip", "--json")
    assert code == 0
    found = json.loads(out)
    assert found[0]["section"] == "2.G.d.6"
    assert all(m["answers"] is True for m in found)


def test_empty_query_prints_the_guide(capsys):
    code, out, _ = run(capsys)
    assert code == 0
    assert out.startswith("Rulebook search")
    assert "BTown Poker League (btown-poker-league) - this league's book" in out
    assert "1 General rules" in out
    assert "Bar rules" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["misdeal", "--book", "nope"], "no rulebook called 'nope'"),
        (["misdeal", "--limit", "0"], "--limit: 0 is below the smallest allowed, 1"),
        (["misdeal", "--limit", "99", "--json"], "--limit: 99 is above the largest allowed, 25"),
        (["misdeal", "--dir", "/no/such/folder"], "does not exist"),
    ],
)
def test_bad_requests_exit_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("pokerfloor rule: ")
    assert message in err
    assert "Traceback" not in err


def test_dir_adds_a_league_book(capsys, tmp_path: Path):
    (tmp_path / "house-rules.md").write_text(
        "# House rules\n\n## Drinks\n1. No glasses on the felt, ever.\n", encoding="utf-8"
    )
    code, out, _ = run(capsys, "glasses on the felt", "--dir", str(tmp_path), "--json")
    assert code == 0
    assert json.loads(out)[0] == {
        "book": "house-rules",
        "section": "Drinks 1",
        "title": "Drinks",
        "text": "No glasses on the felt, ever.",
        "score": json.loads(out)[0]["score"],
        "answers": True,
    }


# --- the shared reply ------------------------------------------------------------------------


def test_reply_has_citation_see_also_and_echo(index):
    reply = rule_reply(index, "cards speak")
    assert reply.citation == "btown-poker-league 2.G.d.4"
    assert reply.footer is not None
    assert reply.footer.startswith("You asked: “cards speak” · BTown Poker League: as of ")
    reply = rule_reply(index, "2.G.c.2.E")
    see_also = next(f for f in reply.fields if f.name == "See also")
    assert see_also.value.startswith("**2.G.d.4** Betting Procedure: After the last round")


def test_reply_table_row_names_its_table(index):
    reply = rule_reply(index, "blinds at level 8")
    assert reply.title == "BTown Poker League 2.B [Level 8]: Blind Schedule and Antes"
    # The row under its table's title and the sentence introducing the table.
    assert reply.text.startswith("From the table in 2.B (Blind Schedule and Antes): “BTown")
    assert reply.text.endswith("\n\n**Level 8: Small Blind 3,000, Big Blind 6,000**")


def test_reply_points_for_a_place_past_the_table_is_the_points_rule_not_a_blind_level(index):
    reply = rule_reply(index, "points for 17th")
    assert reply.citation in {
        "btown-poker-league 1.C.a.1",
        "btown-poker-league 1.C.a [Finishing Position 14 — 16]",
    }


def test_reply_section_with_table_lists_its_rows(index):
    reply = rule_reply(index, "2.C")
    assert "• Chip Color Black: Value 1,000" in reply.text


def test_reply_other_leagues_say(index):
    reply = rule_reply(index, "misdeal")
    others = next(f for f in reply.fields if f.name == "Other leagues say")
    assert others.value.startswith("**Red White Blue League Texas Hold'em Dealing and Card Rules")


def test_reply_no_match_offers_closest_privately(index):
    reply = rule_reply(index, "pizza")
    assert reply.title == "No rule answers this"
    assert reply.private
    assert reply.fields[0].name == "Closest, not an answer"


def test_reply_echo_is_neutralised_and_cut(index):
    nasty = "smoking\x00\x1b[31m **policy** @everyone <@123> " + "x" * 300
    reply = rule_reply(index, nasty)
    assert reply.footer is not None
    # Echoed in the footer under an answer, in the text under "no rule answers this".
    shown = reply.footer + reply.text
    assert "\x00" not in shown
    assert "\x1b" not in shown
    assert "**policy**" not in shown
    assert "\\*\\*policy\\*\\*" in shown
    assert "@everyone" not in shown
    assert len(reply.footer) <= 300


def test_escape_markdown():
    # a masked link cannot form once its brackets are escaped
    assert escape_markdown("_a_ `b` [c](d) > e") == "\\_a\\_ \\`b\\` \\[c\\](d) \\> e"


def test_reply_empty_query_is_the_guide(index):
    reply = rule_reply(index, "  ")
    assert reply.title == "Rulebook search"
    assert len(reply.fields) == 5
    assert all(len(f.value) <= 1024 for f in reply.fields)


def test_reply_bad_book_limit_and_missing_index(index):
    with pytest.raises(rulings.UnknownRuleError):
        rule_reply(index, "misdeal", book="nope")
    with pytest.raises(rulings.RulingsError):
        rule_reply(index, "misdeal", limit=0)
    with pytest.raises(rulings.RulingsError, match="still loading"):
        rule_reply(None, "misdeal")


def test_reply_fits_discord_limits(index):
    for query in ("points", "hand rankings", "chips", "2.G.d", "4.D", "what beats what"):
        reply = rule_reply(index, query, limit=25)
        assert len(reply.title) <= 256
        assert len(reply.text) <= 4096
        assert all(len(f.value) <= 1024 for f in reply.fields)
        total = len(reply.title) + len(reply.text) + sum(len(f.value) for f in reply.fields)
        assert total <= 6000


# --- whole sections and editions ----------------------------------------------------------------


def test_cli_section_2_d_prints_heading_and_every_rule(capsys):
    code, out, _ = run(capsys, "--section", "2.D")
    assert code == 0
    assert out.startswith("BTown Poker League 2.D: Combining Tables and Reseating Players")
    for rule in ("2.D.a", "2.D.b", "2.D.c", "2.D.d"):
        assert rule in out


def test_cli_unknown_section_is_one_line(capsys):
    code, _, err = run(capsys, "--section", "9.Z")
    assert code != 0
    assert "There is no section '9.Z'" in err
    assert len(err.strip().splitlines()) == 1


def test_reply_footer_states_the_books_edition(index):
    reply = rule_reply(index, "oversized chip")
    assert reply.footer is not None
    assert "· BTown Poker League: as of 2026-11-29, from " in reply.footer


def test_reply_offers_the_whole_section(index):
    reply = rule_reply(index, "oversized chip")
    assert [(b.label, b.custom_id) for b in reply.buttons] == [
        ("Whole section", "pf:rsec:btown-poker-league:2.G.d:1")
    ]


def test_a_long_section_is_paged_under_discords_limits(tmp_path):
    rules = "\n".join(f"{n}. " + f"Rule {n} says a great deal. " * 40 for n in range(1, 10))
    text = f"# Long book\n\n## 1. Long rules\n\n{rules}\n\n## 2. Short\n\n1. Short one.\n"
    (tmp_path / "long-book.md").write_text(text, encoding="utf-8")
    index = rulings.rulebook.load_rulebooks(tmp_path)
    whole = index.section("1. Long rules", book="long-book")
    pages = section_pages(index, whole)
    assert len(pages) > 1
    assert all(len(p.text) <= 4096 and len(p.title) <= 256 for p in pages)
    assert pages[0].title.endswith(f"(1/{len(pages)})")
    shown = "\n".join(p.text for p in pages)
    assert all(f"**1. Long rules {n}**" in shown for n in range(1, 10))
    assert "Short one" not in shown
