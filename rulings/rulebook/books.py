"""Rulebooks parsed into citable passages, as each book numbers its own rules.

A rulebook is plain text (``.txt``) or light markdown (``.md``). The parser reads the outline
the book itself uses: numbered and lettered markers (``1.``, ``A.``, ``a.``, ``1)``, ``A)``,
roman ``IV.``, bullets) nest into citations such as BTown's ``2.G.d.6``; unnumbered headings
("Bar rules", "No-Limit Betting Rules") prefix the numbers under them ("Bar rules 12"). A heading
belongs to the text under it and is never a passage of its own; navigation ("Quick Links", menu
bars) is dropped; markdown tables become one passage per row that carries its header and the
sentence introducing the table, and so does each line of a list written inline ("First
place/100 points"), besides the passage holding the whole list; near-identical paragraphs are
indexed once; "[See Section #2-G-d-4]" cross-references become ``see_also`` links.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import tomllib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from rapidfuzz import fuzz

from rulings.errors import RulebookError, UnknownRuleError

log = logging.getLogger(__name__)

BOOK_SUFFIXES = (".txt", ".md")
MAX_PASSAGE_CHARS = 1500
_HEADING_MAX_CHARS = 70
_DEEP_HEADING_MAX_CHARS = 90
_HAND_NAMES = (
    "Royal Flush",
    "Straight Flush",
    "4 of a Kind",
    "Four of a Kind",
    "Full House",
    "Flush",
    "Straight",
    "3 of a Kind",
    "Three of a Kind",
    "Two Pairs",
    "Two Pair",
    "One Pair",
    "Pair",
    "High Card",
)
_HAND_LINE = re.compile(r"^(" + "|".join(re.escape(n) for n in _HAND_NAMES) + r")\b")
_MARKER = re.compile(
    r"^(?:(?P<num>\d{1,3})(?P<nump>[.)])\s+"
    r"|(?P<roman>[IVX]{2,5})\.\s*"
    r"|(?P<letter>[A-Za-z])(?P<letp>[.)])\s+"
    r"|(?P<bullet>[*\-•])\s+)"
    r"(?P<rest>\S.*)$"
)
_INLINE_TITLE = re.compile(r"^(?P<title>[^:.\[\]]{2,50}?):\s+\S")
_SEE = re.compile(r"section\s*#?\s*(\d+(?:[-.][A-Za-z0-9]+)*)", re.IGNORECASE)
_SEE_PARAGRAPHS = re.compile(r"paragraphs?\s+((?:#[a-z](?:,\s*|\s+and\s+)?)+)", re.IGNORECASE)
_CAPS_PREFIX = re.compile(r"^([A-Z][A-Z'’&]+(?:\s+[A-Z][A-Z'’&]+)+)\s*(\*?\s*[A-Z][a-z].*)$")
_GLUED_SENTENCE = re.compile(r"(?<=[a-z])\.(?=[A-Z][a-z])")
_PAREN_ITEM = re.compile(r"^[^()]{1,40}\(.*\)$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10}
# A row of a list written inline: "First place/100 points", "9th-16th place/15 points".
_INLINE_ROW = re.compile(
    r"^\s*([A-Za-z0-9][\w\- ]{0,30}?)\s*/\s*(\$?\d[\d,]*(?:\s+[A-Za-z]+)?)\s*$"
)
_INLINE_MIN_ROWS = 3


@dataclass(frozen=True)
class Passage:
    """One citable piece of a rulebook: a rule, a paragraph under a heading, or a table row.

    Attributes:
        book: the book's name (its file name without extension).
        section: the citation as the book numbers it, e.g. ``2.G.d.6`` or ``Bar rules 12``.
        title: the heading the passage sits under (or its own inline title).
        text: the passage itself, never a whole section.
        part: tells apart passages sharing a section: a table row ("Finishing Position 7"),
            a hand in a ranking synopsis ("Flush"), or a repeated number's heading.
        table: for a table row, the table's name and the sentence that introduces it.
        see_also: sections of the same book this passage refers to.
        headings: every heading above the passage, outermost first (used for search).
    """

    book: str
    section: str
    title: str
    text: str
    part: str | None = None
    table: str | None = None
    see_also: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()

    @property
    def citation(self) -> str:
        """The book and section, e.g. ``btown-poker-league 2.G.d.6``."""
        return f"{self.book} {self.section}"

    @property
    def key(self) -> str:
        """A unique handle for this passage, accepted back by search and ``RuleIndex.get``."""
        return f"{self.citation} [{self.part}]" if self.part else self.citation


@dataclass(frozen=True)
class Edition:
    """Which text of a book is searched: its edition, date and source.

    Attributes:
        edition: the edition or version the book names, if any.
        date: when this text was published or last changed (``YYYY-MM-DD``), if known.
        source: where the text comes from.
    """

    edition: str | None = None
    date: str | None = None
    source: str | None = None

    def describe(self) -> str:
        """One line for a citation footer.

        >>> Edition("3rd", "2026-09-01", "the league's site").describe()
        "3rd edition, 2026-09-01, from the league's site"
        >>> Edition(date="2026-10-02").describe()
        'as of 2026-10-02'
        """
        parts = []
        if self.edition:
            edition = self.edition.strip()
            parts.append(edition if "edition" in edition.lower() else f"{edition} edition")
        if self.date:
            parts.append(self.date if parts else f"as of {self.date}")
        if self.source:
            parts.append(f"from {self.source}")
        return ", ".join(parts)


_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\n((?:.*\n){0,20}?)---[ \t]*\n")
_FRONT_LINE = re.compile(r"^\s*(edition|version|date|source)\s*:\s*(.+?)\s*$", re.IGNORECASE)


def split_front_matter(text: str) -> tuple[Edition | None, str]:
    r"""A book's front matter (``edition:``, ``date:``, ``source:`` between ``---`` lines).

    Returns:
        The edition it states (None without front matter) and the text after it.

    >>> split_front_matter("---\nedition: 2\ndate: 2026-09-01\n---\nRules\n1. Cards speak.")
    (Edition(edition='2', date='2026-09-01', source=None), 'Rules\n1. Cards speak.')
    """
    found = _FRONT_MATTER.match(text)
    if found is None:
        return None, text
    values: dict[str, str] = {}
    for line in found.group(1).splitlines():
        pair = _FRONT_LINE.match(line)
        if pair:
            key = pair.group(1).lower()
            values["edition" if key == "version" else key] = pair.group(2).strip("\"' ")
    edition = Edition(values.get("edition"), values.get("date"), values.get("source"))
    return edition, text[found.end() :]


@dataclass(frozen=True)
class Rulebook:
    """A parsed book.

    Attributes:
        name: the file name without extension, e.g. ``btown-poker-league``.
        title: a display title derived from the name.
        passages: every passage in book order.
        sections: the top-level sections as ``(citation, heading)`` pairs.
        edition: its edition, date and source, when known (front matter, ``books.toml`` for
            the bundled books, or the file's date).
    """

    name: str
    title: str
    passages: tuple[Passage, ...]
    sections: tuple[tuple[str, str], ...]
    edition: Edition | None = None

    @classmethod
    def from_text(cls, name: str, text: str, *, is_markdown: bool = False) -> Rulebook:
        r"""Parse a book's text into passages.

        Args:
            name: the book's name (file name without extension).
            text: the whole book, plain text or light markdown.
            is_markdown: strip markdown emphasis and read ``#`` lines as headings.

        Returns:
            The parsed book.

        Raises:
            RulebookError: the text holds no rule at all.

        >>> book = Rulebook.from_text("mini", "Rules\n1. Cards speak.\n2. No straddles.")
        >>> [p.section for p in book.passages]
        ['1', '2']
        """
        edition, text = split_front_matter(text)
        passages, sections = _Parser(name, text, is_markdown=is_markdown).parse()
        if not passages:
            raise RulebookError(f"The rulebook '{name}' has no rules in it.")
        return cls(name, display_title(name, text), passages, sections, edition)

    def get(self, section: str) -> Passage:
        """Return the passage cited as ``section`` (or, for a bare heading, its first rule).

        Args:
            section: a citation as printed, e.g. ``2.G.d.6``; case and separators are loose.

        Returns:
            The passage.

        Raises:
            UnknownRuleError: the book has no such section.
        """
        wanted = citation_slug(section)
        for passage in self.passages:
            if citation_slug(passage.section) == wanted or citation_slug(passage.key) == wanted:
                return passage
        for passage in self.passages:
            if citation_slug(passage.section).startswith(wanted) and _is_child(
                passage.section, section
            ):
                return passage
        raise UnknownRuleError(f"{self.name} has no section {section!r}.")


def display_title(name: str, text: str = "") -> str:
    """A readable title from a book's file name, each word spelled as the book spells it.

    Args:
        name: the file name without extension.
        text: the book's text: a word it writes with inner capitals ("BTown") keeps them.

    Returns:
        The title.

    >>> display_title("btown-poker-league", "Welcome to the BTown league")
    'BTown Poker League'
    >>> display_title("btown-poker-league")
    'Btown Poker League'
    """
    words = []
    for word in (w for w in re.split(r"[-_\s]+", name) if w):
        spellings = re.findall(rf"\b{re.escape(word)}\b", text, flags=re.IGNORECASE)
        inner = [w for w in spellings if w[1:] != w[1:].lower() and not w.isupper()]
        words.append(inner[0] if inner else word.capitalize())
    return " ".join(words)


def citation_slug(text: str) -> str:
    """Fold a citation for comparison: lower case, letters and digits only.

    Args:
        text: a citation or key as typed.

    Returns:
        The folded form.

    >>> citation_slug("2-G-d-6") == citation_slug("2.G.d.6") == citation_slug("2gd6")
    True
    """
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKD", text).lower())


# What ``str.isalnum`` rejects, character for character (checked over every code point).
_NOT_ALNUM = re.compile(r"[\W_]+")


def _is_child(section: str, parent: str) -> bool:
    parts = re.split(r"[^0-9A-Za-z]+", section.strip())
    want = [p for p in re.split(r"[^0-9A-Za-z]+", parent.strip()) if p]
    return [p.lower() for p in parts[: len(want)]] == [w.lower() for w in want]


def sentence_case(text: str) -> str:
    """Tame an ALL-CAPS heading ("BAR RULES" -> "Bar rules"); leave others alone.

    Args:
        text: a heading.

    Returns:
        The heading in sentence case if it was shouted.

    >>> sentence_case("BAR RULES"), sentence_case("No-Limit Betting Rules")
    ('Bar rules', 'No-Limit Betting Rules')
    """
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 3:
        return text[:1] + text[1:].lower()
    return text


# --- parsing --------------------------------------------------------------------------------


@dataclass
class _Node:
    """An open outline entry while parsing."""

    kind: str
    label: str
    heading: str | None
    inline_title: str | None
    is_headed: bool
    path: list[str]
    top: str | None
    lines: list[str] = field(default_factory=list)
    rows: list[tuple[str, str]] = field(default_factory=list)
    table_intro: str = ""
    table_header: list[str] = field(default_factory=list)
    level_count: int = 0
    headings: tuple[str, ...] = ()
    after_intro_list: bool = False


@dataclass
class _Line:
    kind: str  # "marker", "table", "plain"
    text: str
    marker_kind: str = ""
    label: str = ""


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    return text.replace("\u00a0", " ").replace("\t", " ")


def _split_lines(text: str, is_markdown: bool) -> list[str]:
    """Physical lines -> logical lines, undoing the glued paragraphs of scraped pages."""
    out: list[str] = []
    for raw in _clean(text).splitlines():
        line = raw.strip()
        if not line:
            out.append("")
            continue
        if is_markdown:
            line = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), line)
        if line.startswith("|"):
            out.append(line)
            continue
        line = _GLUED_SENTENCE.sub(".\n", line)
        for piece in re.split(r"\n|\s{2,}", line):
            piece = piece.strip()
            if not piece:
                continue
            caps = _CAPS_PREFIX.match(piece)
            if caps and not _MARKER.match(piece):
                out.extend([caps.group(1), caps.group(2).strip()])
            else:
                out.append(piece)
    return out


def _roman(label: str) -> int:
    total = 0
    for i, ch in enumerate(label):
        value = _ROMAN_VALUES[ch]
        nxt = _ROMAN_VALUES[label[i + 1]] if i + 1 < len(label) else 0
        total += -value if value < nxt else value
    return total


def _is_caps_heading(text: str) -> bool:
    words = [w for w in re.findall(r"[A-Za-z']+", text) if len(w) > 1]
    return len(words) >= 2 and all(w.isupper() for w in words)


_SMALL_WORDS = {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "up"}


def _is_titled(text: str) -> bool:
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", text)
    return bool(words) and all(w[0].isupper() or w.lower() in _SMALL_WORDS for w in words)


def _is_first_label(kind: str, label: str) -> bool:
    return label in {"1", "A", "a", "I"} or kind.startswith("bullet")


class _Parser:
    """Single-use: turns one book's text into passages."""

    def __init__(self, name: str, text: str, *, is_markdown: bool = False) -> None:
        self.name = name
        self.lines = _split_lines(text, is_markdown)
        self.is_markdown = is_markdown
        self.has_roman = any(re.match(r"^[IVX]{2,5}\.", ln) for ln in self.lines)
        self.stack: list[_Node] = []
        self.top: str | None = None
        self.top_lines: list[str] = []
        self.title_heading: str | None = None
        self.bullet_count = 0
        self.top_sections: list[tuple[str, str]] = []
        self.order: list[_Node | tuple[str, list[str]]] = []

    # classification

    def _classify(self, line: str) -> _Line:
        if line.startswith("|"):
            return _Line("table", line)
        if line.startswith("#"):
            return _Line("heading", line.lstrip("#").strip())
        if len(line) > 2 and line[0] == "*" and line[-1] == "*":
            return _Line("plain", line.strip("* "))
        match = _MARKER.match(line)
        if not match:
            return _Line("plain", line)
        rest = match.group("rest")
        if match.group("num"):
            return _Line("marker", rest, "num" + match.group("nump"), match.group("num"))
        if match.group("roman"):
            return _Line("marker", rest, "roman", match.group("roman"))
        if match.group("bullet"):
            return _Line("marker", rest, "bullet", "")
        letter = match.group("letter")
        punct = match.group("letp")
        if letter in "IVX" and punct == "." and self.has_roman:
            return _Line("marker", rest, "roman", letter)
        kind = ("upper" if letter.isupper() else "lower") + punct
        return _Line("marker", rest, kind, letter)

    def _next_content(self, start: int) -> _Line | None:
        for line in self.lines[start:]:
            if line:
                return self._classify(line)
        return None

    def _next_marker(self, start: int) -> _Line | None:
        for line in self.lines[start:]:
            if not line:
                continue
            cls = self._classify(line)
            if cls.kind in {"marker", "heading"}:
                return cls
        return None

    def _depth_of(self, kind: str) -> int | None:
        for i, node in enumerate(self.stack):
            if node.kind == kind:
                return i
        return None

    def _is_deeper(self, line: _Line | None, kind: str) -> bool:
        """Is ``line`` a marker that would nest under a new node of ``kind``?"""
        if line is None or line.kind == "heading":
            return False
        if line.kind != "marker":
            return True
        if line.marker_kind == kind:
            return False
        return self._depth_of(line.marker_kind) is None

    # headings

    def _looks_like_heading(self, text: str, limit: int) -> bool:
        if len(text) > limit or text.startswith(("*", "(", "[")):
            return False
        words = text.split()
        stripped = text.rstrip(":")
        if text.endswith(".") or text.endswith(","):
            is_verbless = not re.search(r"\b(shall|will|must|is|are|may|can)\b", text, re.I)
            return len(words) <= 6 and is_verbless
        return not stripped.endswith(("!", "?", ";")) and len(words) <= 16

    def _is_unmarked_heading(self, index: int, text: str, depth: int = 0) -> bool:
        if text.endswith(".") or not self._looks_like_heading(text, _HEADING_MAX_CHARS):
            return False
        if "quick links" in text.lower():
            return True
        prev = next((ln for ln in reversed(self.lines[:index]) if ln), "")
        nxt = self._next_content(index + 1)
        if _PAREN_ITEM.match(text) and (
            _PAREN_ITEM.match(prev) or (nxt is not None and _PAREN_ITEM.match(nxt.text))
        ):
            return False
        if not self.stack or _is_caps_heading(text):
            return True
        if nxt is not None and nxt is not None and nxt.kind == "plain" and depth < 3:
            following = self.lines.index(nxt.text, index + 1)
            if self._is_unmarked_heading(following, nxt.text, depth + 1) and (
                _is_caps_heading(nxt.text) or depth < 2
            ):
                return True
        marker = self._next_marker(index + 1)
        return (
            marker is not None
            and marker.kind == "marker"
            and _is_first_label(marker.marker_kind, marker.label)
            and self._depth_of(marker.marker_kind) is not None
        )

    # the walk

    def parse(self) -> tuple[tuple[Passage, ...], tuple[tuple[str, str], ...]]:
        skipping_nav = False
        for index, line in enumerate(self.lines):
            if not line or line == ".":
                continue
            cls = self._classify(line)
            if skipping_nav:
                if cls.kind == "plain" and len(line) <= _HEADING_MAX_CHARS:
                    continue
                skipping_nav = False
            if cls.kind == "plain" and line.count("|") >= 2:
                continue  # a menu bar
            if cls.kind == "plain" and "quick links" in line.lower():
                skipping_nav = True
                continue
            if cls.kind == "heading" or (
                cls.kind == "plain"
                and not self.is_markdown
                and self._is_unmarked_heading(index, line)
            ):
                self._open_top(sentence_case(cls.text.rstrip(":").strip()))
            elif cls.kind == "marker":
                self._open_marker(index, cls)
            elif cls.kind == "table":
                self._table_line(cls.text)
            else:
                self._plain(cls.text)
        self._close_all()
        return self._emit()

    def _open_top(self, heading: str) -> None:
        self._close_all()
        self._flush_top()
        if self.title_heading is None:
            self.title_heading = heading
        self.top = heading
        self.top_lines = []
        self.top_sections.append((heading, heading))
        self.bullet_count = 0

    def _flush_top(self) -> None:
        if self.top is not None and self.top_lines:
            self.order.append((self.top, list(self.top_lines)))
        self.top_lines = []

    def _close_all(self) -> None:
        self.stack.clear()

    def _open_marker(self, index: int, line: _Line) -> None:
        kind, label = line.marker_kind, line.label
        depth = self._depth_of(kind)
        current = self.stack[-1] if self.stack else None
        prev_text = current.lines[-1] if current and current.lines else ""
        restarted = (
            depth is not None
            and _is_first_label(kind, label)
            and not kind.startswith("bullet")
            and self.stack[depth].label not in {"", label}
        )
        if current is not None and (
            current.after_intro_list or (restarted and prev_text.endswith(":"))
        ):
            # A short list introduced by "...the following choices:" belongs to the rule above.
            current.after_intro_list = True
            current.lines.append(f"{label}. {line.text}" if label else line.text)
            return
        if kind == "bullet":
            self.bullet_count = self.bullet_count + 1 if depth is not None else 1
            label = str(self.bullet_count)
        if depth is not None:
            del self.stack[depth:]
        if not self.stack:
            self._flush_top()
        nxt = self._next_content(index + 1)
        limit = _DEEP_HEADING_MAX_CHARS if self._is_deeper(nxt, kind) else _HEADING_MAX_CHARS
        is_heading = (
            nxt is not None
            and self._looks_like_heading(line.text, limit)
            and self._is_deeper(nxt, kind)
            and nxt.kind != "heading"
        )
        parent_path = self.stack[-1].path if self.stack else []
        heading = sentence_case(line.text.rstrip(":. ").strip()) if is_heading else None
        inline = _INLINE_TITLE.match(line.text) if not is_heading else None
        parent_headings = (
            self.stack[-1].headings if self.stack else ((self.top,) if self.top else ())
        )
        node = _Node(
            kind=kind,
            label=label,
            heading=heading,
            inline_title=inline.group("title").strip() if inline else None,
            is_headed=is_heading,
            path=[*parent_path, label] if label else [*parent_path],
            top=self.top,
            headings=(*parent_headings, heading) if heading else parent_headings,
        )
        is_long_heading = heading is not None and len(heading.split()) > 6
        if is_long_heading and nxt is not None and nxt.kind == "plain":
            node.lines.append(line.text)
        if not is_heading and not (
            _is_titled(line.text)
            and len(line.text) <= 40
            and not line.text.endswith(".")
            and nxt is not None
            and nxt.kind == "marker"
            and nxt.marker_kind == kind
        ):
            node.lines.append(line.text)
        elif not is_heading:
            node.heading = sentence_case(line.text.rstrip(":. "))
        if not self.stack and heading is not None and self.top in {None, self.title_heading}:
            self.top_sections.append((label, heading))
        self.stack.append(node)
        self.order.append(node)

    def _plain(self, text: str) -> None:
        if self.stack:
            self.stack[-1].lines.append(text)
        else:
            self.top_lines.append(text)

    def _table_line(self, text: str) -> None:
        cells = [c.strip() for c in text.strip().strip("|").split("|")]
        if not self.stack:
            # A table straight under an unnumbered heading: the heading's text becomes a node.
            node = _Node(
                kind="table-top",
                label="",
                heading=self.top,
                inline_title=None,
                is_headed=True,
                path=[],
                top=self.top,
                headings=(self.top,) if self.top else (),
            )
            node.lines, self.top_lines = self.top_lines, []
            self.stack.append(node)
            self.order.append(node)
        node = self.stack[-1]
        if all(re.fullmatch(r":?-{3,}:?", c) for c in cells if c):
            return
        if not node.table_header or (node.rows and node.rows[-1][0] == "\x00end"):
            node.table_header = cells
            node.table_intro = node.lines[-1] if node.lines else ""
            node.level_count = 0
            node.rows.append(("\x00table", " | ".join(c for c in cells if c)))
            return
        node.rows.append(self._row(node, cells))

    def _row(self, node: _Node, cells: list[str]) -> tuple[str, str]:
        header = node.table_header
        filled = [c for c in cells if c]
        if not any(ch.isalnum() for c in filled for ch in c):
            return ("", "")
        if len(filled) == 1 and not re.search(r"\d{2}", filled[0].replace("1st", "")):
            label = filled[0].strip("—–- ").strip()
            if not label or not any(ch.isalnum() for ch in label):
                return ("", "")
            before = next((r for r in reversed(node.rows) if r[0].startswith("Level")), None)
            text = label
            if before is not None:
                text = f"{label} (after {before[0]}: {before[1].split(': ', 1)[1]})"
            return (label, text)
        if header and all("blind" in h.lower() for h in header if h):
            node.level_count += 1
            pairs = ", ".join(f"{h} {c}" for h, c in zip(header, cells, strict=False) if c)
            label = f"Level {node.level_count}"
            return (label, f"{label}: {pairs}")
        first = cells[0].rstrip(":")
        label = f"{header[0]} {first}" if header and first and header[0] else first
        if cells[0].endswith(":") or first.lower().startswith(
            header[0].lower() if header and header[0] else "\x00"
        ):
            label = first
        if len(label) > 60:
            label = first[:60]
        others = [f"{h} {c}" if h else c for h, c in zip(header[1:], cells[1:], strict=False) if c]
        if not header or len(header) < len(cells):
            others += [c for c in cells[len(header) :] if c]
        return (label, f"{label}: {'; '.join(others)}")

    # output

    def _citation(self, node: _Node) -> str:
        numbers = ".".join(p for p in node.path if p)
        if node.top and (node.top != self.title_heading or not numbers):
            return f"{node.top} {numbers}".strip()
        return numbers

    def _emit(self) -> tuple[tuple[Passage, ...], tuple[tuple[str, str], ...]]:
        self._flush_top()
        passages: list[Passage] = []
        for item in self.order:
            if isinstance(item, tuple):
                heading, lines = item
                passages.extend(self._text_passages(heading, heading, lines, (heading,), None))
            else:
                passages.extend(self._node_passages(item))
        passages = _dedupe(_inline_rows(passages))
        passages = _link_see_also(passages)
        return tuple(passages), self._sections(passages)

    def _sections(self, passages: list[Passage]) -> tuple[tuple[str, str], ...]:
        out: list[tuple[str, str]] = []
        for cite, heading in self.top_sections:
            is_used = any(
                heading in p.headings or p.section == cite or p.section.startswith(cite + ".")
                for p in passages
            )
            if is_used and (cite, heading) not in out:
                out.append((cite, heading))
        return tuple(out)

    def _text_passages(
        self,
        section: str,
        title: str,
        lines: list[str],
        headings: tuple[str, ...],
        part: str | None,
    ) -> list[Passage]:
        if not lines:
            return []
        chunks = _split_long(lines)
        out = []
        for chunk_part, chunk in chunks:
            text = "\n".join(chunk)
            out.append(
                Passage(
                    book=self.name,
                    section=section,
                    title=chunk_part or title,
                    text=_cap(text),
                    part=chunk_part or part,
                    headings=headings,
                )
            )
        return out

    def _node_passages(self, node: _Node) -> list[Passage]:
        section = self._citation(node)
        title = node.heading or node.inline_title or (node.headings[-1] if node.headings else "")
        headings = tuple(h for h in node.headings if h)
        lines = list(node.lines)
        rows = [r for r in node.rows if r[0] and not r[0].startswith("\x00")]
        out = self._text_passages(section, title, lines, headings, None)
        row_section = section
        row_node_path = list(node.path)
        row_title = title
        if node.kind.endswith(")") and len(row_node_path) > 1:
            row_node_path = row_node_path[:-1]
            prefix = f"{node.top} " if node.top and node.top != self.title_heading else ""
            row_section = prefix + ".".join(row_node_path)
            row_title = headings[-1] if headings else title
        intro = node.table_intro
        for label, text in rows:
            table = f"{row_title}: {intro}" if intro else row_title
            out.append(
                Passage(
                    book=self.name,
                    section=row_section,
                    title=row_title,
                    text=text,
                    part=label,
                    table=table,
                    headings=headings,
                )
            )
        return out


def _cap(text: str) -> str:
    if len(text) <= MAX_PASSAGE_CHARS:
        return text
    cut = text[: MAX_PASSAGE_CHARS - 1]
    return cut[: cut.rfind(" ")] + "…"


def _split_long(lines: list[str]) -> list[tuple[str | None, list[str]]]:
    """Split an over-long block at hand-name lines (a ranking synopsis), else keep it whole."""
    if sum(len(ln) + 1 for ln in lines) <= MAX_PASSAGE_CHARS:
        return [(None, lines)]
    chunks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in lines:
        hand = _HAND_LINE.match(line)
        if hand:
            chunks.append((hand.group(1), [line]))
        else:
            chunks[-1][1].append(line)
    if len(chunks) == 1:
        out: list[tuple[str | None, list[str]]] = []
        size = 0
        for line in lines:
            if not out or size + len(line) > MAX_PASSAGE_CHARS:
                out.append((f"part {len(out) + 1}" if out else None, []))
                size = 0
            out[-1][1].append(line)
            size += len(line) + 1
        return out
    return [c for c in chunks if c[1]]


def _norm_text(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _inline_rows(passages: list[Passage]) -> list[Passage]:
    """Also index each row of a list written inline ("First place/100 points") on its own.

    Three or more consecutive ``label/value`` lines form a table: each row becomes a passage
    like a markdown table's row, carrying the passage's title and the sentence introducing the
    list, after the passage that holds the whole list.
    """
    out: list[Passage] = []
    for passage in passages:
        out.append(passage)
        if passage.table:
            continue
        lines = passage.text.split("\n")
        rows: list[tuple[str, str, str]] = []
        run: list[tuple[str, str]] = []
        intro = ""
        for line in [*lines, ""]:
            found = _INLINE_ROW.match(line)
            if found:
                run.append((found.group(1).strip(), found.group(2).strip()))
                continue
            if len(run) >= _INLINE_MIN_ROWS:
                rows.extend((label, value, intro) for label, value in run)
            run = []
            intro = line.strip()
        for label, value, before in rows:
            table = f"{passage.title}: {before}" if before else passage.title
            out.append(
                replace(passage, text=f"{label}: {value}", part=label, table=table, see_also=())
            )
    return out


def _dedupe(passages: list[Passage]) -> list[Passage]:
    """Index repeated paragraphs once; keep the copy whose citation is not taken elsewhere."""
    norms = [_norm_text(p.text) for p in passages]
    group_of = list(range(len(passages)))
    for i in range(len(passages)):
        if group_of[i] != i or passages[i].table:
            continue
        for j in range(i + 1, len(passages)):
            if group_of[j] != j or passages[j].table:
                continue
            a, b = norms[i], norms[j]
            shorter = min(len(a), len(b))
            if a == b or (
                shorter >= 80
                and shorter / max(len(a), len(b)) > 0.8
                and (fuzz.ratio(a, b) >= 97 or a in b or b in a)
            ):
                group_of[j] = i
    keep: set[int] = set()
    for root in sorted(set(group_of)):
        members = [k for k, g in enumerate(group_of) if g == root]
        others = {passages[k].key for k, g in enumerate(group_of) if g != root}
        unique = [k for k in members if passages[k].key not in others]
        keep.add(unique[0] if unique else members[0])
        if len(members) > 1:
            log.debug(
                "%s: %d copies of %s indexed once",
                passages[root].book,
                len(members),
                passages[root].key,
            )
    kept = [p for k, p in enumerate(passages) if k in keep]
    # A number used twice for different rules (BTown has two section 4s): tell them apart.
    seen: dict[str, int] = {}
    out: list[Passage] = []
    for p in kept:
        if p.key in seen:
            part = p.headings[0] if p.headings else f"copy {seen[p.key] + 1}"
            if p.part:
                part = f"{part}: {p.part}"
            p = Passage(**{**p.__dict__, "part": part})
        seen[p.key] = seen.get(p.key, 0) + 1
        out.append(p)
    return out


def _link_see_also(passages: list[Passage]) -> list[Passage]:
    sections = {citation_slug(p.section): p.section for p in passages}
    out = []
    for p in passages:
        found: list[str] = []
        for raw in _SEE.findall(p.text):
            parts = [x for x in re.split(r"[-.)]+", raw) if x]
            if not parts:
                continue
            slug = citation_slug("".join(parts))
            target = sections.get(slug) or next(
                (s for k, s in sections.items() if k.startswith(slug)), None
            )
            if target is not None:
                found.append(".".join(target.split(".")[: len(parts)]))
        for group in _SEE_PARAGRAPHS.findall(p.text):
            parent = p.section.rsplit(".", 1)[0]
            for letter in re.findall(r"#([a-z])", group):
                slug = citation_slug(f"{parent}.{letter}")
                if slug in sections:
                    found.append(sections[slug])
        links = tuple(dict.fromkeys(s for s in found if s != p.section))
        out.append(Passage(**{**p.__dict__, "see_also": links}) if links else p)
    return out


# --- loading --------------------------------------------------------------------------------


def bundled_books() -> dict[str, str]:
    """The books shipped with pokerfloor.

    Returns:
        ``{name: text}``, sorted by name.
    """
    folder = resources.files("rulings") / "data" / "rulebooks"
    books = {}
    for entry in folder.iterdir():
        # SOURCES.md states where the books come from; it is not one of them
        if entry.name.endswith(BOOK_SUFFIXES) and entry.name != "SOURCES.md":
            books[entry.name.rsplit(".", 1)[0]] = entry.read_text(encoding="utf-8")
    return dict(sorted(books.items()))


def bundled_editions() -> dict[str, Edition]:
    """The bundled books' edition, date and source, from ``rulebooks/books.toml``."""
    entry = resources.files("rulings") / "data" / "rulebooks" / "books.toml"
    table = tomllib.loads(entry.read_text(encoding="utf-8"))
    return {
        name: Edition(
            str(row["edition"]) if "edition" in row else None,
            str(row["date"]) if "date" in row else None,
            str(row["source"]) if "source" in row else None,
        )
        for name, row in table.items()
    }


def book_dates(folder: Path) -> dict[str, str]:
    """The date each book in ``folder`` was last changed (``YYYY-MM-DD``, UTC), by book name."""
    dates = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in BOOK_SUFFIXES and path.is_file():
            changed = dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.UTC)
            dates[path.stem] = changed.date().isoformat()
    return dates


def with_editions(
    books: dict[str, Rulebook], editions: dict[str, Edition], dates: dict[str, str]
) -> dict[str, Rulebook]:
    """Each book with its edition: its own front matter's, else ``editions``', else its date.

    A league's own book without front matter is dated by its file (``dates``).
    """
    out = {}
    for name, book in books.items():
        edition = book.edition
        if edition is None and name in dates:  # a league's own book (it may replace a bundled one)
            edition = Edition(date=dates[name], source="the league's own rulebook file")
        elif edition is None:
            edition = editions.get(name)
        out[name] = replace(book, edition=edition) if edition is not book.edition else book
    return out


def read_books(folder: Path) -> dict[str, str]:
    """Read every ``.txt``/``.md`` rulebook in ``folder``.

    Args:
        folder: the league's rulebook folder.

    Returns:
        ``{file name: text}``; the extension tells the parser which books are markdown.

    Raises:
        RulebookError: the folder does not exist or a file cannot be read as UTF-8.
    """
    if not folder.is_dir():
        raise RulebookError(f"The rulebook folder {str(folder)!r} does not exist.")
    books = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in BOOK_SUFFIXES or not path.is_file():
            continue
        try:
            books[path.name] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RulebookError(f"Cannot read the rulebook {path.name!r}: {exc}.") from exc
    return books


def parse_books(named_texts: Iterable[tuple[str, str]]) -> dict[str, Rulebook]:
    """Parse ``(file name, text)`` pairs; a later book of the same name replaces an earlier one.

    Args:
        named_texts: file names (with or without extension) and their text.

    Returns:
        ``{book name: Rulebook}``.

    Raises:
        RulebookError: a book has no rules in it.
    """
    books: dict[str, Rulebook] = {}
    for file_name, text in named_texts:
        is_markdown = file_name.lower().endswith(".md")
        name = (
            file_name.rsplit(".", 1)[0] if file_name.lower().endswith(BOOK_SUFFIXES) else file_name
        )
        books[name] = Rulebook.from_text(name, text, is_markdown=is_markdown)
    return books
