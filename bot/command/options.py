"""Option values -> handler arguments, the same checks on every surface; the console's parser.

``bind(command, values, surface=..., today=...)`` takes what a surface collected (Discord's typed
values, the console's and the command line's strings) and returns the handler's keyword
arguments: unknown names, empty values, wrong types and values out of range are refused with
``BadOption`` naming the option, before the handler runs (so nothing is written). Defaults are
filled in. ``parse_line`` splits a console line the way Discord splits a command: option names
are only the command's own, a value runs to the next one or sits in quotes.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bot.command.model import Command, Opt, Surface, Upload
from bot.errors import BadOption

log = logging.getLogger(__name__)

TEXT_MAX_CHARS = 100
"""The longest text option when the definition sets no ``max_length`` (names)."""

MAX_FILE_BYTES = 1_000_000
"""The largest file a ``file`` option reads from a path (Discord's attachments are checked too)."""

_YES = {"yes", "y", "true", "1", "on"}
_NO = {"no", "n", "false", "0", "off"}
_ID = re.compile(r"^<[#@]?[&!]?(\d+)>$|^(\d+)$")
_OPTION = re.compile(r"(?:^|(?<=\s))([A-Za-z_][A-Za-z0-9_-]*):")


def takes(command: Command, surface: Surface = "console") -> str:
    """``/stack takes player, early, ...``: the options, for an error message.

    >>> from bot.command.model import Command, Opt
    >>> takes(Command(("td", "season", "list"), "List", "m:f"))
    '/td season list takes no options'
    """
    names = [o.name for o in command.options_on(surface)]
    if not names:
        return f"/{command.name} takes no options"
    return f"/{command.name} takes {', '.join(names)}"


def usage(command: Command, surface: Surface = "console") -> str:
    """``/rule query [book]``: the command with its options, optional ones in brackets."""
    parts = [f"/{command.name}"]
    for opt in command.options_on(surface):
        parts.append(opt.name if command.is_required(opt, surface) else f"[{opt.name}]")
    return " ".join(parts)


def _tidy(opt: Opt, value: str) -> str:
    if opt.lines:
        text = "\n".join(" ".join(line.split()) for line in value.strip().splitlines())
        text = re.sub(r"\n{2,}", "\n", text).strip()
    else:
        text = " ".join(value.split())
    limit = opt.max_length or TEXT_MAX_CHARS
    if len(text) > limit:
        raise BadOption(f"{opt.name}: too long ({len(text):,} characters, at most {limit:,}).")
    if opt.choices:
        found = next((c for c in opt.choices if c.lower() == text.lower()), None)
        if found is None:
            raise BadOption(f"{opt.name}: '{text[:40]}' is not one of {', '.join(opt.choices)}.")
        return found
    return text


def _bounds(opt: Opt, value: float, shown: str) -> None:
    if opt.min is not None and value < opt.min:
        raise BadOption(f"{opt.name}: {shown} is below the smallest allowed, {_num(opt.min)}.")
    if opt.max is not None and value > opt.max:
        raise BadOption(f"{opt.name}: {shown} is above the largest allowed, {_num(opt.max)}.")


def _num(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def parse_date(text: str, today: dt.date) -> dt.date:
    """``YYYY-MM-DD``, ``today`` or ``yesterday`` (the league's today, from ``TIMEZONE``).

    >>> parse_date("yesterday", dt.date(2026, 11, 21))
    datetime.date(2026, 11, 20)

    Raises:
        BadOption: not a date.
    """
    word = text.strip().lower()
    if word == "today":
        return today
    if word == "yesterday":
        return today - dt.timedelta(days=1)
    try:
        return dt.date.fromisoformat(word)
    except ValueError:
        raise BadOption(
            f"'{text.strip()[:40]}' is not a date; write YYYY-MM-DD, today or yesterday."
        ) from None


def read_upload(path: str) -> Upload:
    """A ``file`` option given as a path (console, command line).

    Raises:
        BadOption: the file is larger than ``MAX_FILE_BYTES``.
        OSError: it cannot be read (``describe`` names the file).
    """
    from storage.event_files import check_import_path  # SQLAlchemy: only when a file is read

    file = Path(path).expanduser()
    size = check_import_path(file)  # a regular file (not /dev/zero), before reading it
    if size > MAX_FILE_BYTES:
        raise BadOption(f"{file.name} is {size:,} bytes; files are at most {MAX_FILE_BYTES:,}.")
    return Upload(filename=file.name, data=file.read_bytes())


IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".heic", ".heif")
"""What ``accept="image"`` takes when no content type says it (a link, a path)."""


def check_accepted(opt: Opt, name: str, content_type: str | None) -> None:
    """Refuse a file ``opt`` does not accept (``accept="image"``: a picture only).

    A content type decides when there is one (Discord's attachments have it); otherwise the
    name's extension does.

    >>> photo = Opt("photo", "A photo", kind="link", accept="image")
    >>> check_accepted(photo, "receipt.png", "image/png")
    >>> check_accepted(photo, "receipt.txt", "text/plain")
    Traceback (most recent call last):
    ...
    bot.errors.BadOption: photo: receipt.txt is not an image; attach a photo (png, jpg, gif, webp).

    Raises:
        BadOption: the file is not of the accepted kind.
    """
    if opt.accept != "image":
        return
    if content_type:
        ok = content_type.split(";")[0].strip().lower().startswith("image/")
    else:
        ok = name.lower().endswith(IMAGE_EXTENSIONS)
    if not ok:
        shown = name.rsplit("/", 1)[-1][:60] or name[:60]
        raise BadOption(
            f"{opt.name}: {shown} is not an image; attach a photo (png, jpg, gif, webp)."
        )


def convert(opt: Opt, value: Any, *, today: dt.date) -> Any:
    """One option's value, checked: typed (Discord) or text (console, command line).

    Raises:
        BadOption: empty, the wrong kind of value, or out of range (names the option).
    """
    if isinstance(value, str) and opt.kind != "file" and not value.strip():
        raise BadOption(f"{opt.name}: is empty.")
    kind = opt.kind
    if opt.repeat:
        items = value if isinstance(value, list | tuple) else str(value).split(",")
        one = Opt(opt.name, opt.description, kind=opt.kind, max_length=opt.max_length)
        return tuple(convert(one, item, today=today) for item in items if str(item).strip())
    if kind == "text":
        text = _tidy(opt, str(value))
        if not text:
            raise BadOption(f"{opt.name}: is empty.")
        if opt.min is not None and len(text) < opt.min:
            raise BadOption(f"{opt.name}: at least {_num(opt.min)} characters.")
        return text
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            text = str(value).strip().replace(",", "").replace("_", "")
            if not re.fullmatch(r"[-+]?\d+", text):
                raise BadOption(f"{opt.name}: '{str(value)[:40]}' is not a whole number.")
            value = int(text)
        _bounds(opt, value, f"{value:,}")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            try:
                value = float(str(value).strip().replace(",", ""))
            except ValueError:
                raise BadOption(f"{opt.name}: '{str(value)[:40]}' is not a number.") from None
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            raise BadOption(f"{opt.name}: is not a number.")
        _bounds(opt, value, f"{value:g}")
        return value
    if kind == "yes":
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word in _YES:
            return True
        if word in _NO:
            return False
        raise BadOption(f"{opt.name}: answer yes or no, not '{str(value)[:40]}'.")
    if kind == "date":
        if isinstance(value, dt.date):
            return value
        return parse_date(str(value), today)
    if kind == "link":
        if isinstance(value, Upload):
            check_accepted(opt, value.filename, value.content_type)
            return value.url
        text = " ".join(str(value).split())
        if len(text) > (opt.max_length or 500):
            raise BadOption(f"{opt.name}: too long (at most {opt.max_length or 500} characters).")
        check_accepted(opt, text.split("?")[0].split("#")[0], None)
        return text
    if kind == "file":
        if isinstance(value, Upload):
            check_accepted(opt, value.filename, value.content_type)
            return value
        if not str(value).strip():
            raise BadOption(f"{opt.name}: is empty; give a file's path.")
        return read_upload(str(value).strip())
    # channel, role, member: an id (Discord passes the id; elsewhere <#id>, <@&id> or digits)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = _ID.match(str(value).strip())
    if match is None:
        raise BadOption(f"{opt.name}: '{str(value)[:40]}' is not a {kind} id.")
    return int(match.group(1) or match.group(2))


def bind(
    command: Command,
    values: Mapping[str, Any],
    *,
    surface: Surface,
    today: dt.date | Callable[[], dt.date],
) -> dict[str, Any]:
    """The handler's keyword arguments for ``values`` given on ``surface``.

    Args:
        command: the command.
        values: option name -> value as the surface read it (None: not given).
        surface: where it was typed (options of other surfaces are refused).
        today: the league's today (or a function giving it), for date words.

    Returns:
        Every option of the command on ``surface``, checked, with defaults filled in.

    Raises:
        BadOption: an unknown option, an empty value, a bad value, a missing required one.
    """
    known = {o.name: o for o in command.options_on(surface)}
    unknown = [name for name in values if name not in known]
    if unknown:
        raise BadOption(f"/{command.name} has no option {unknown[0]!r}; {_after(command, surface)}")
    day: dt.date | None = today if isinstance(today, dt.date) else None
    out: dict[str, Any] = {}
    for name, opt in known.items():
        value = values.get(name)
        if value is None:
            if command.is_required(opt, surface):
                raise BadOption(f"{opt.name}: is required ({usage(command, surface)}).")
            out[name] = opt.default
            continue
        if opt.kind == "date" and day is None:
            assert callable(today)
            day = today()
        out[name] = convert(opt, value, today=day or dt.date.min)
    return out


def _after(command: Command, surface: Surface) -> str:
    text = takes(command, surface)
    return text[0].lower() + text[1:] if text else text


def parse_line(command: Command, text: str) -> dict[str, str]:
    """Split the rest of a console line into the command's options, as Discord would.

    The text before the first ``name:`` belongs to the command's positional option; each
    ``name:`` that is one of the command's options starts the next value, which runs to the
    next such name (or is one quoted string: ``name:"2026 Fall"``). A ``word:`` that names no
    option is refused, except inside a ``raw`` option's value (``/hand alice: As Ks``).

    Raises:
        BadOption: an unknown option, an empty value, an option given twice, or free text for
            a command without a positional option (the message names the command's options).

    >>> from bot.command.model import Command, Opt
    >>> cmd = Command(("td", "season", "add"), "Add", "m:f", options=(Opt("name", "N"),))
    >>> parse_line(cmd, 'name:2026 Fall')
    {'name': '2026 Fall'}
    >>> parse_line(cmd, 'name:"2026 Fall"')
    {'name': '2026 Fall'}
    """
    opts = {o.name: o for o in command.options_on("console")}
    positional = next((o for o in opts.values() if o.positional), None)
    found: dict[str, str] = {}
    current: Opt | None = positional
    start = 0
    head = True
    quoted_to = _quote_end(text, 0)
    for match in _OPTION.finditer(text):
        if match.start() < quoted_to:
            continue  # inside a quoted value
        name = match.group(1).lower()
        if name not in opts:
            if current is not None and current.raw:
                continue  # part of free text such as "alice: As Ks"
            raise BadOption(f"/{command.name} has no option '{name}'; {_after(command, 'console')}")
        _put(command, found, current, text[start : match.start()], head=head)
        current, start, head = opts[name], match.end(), False
        quoted_to = _quote_end(text, match.end())
    _put(command, found, current, text[start:], head=head)
    return found


def _quote_end(text: str, at: int) -> int:
    """Where a value starting at ``at`` with a quote ends (``at`` itself when unquoted)."""
    rest = text[at:]
    stripped = rest.lstrip()
    if not stripped or stripped[0] not in "\"'":
        return at
    begin = at + len(rest) - len(stripped)
    close = text.find(stripped[0], begin + 1)
    return len(text) if close < 0 else close + 1


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        import shlex

        try:
            parts = shlex.split(value)
        except ValueError:
            return value[1:-1]
        return parts[0] if len(parts) == 1 else value[1:-1]
    return value


def _put(
    command: Command, found: dict[str, str], opt: Opt | None, value: str, *, head: bool
) -> None:
    text = _unquote(value)
    if opt is None:
        if text:
            raise BadOption(
                f"/{command.name}: '{text[:40]}' is not an option; {_after(command, 'console')}"
            )
        return
    if not text.strip():
        if head:
            return  # no free text before the first option
        raise BadOption(f"{opt.name}: is empty; {_after(command, 'console')}")
    if opt.name in found:
        raise BadOption(f"{opt.name}: is given twice.")
    found[opt.name] = text
