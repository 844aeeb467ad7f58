"""bot.surfaces.discord.render: Discord's limits in one place; text cut cleanly, citation kept."""

from __future__ import annotations

import pytest

from bot.reply import Field, Reply
from bot.surfaces.discord import render


def _embed_total(em) -> int:
    d = em.to_dict()
    total = len(d.get("title", "")) + len(d.get("description", ""))
    total += sum(len(f["name"]) + len(f["value"]) for f in d.get("fields", []))
    return total + len(d.get("footer", {}).get("text", ""))


def test_cut_keeps_short_text():
    assert render.cut("Oversized chip", 100) == "Oversized chip"


def test_cut_ends_at_a_word_boundary_with_an_ellipsis():
    text = "A single oversized chip is a call unless a raise is declared first. " * 20
    out = render.cut(text, 150)
    assert len(out) <= 150
    assert out.endswith("…")
    assert text.startswith(out[:-1])
    # never mid-word: what precedes the ellipsis is a whole word or sentence
    assert out[:-1].split()[-1] in text.split()


def test_cut_prefers_a_paragraph_break():
    text = "The first paragraph says what the rule is.\n\n" + "second " * 50
    assert render.cut(text, 60) == "The first paragraph says what the rule is.…"


def test_cut_closes_unbalanced_bold():
    text = "**" + "bold " * 100 + "**"
    out = render.cut(text, 80)
    assert out.count("**") % 2 == 0
    assert len(out) <= 80


@pytest.mark.parametrize("limit", [1, 5, 12, 100])
def test_cut_never_exceeds_the_limit(limit: int):
    assert len(render.cut("x" * 500, limit)) <= limit


def test_long_rule_text_is_cut_but_the_citation_is_kept():
    reply = Reply(
        title="2.G.d.5 Odd chips",
        text="The odd chip goes to the first player left of the button. " * 200,
        citation="BTown rulebook 2.G.d.5",
    )
    em = render.embed(reply)
    assert len(em.description or "") <= render.EMBED_DESCRIPTION_LIMIT
    assert (em.description or "").endswith("— *BTown rulebook 2.G.d.5*")
    assert "…" in (em.description or "")


def test_every_limit_holds_for_an_absurd_reply():
    reply = Reply(
        title="t" * 1000,
        text="word " * 3000,
        fields=tuple(Field("n" * 500, "v" * 5000) for _ in range(60)),
        citation="c" * 1000,
        footer="f" * 5000,
    )
    em = render.embed(reply)
    d = em.to_dict()
    assert len(d["title"]) <= render.EMBED_TITLE_LIMIT
    assert len(d["description"]) <= render.EMBED_DESCRIPTION_LIMIT
    assert len(d["fields"]) <= render.EMBED_FIELDS_LIMIT
    assert all(len(f["name"]) <= 256 and len(f["value"]) <= 1024 for f in d["fields"])
    assert len(d["footer"]["text"]) <= render.FOOTER_LIMIT
    assert _embed_total(em) <= render.EMBED_TOTAL_LIMIT
    assert "more not shown" in d["footer"]["text"]


def test_a_small_reply_is_untouched():
    reply = Reply(title="Pair of Jacks", text="A-K-9 kickers", fields=(Field("Board", "Jh Jd 2c"),))
    d = render.embed(reply).to_dict()
    assert d["title"] == "Pair of Jacks"
    assert d["description"] == "A-K-9 kickers"
    assert d["fields"] == [{"name": "Board", "value": "Jh Jd 2c", "inline": False}]
    assert "footer" not in d


def test_private_replies_render_ephemeral():
    assert render.render(Reply(title="Sorry", text="no", private=True)).ephemeral
    assert not render.render(Reply(title="Ok")).ephemeral


def test_choice_labels_fit_autocomplete():
    assert len(render.choice_label("x " * 200)) <= render.CHOICE_LIMIT
    assert render.choice_label("   ") == "?"


def test_content_fits_a_message():
    assert len(render.content("y" * 5000)) <= render.CONTENT_LIMIT
    assert render.content("") == "\u200b"
