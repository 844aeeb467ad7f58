"""``pokerfloor backup`` and ``restore`` (command line) and ``/admin backup`` (the owner)."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

from bot.command.model import Context
from bot.reply import Field, Reply

log = logging.getLogger(__name__)


def _size(size_bytes: int) -> str:
    """``3.2 MB``.

    >>> _size(3_200_000), _size(900)
    ('3.2 MB', '0.9 kB')
    """
    return f"{size_bytes / 1e6:.1f} MB" if size_bytes >= 1e5 else f"{size_bytes / 1e3:.1f} kB"


def _where(url: str) -> str:
    """The database URL without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def backup(ctx: Context, file: str) -> Reply:
    """``pokerfloor backup FILE``: every league of the database, in one file."""
    from storage.backup import write_backup
    from storage.errors import BackupError

    is_empty = getattr(ctx.db, "is_empty", None)
    if is_empty is not None and is_empty():
        raise BackupError(f"there is no database at {_where(ctx.settings.database_url)}.")
    done = write_backup(ctx.db.engine, Path(file).expanduser(), now=ctx.now())
    return Reply(
        title="Backed up",
        text=(
            f"{done.rows:,} rows of {len(done.tables)} tables to {done.path} "
            f"({_size(done.size_bytes)}, schema revision {done.revision}) in {done.seconds:.1f} s."
        ),
    )


def restore(ctx: Context, file: str, replace: bool = False) -> Reply:
    """``pokerfloor restore FILE [--replace]``: a backup into an empty database, all or nothing."""
    from storage.restore import check_backup, restore_backup

    path = Path(file).expanduser()
    check_backup(path)  # before the database is opened (and a missing SQLite file made)
    done = restore_backup(ctx.db.engine, path, replace=replace)
    return Reply(
        title="Restored",
        text=(
            f"{done.rows:,} rows of {len(done.tables)} tables from {done.path} (schema revision "
            f"{done.revision}) into {_where(ctx.settings.database_url)} in {done.seconds:.1f} s."
        ),
    )


def _when(at: dt.datetime, now: dt.datetime) -> str:
    """``2026-12-01 16:00 UTC (2 h 5 min ago)``."""
    minutes = max(0, int((now - at).total_seconds() // 60))
    ago = f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
    return f"{at:%Y-%m-%d %H:%M} UTC ({ago} ago)"


def last_backup(ctx: Context) -> Reply:
    """``/admin backup``: when the scheduled backup last ran, where its file is, its size."""
    from storage.backup_schedule import get_last_backup

    last = ctx.db.run_sync(get_last_backup)
    now = ctx.now()
    fields: list[Field] = []
    if last is None or last.ok_at is None:
        fields.append(Field("Last backup", "none yet"))
    else:
        host = (last.instance or "?").split(":", 1)[0]
        fields.append(Field("Last backup", _when(last.ok_at, now)))
        fields.append(Field("Where", f"`{last.path}` on {host}"))
        size = f"{_size(last.size_bytes or 0)}, {last.rows or 0:,} rows"
        fields.append(Field("Size", f"{size}, written in {last.seconds or 0:.1f} s"))
    if last is not None and last.error is not None and last.finished_at is not None:
        fields.append(Field("Last attempt failed", f"{_when(last.finished_at, now)}: {last.error}"))
    if last is not None and last.running_since is not None:
        fields.append(Field("Running", f"since {_when(last.running_since, now)}"))
    settings = ctx.settings
    if settings.backup_dir is None:
        schedule = "off on this instance (set BACKUP_DIR)"
    else:
        hours = settings.backup_every.total_seconds() / 3600
        schedule = (
            f"every {hours:g} h into `{settings.backup_dir}`, keeping the newest "
            f"{settings.backup_keep}"
        )
    fields.append(Field("Schedule", schedule))
    return Reply(title="Backups", fields=tuple(fields), private=True)
