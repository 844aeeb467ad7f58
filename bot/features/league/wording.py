"""League replies: standings, TOC, event summaries and starting stacks, ready for any front end.

Each builder takes values from ``storage``/``rulings`` and returns ``Reply`` objects; long
tables come back as several pages, each within Discord's limits (description <= 4,096
characters, <= 25 fields of <= 1,024), so a cog can send them one by one or with buttons.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import rulings
from bot.reply import Field, Reply, code_safe, escape, plural
from storage.events import EventDetail, EventSummary, ImportOutcome, PlayerPoints
from storage.standings import StandingsTable, TocTable

log = logging.getLogger(__name__)

ROWS_PER_PAGE = 25
DESCRIPTION_LIMIT = 4096
FIELD_LIMIT = 1024
NAME_WIDTH = 20

_STATUS = {
    "qualified": "qualified",
    "conversion": "by conversion",
    "not_qualified": "not yet",
    "forfeited": "forfeited",
}
_COMPONENT_LABELS = {
    "finish": "finish",
    "bounty": "bounties",
    "premium": "premium hand",
    "second_chance": "second chance",
    "receipt": "receipts",
}


def _width(names: Sequence[str], width: int | None) -> int:
    """The name column's width: ``width``, or (None, a terminal) the longest name's: no cut."""
    if width is not None:
        return width
    return max([NAME_WIDTH, *(len(code_safe(n)) for n in names)])


def _short(name: str, width: int = NAME_WIDTH) -> str:
    """A name cut to ``width`` for a table column (inside a code block)."""
    name = code_safe(name)
    return name if len(name) <= width else name[: width - 1] + "…"


def _pages(
    title: str,
    header: str,
    lines: Sequence[str],
    *,
    footer: str | None,
    per_page: int,
    char_limit: int = DESCRIPTION_LIMIT,
) -> list[Reply]:
    """Split table lines into code-block pages within ``char_limit`` characters each."""
    per_page = max(1, per_page)
    chunks: list[list[str]] = []
    current: list[str] = []
    size = len(header) + 10
    for line in lines:
        if current and (len(current) >= per_page or size + len(line) + 1 > char_limit):
            chunks.append(current)
            current, size = [], len(header) + 10
        current.append(line)
        size += len(line) + 1
    if current or not chunks:
        chunks.append(current)
    total = len(chunks)
    replies = []
    for i, chunk in enumerate(chunks, start=1):
        body = "\n".join([header, *chunk]) if chunk else "Nobody yet."
        text = f"```\n{body}\n```" if chunk else body
        page = f"Page {i}/{total}" if total > 1 else None
        foot = " · ".join(p for p in (footer, page) if p) or None
        replies.append(Reply(title=title, text=text, footer=foot))
    return replies


def standings_pages(
    table: StandingsTable,
    *,
    per_page: int = ROWS_PER_PAGE,
    char_limit: int = DESCRIPTION_LIMIT,
    name_width: int | None = NAME_WIDTH,
    mark: str | None = None,
) -> list[Reply]:
    """Render a season's (or a location's) standings as pages of at most ``per_page`` rows.

    A terminal passes a large ``per_page`` and ``char_limit`` to get one page. ``mark`` (the
    caller's own player, when linked) gets ``»`` before his row and his rank in the footer.
    """
    where = f" at {escape(table.location)}" if table.location else ""
    title = f"Standings{where}, {escape(table.season)}"
    width = _width([r.row.player for r in table.rows], name_width)
    header = f"{'#':>3} {'Player':<{width}} {'RP':>7} {'BP':>7} {'Ev':>3}"
    lines = [
        f"{r.rank:>3} {_short(r.row.player, width):<{width}} {r.row.rp:>7,} {r.row.bp:>7,} "
        f"{r.row.events:>3}"
        for r in table.rows
    ]
    footer = f"Ranked by {table.by.upper()}; ties broken by " + ", ".join(
        rulings.TIE_BREAK_ORDER[1:]
    )
    if mark is not None:
        header, lines, own = _marked(header, lines, [r.row.player for r in table.rows], mark)
        if own is not None:
            page = own // max(1, per_page) + 1
            footer = f"» you: #{table.rows[own].rank} (page {page}) · {footer}"
    return _pages(title, header, lines, footer=footer, per_page=per_page, char_limit=char_limit)


def _marked(
    header: str, lines: list[str], names: Sequence[str], mark: str
) -> tuple[str, list[str], int | None]:
    """Put ``»`` before the marked player's line (a space before the others)."""
    own = next((i for i, n in enumerate(names) if n == mark), None)
    marked = [("» " if i == own else "  ") + line for i, line in enumerate(lines)]
    return "  " + header, marked, own


def standings_reply(table: StandingsTable, *, page: int = 1) -> Reply:
    """Return one page (1-based; clamped to the last) of the standings."""
    pages = standings_pages(table)
    return pages[max(1, min(page, len(pages))) - 1]


def toc_pages(
    table: TocTable,
    *,
    per_page: int = ROWS_PER_PAGE,
    char_limit: int = DESCRIPTION_LIMIT,
    name_width: int | None = NAME_WIDTH,
    mark: str | None = None,
) -> list[Reply]:
    """Render the TOC table: status, extra chips and what each player is short.

    ``mark`` (the caller's own player, when linked) gets ``»`` before his row.
    """
    title = f"Tournament of Champions, {escape(table.season)}"
    width = _width([s.player for s in table.rows], name_width)
    header = f"{'Player':<{width}} {'Status':<13} {'Extra':>7} {'RP short':>8} {'BP short':>8}"
    lines = [
        f"{_short(s.player, width):<{width}} {_STATUS.get(s.status, s.status):<13} "
        f"{s.extra_chips:>7,} {s.rp_short:>8,} {s.bp_short:>8,}"
        for s in table.rows
    ]
    footer = f"Qualifying: {table.rp_required:,} RP and {table.bp_required:,} BP (4.B)"
    if mark is not None:
        header, lines, own = _marked(header, lines, [s.player for s in table.rows], mark)
        if own is not None:
            page = own // max(1, per_page) + 1
            footer = f"» you (page {page}) · {footer}"
    return _pages(title, header, lines, footer=footer, per_page=per_page, char_limit=char_limit)


def toc_reply(table: TocTable, *, page: int = 1) -> Reply:
    """Return one page (1-based; clamped to the last) of the TOC table."""
    pages = toc_pages(table)
    return pages[max(1, min(page, len(pages))) - 1]


def _points_line(p: PlayerPoints) -> str:
    place = "—" if p.position is None else (f"T{p.position}" if p.tie_size > 1 else str(p.position))
    parts = ", ".join(
        f"{_COMPONENT_LABELS.get(k, k)} {rp:,}/{bp:,}" for k, (rp, bp) in p.breakdown.items()
    )
    extra = f" ({parts})" if parts and len(p.breakdown) > 1 else ""
    return f"{place:>4} {escape(_cut(p.player))}: {p.rp:,} RP, {p.bp:,} BP{extra}"


def _cut(name: str, width: int = NAME_WIDTH) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _fields_for(lines: Sequence[str], name: str) -> tuple[Field, ...]:
    """Pack lines into fields of <= 1,024 characters (at most 25 fields)."""
    fields: list[Field] = []
    current = ""
    for line in lines:
        if current and len(current) + len(line) + 1 > FIELD_LIMIT:
            fields.append(Field(name if not fields else f"{name} (cont.)", current))
            current = ""
        current = f"{current}\n{line}" if current else line[:FIELD_LIMIT]
    if current:
        fields.append(Field(name if not fields else f"{name} (cont.)", current))
    return tuple(fields[:25])


def _event_head(event: EventSummary) -> str:
    state = "" if event.status == "active" else f" — VOID: {escape(event.void_reason or '')}"
    return (
        f"{escape(event.season)} · {escape(event.location)} · {event.date.isoformat()} · "
        f"{event.kind} · {plural(event.players, 'player')}{state}"
    )


_CHANGE = {
    "imported": "Imported",
    "unchanged": "Already stored, nothing changed",
    "corrected": "Corrected (the previous version is kept in the audit log)",
}


def event_summary_reply(result: ImportOutcome | EventDetail) -> Reply:
    """Summarise an import/correction outcome or a stored event: what changed and the points."""
    if isinstance(result, ImportOutcome):
        event, points, change = result.event, result.points, _CHANGE[result.status]
    else:
        event, points, change = result.event, result.points, None
    text = _event_head(event) if change is None else f"**{change}.** {_event_head(event)}"
    lines = [_points_line(p) for p in points if p.rp or p.bp or p.position is not None]
    idle = sum(1 for p in points if not (p.rp or p.bp or p.position is not None))
    footer = f"{idle:,} more played without points" if idle else None
    return Reply(
        title=f"Event #{event.id}",
        text=text,
        fields=_fields_for(lines, "Points (RP/BP)"),
        footer=footer,
    )


def import_report_reply(outcomes: Sequence[ImportOutcome]) -> Reply:
    """Summarise a whole import: counts per outcome and one line per event."""
    counts = {
        s: sum(o.status == s for o in outcomes) for s in ("imported", "corrected", "unchanged")
    }
    head = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing to import"
    lines = [
        f"{o.status:<9} {escape(o.event.label)}: {plural(o.event.players, 'player')}"
        for o in outcomes
    ]
    return Reply(title="Event import", text=head, fields=_fields_for(lines, "Events"))


def event_list_pages(
    events: Sequence[EventSummary],
    *,
    per_page: int = ROWS_PER_PAGE,
    char_limit: int = DESCRIPTION_LIMIT,
    name_width: int | None = NAME_WIDTH,
) -> list[Reply]:
    """Render a list of events as pages."""
    width = _width([e.location for e in events], name_width)
    header = f"{'#':>5} {'Date':<10} {'Location':<{width}} {'Kind':<13} {'Pl':>3} Status"
    lines = [
        f"{e.id:>5} {e.date.isoformat():<10} {_short(e.location, width):<{width}} {e.kind:<13} "
        f"{e.players:>3} {e.status}"
        for e in events
    ]
    return _pages("Events", header, lines, footer=None, per_page=per_page, char_limit=char_limit)


def stack_reply(player: str, stack: rulings.StartingStack, rules: rulings.LeagueRules) -> Reply:
    """Show a starting stack with each extra, the late reduction and what was not awarded.

    The citation is the league's home rulebook's rules on stacks (``rules``).
    """
    lines = [f"Base stack: {stack.base:,}"]
    lines += [f"+ {chips:,} {reason}" for reason, chips in stack.extras]
    if stack.late_reduction:
        lines.append(f"− {stack.late_reduction:,} late registration")
    fields = (
        (Field("Not awarded", "\n".join(stack.not_awarded)[:FIELD_LIMIT]),)
        if stack.not_awarded
        else ()
    )
    return Reply(
        title=f"Starting stack for {escape(player)}: {stack.total:,}",
        text="\n".join(lines),
        fields=fields,
        citation=rulings.rule_citation(rules, "starting_stack", "late_registration"),
    )
