"""The scheduled backup's one row: who is taking it now (a lease), and how the last one went.

The same pattern as a clock's lease (``storage.clock_models.Clock``): an instance that wants to
take the backup claims the row with one conditional ``UPDATE`` (due, and nobody's lease
running), so of several instances sharing the database exactly one takes each backup; an
instance that dies mid-backup leaves a lease that runs out, and another takes over.
All times are stored in UTC.
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import BigInteger, Column, DateTime, String
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class BackupRun(SQLModel, table=True):
    """One scheduled job (``backup``): its lease, its last attempt and its last good backup."""

    __tablename__ = "backup_run"

    job: str = Field(sa_column=Column(String(32), primary_key=True))
    owner_id: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    lease_expires_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    started_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    finished_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    error: str | None = Field(default=None, sa_column=Column(String(500), nullable=True))
    ok_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    ok_path: str | None = Field(default=None, sa_column=Column(String(500), nullable=True))
    ok_bytes: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    ok_rows: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    ok_seconds: float | None = None
    ok_instance: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
