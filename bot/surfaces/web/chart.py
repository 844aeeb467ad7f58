"""The points-race chart: cumulative RP of a season's leaders, drawn once, shown two ways.

``race_chart`` lays the chart out (every coordinate, label and colour); ``to_svg`` writes that
layout as inline SVG for the season page (readable without JavaScript), and ``to_png`` paints
the same layout with Pillow for ``/standings chart:yes`` on Discord, so the picture on Discord
and the one on the web are the same drawing. Names are escaped in the SVG.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from markupsafe import Markup, escape

from storage.web import PointsRace

log = logging.getLogger(__name__)

WIDTH = 520
PLOT_HEIGHT = 220
MARGIN_LEFT = 60
MARGIN_RIGHT = 16
MARGIN_TOP = 28
AXIS_SPACE = 26
LEGEND_ROW = 20
LEGEND_COLUMNS = 2
FONT_SIZE = 14
LEGEND_NAME_CHARS = 14  # two legend columns fit a phone: "10. <14 characters> (12,345)"
# Ten colours that stay apart for the common kinds of colour blindness (Tableau 10).
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
INK = "#222222"
GRID = "#dddddd"


@dataclass(frozen=True)
class Series:
    """One player's line."""

    name: str
    color: str
    points: tuple[tuple[float, float], ...]
    final_rp: int


@dataclass(frozen=True)
class Chart:
    """A laid-out chart: sizes in pixels, origin top left."""

    title: str
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    y_ticks: tuple[tuple[str, float], ...]
    x_labels: tuple[tuple[str, float, str], ...]  # text, x, anchor (start/middle/end)
    series: tuple[Series, ...]
    legend: tuple[tuple[str, str, float, float], ...]  # text, colour, x, y

    @property
    def is_empty(self) -> bool:
        """Nothing to draw: no events or no players yet."""
        return not self.series or all(len(s.points) < 2 for s in self.series)


def _nice_step(top: int, ticks: int = 4) -> int:
    """A round tick step (1, 2 or 5 times a power of ten) giving about ``ticks`` ticks.

    >>> _nice_step(12_300), _nice_step(90), _nice_step(0)
    (5000, 50, 1)
    """
    if top <= 0:
        return 1
    raw = top / ticks
    power = 1
    while power * 10 <= raw:
        power *= 10
    for mult in (1, 2, 5, 10):
        if power * mult >= raw:
            return power * mult
    return power * 10


def _corners(points: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """Drop the points in the middle of a flat run: the same line with far fewer points.

    >>> _corners(((0, 5), (1, 5), (2, 5), (3, 2), (4, 2)))
    ((0, 5), (2, 5), (3, 2), (4, 2))
    """
    keep = [
        p
        for i, p in enumerate(points)
        if i in (0, len(points) - 1) or not (points[i - 1][1] == p[1] == points[i + 1][1])
    ]
    return tuple(keep)


def race_chart(race: PointsRace, title: str) -> Chart:
    """Lay out the points race: one line per player over the season's events."""
    n = len(race.events)
    names = [name for name, _ in race.lines]
    rows = (len(names) + LEGEND_COLUMNS - 1) // LEGEND_COLUMNS
    left, top = float(MARGIN_LEFT), float(MARGIN_TOP)
    right = float(WIDTH - MARGIN_RIGHT)
    bottom = top + PLOT_HEIGHT
    height = int(bottom + AXIS_SPACE + rows * LEGEND_ROW + 8)
    peak = max((values[-1] for _, values in race.lines if values), default=0)
    step = _nice_step(peak)
    y_max = max(step, ((peak + step - 1) // step) * step)

    def y_of(value: int) -> float:
        return round(bottom - (bottom - top) * value / y_max, 1)

    def x_of(i: int) -> float:  # i = 0 is the start, i = n after the last event
        return round(left + (right - left) * i / max(1, n), 1)

    y_ticks = tuple((f"{v:,}", y_of(v)) for v in range(0, y_max + 1, step))
    x_labels = _date_labels(race, [x_of(i) for i in range(n + 1)])
    series = tuple(
        Series(
            name=name,
            color=PALETTE[i % len(PALETTE)],
            points=tuple((x_of(j), y_of(v)) for j, v in _corners(tuple(enumerate((0, *values))))),
            final_rp=values[-1] if values else 0,
        )
        for i, (name, values) in enumerate(race.lines)
    )
    column = (right - left) / LEGEND_COLUMNS
    legend_top = bottom + AXIS_SPACE + LEGEND_ROW - 4
    legend = tuple(
        (
            f"{i + 1}. {_clip(s.name, LEGEND_NAME_CHARS)} ({s.final_rp:,})",
            s.color,
            left + (i % LEGEND_COLUMNS) * column,
            legend_top + (i // LEGEND_COLUMNS) * LEGEND_ROW,
        )
        for i, s in enumerate(series)
    )
    return Chart(
        title=title,
        width=WIDTH,
        height=height,
        left=left,
        top=top,
        right=right,
        bottom=bottom,
        y_ticks=y_ticks,
        x_labels=x_labels,
        series=series,
        legend=legend,
    )


def _date_labels(race: PointsRace, xs: list[float]) -> tuple[tuple[str, float, str], ...]:
    """The first and last events' dates under their points, the count between them.

    The origin (``xs[0]``) is the season's start, before any event: the first date goes under
    the first event's point (centred), the last date ends under the last event's.

    >>> import datetime as dt
    >>> from storage.web import RaceEvent
    >>> days = [RaceEvent(i, dt.date(2026, 9, i), "Pub") for i in (3, 10, 17)]
    >>> _date_labels(PointsRace(tuple(days), ()), [60.0, 208.0, 356.0, 504.0])
    (('2026-09-03', 208.0, 'middle'), ('3 events', 356.0, 'middle'), ('2026-09-17', 504.0, 'end'))
    """
    n = len(race.events)
    if not n:
        return ()
    last = (race.events[-1].date.isoformat(), xs[n], "end")
    if n == 1:
        return (last,)
    first = (race.events[0].date.isoformat(), xs[1], "middle")
    count = (f"{n} events", round((xs[1] + xs[n]) / 2, 1), "middle")
    return (first, count, last)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_svg(chart: Chart) -> Markup:
    """Write the chart as an inline ``<svg>`` element (every text escaped)."""
    e = escape
    out = [
        f'<svg class="race" viewBox="0 0 {chart.width} {chart.height}" '
        f'xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="race-title" '
        f'font-family="sans-serif">',
        f'<title id="race-title">{e(chart.title)}</title>',
        f'<text x="{chart.left}" y="{chart.top - 10}" class="race-title" font-size="15" '
        f'fill="{INK}">{e(_clip(chart.title, 60))}</text>',
    ]
    for label, y in chart.y_ticks:
        out.append(
            f'<line x1="{chart.left}" y1="{y}" x2="{chart.right}" y2="{y}" stroke="{GRID}"/>'
            f'<text x="{chart.left - 6}" y="{y + 4}" text-anchor="end" font-size="{FONT_SIZE}" '
            f'fill="{INK}">{e(label)}</text>'
        )
    out.append(
        f'<line x1="{chart.left}" y1="{chart.bottom}" x2="{chart.right}" y2="{chart.bottom}" '
        f'stroke="{INK}"/>'
    )
    for text, x, anchor in chart.x_labels:
        out.append(
            f'<text x="{x}" y="{chart.bottom + 18}" text-anchor="{anchor}" '
            f'font-size="{FONT_SIZE}" fill="{INK}">{e(text)}</text>'
        )
    for s in reversed(chart.series):  # the leader is drawn last, on top
        points = " ".join(f"{x},{y}" for x, y in s.points)
        out.append(
            f'<polyline class="race-line" fill="none" stroke="{s.color}" stroke-width="2" '
            f'stroke-linejoin="round" points="{points}"><title>{e(s.name)}: '
            f"{s.final_rp:,} RP</title></polyline>"
        )
    for text, color, x, y in chart.legend:
        out.append(
            f'<rect x="{x}" y="{y - 11}" width="12" height="12" fill="{color}"/>'
            f'<text x="{x + 16}" y="{y}" font-size="{FONT_SIZE}" fill="{INK}">'
            f"{e(text)}</text>"
        )
    if chart.is_empty:
        out.append(
            f'<text x="{(chart.left + chart.right) / 2}" y="{(chart.top + chart.bottom) / 2}" '
            f'text-anchor="middle" font-size="14" fill="{INK}">No events yet</text>'
        )
    out.append("</svg>")
    return Markup("".join(out))


def to_png(chart: Chart, *, scale: int = 2) -> bytes:
    """Paint the same layout as a PNG (``scale`` times the SVG's pixel size, for sharpness)."""
    from PIL import Image, ImageDraw, ImageFont  # imported on first use: start-up stays light

    def xy(x: float, y: float) -> tuple[float, float]:
        return x * scale, y * scale

    image = Image.new("RGB", (chart.width * scale, chart.height * scale), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=FONT_SIZE * scale)
    title_font = ImageFont.load_default(size=15 * scale)
    draw.text(
        xy(chart.left, chart.top - 10),
        _clip(chart.title, 60),
        fill=INK,
        font=title_font,
        anchor="ls",
    )
    for label, y in chart.y_ticks:
        draw.line([xy(chart.left, y), xy(chart.right, y)], fill=GRID, width=scale)
        draw.text(xy(chart.left - 6, y), label, fill=INK, font=font, anchor="rm")
    draw.line([xy(chart.left, chart.bottom), xy(chart.right, chart.bottom)], fill=INK, width=scale)
    anchors = {"start": "la", "middle": "ma", "end": "ra"}
    for text, x, anchor in chart.x_labels:
        draw.text(xy(x, chart.bottom + 6), text, fill=INK, font=font, anchor=anchors[anchor])
    for s in reversed(chart.series):
        if len(s.points) > 1:
            draw.line([xy(x, y) for x, y in s.points], fill=s.color, width=2 * scale, joint="curve")
    for text, color, x, y in chart.legend:
        draw.rectangle([xy(x, y - 11), xy(x + 12, y + 1)], fill=color)
        draw.text(xy(x + 16, y), text, fill=INK, font=font, anchor="ls")
    if chart.is_empty:
        middle = xy((chart.left + chart.right) / 2, (chart.top + chart.bottom) / 2)
        draw.text(middle, "No events yet", fill=INK, font=title_font, anchor="mm")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
