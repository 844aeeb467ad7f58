"""Who runs which clock, and what each pass claims: leases, adoption and announcement keys.

* several instances (processes) may share one database. Each running clock has one owner
  holding a lease (``lease_seconds``, 10 s, renewed by a heartbeat every third of it); only
  the owner posts its announcements and edits its status message. A live instance adopts a
  clock whose lease ran out (its owner died), at most ``lease_seconds`` plus one heartbeat
  after the death, and posts the one catch-up for what was missed. A clean stop releases the
  leases, so another instance adopts at once;
* every announcement has a stable key; keys are claimed in the same transaction that renews
  the lease (which fences out an adopter) and decides what is due, *before* anything is
  posted, and settled once the post is done with. Claims are inserted ``ON CONFLICT DO
  NOTHING``: losing a race is a normal outcome, never an error;
* each announcement is posted with a Discord ``nonce`` derived from its key (and
  ``enforce_nonce``), so Discord itself drops a second post of it. An adopter re-posts the dead
  owner's unsettled claims of the last ``NONCE_WINDOW_S`` seconds as they were (Discord
  deduplicates the ones that had gone out); older ones, and everything missed while nobody
  owned the clock, are folded into one catch-up message ("We are now at level 6: blinds
  1,000/2,000"); a paused clock stays paused.

``ClockService`` (``.service``) decides when; these functions take what they need (a session,
or the ``Database``) and touch no scheduler and no Discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session

from bot.database import Database
from rulings import Announcement, BlindStructureError, ClockError, announcements_between, catch_up
from storage import clocks, tournaments
from storage.clocks import ClockRecord
from storage.errors import AlreadyExists, NotFound

log = logging.getLogger(__name__)

RELEASE_WAIT_S = 3.0
"""How long a stop waits to release its leases before leaving them to run out."""
# Discord checks a nonce against the author's messages of "the past few minutes".
NONCE_WINDOW_S = 90.0


def announcement_nonce(record: ClockRecord, key: str) -> str:
    """The Discord nonce of one announcement: stable, unique per clock and key, 25 characters.

    The clock's start is in it as well as its id, so that two databases (a test run, a
    restored backup) posting through one bot never share nonces.
    """
    seed = f"pokerfloor:{record.id}:{record.state.started_at.isoformat()}:{key}"
    return hashlib.sha256(seed.encode()).hexdigest()[:25]


# Tells this process's life from an earlier one that had the same pid (a container's pid 1).
_PROCESS_LIFE = f"{time.time_ns() // 1_000_000:x}"


def new_instance_id() -> str:
    """An id for a clock service: host, pid, this process's start and a random part."""
    host = socket.gethostname()[:28].replace(":", "-")
    return f"{host}:{os.getpid()}:{_PROCESS_LIFE}:{uuid.uuid4().hex[:8]}"


def is_dead_here(owner_id: str, instance_id: str) -> bool:
    """Whether ``owner_id`` was a process of this machine that no longer runs.

    A bot restarted after a crash (systemd, docker restart) need not wait for its former self's
    lease: same host, and its pid is gone, or is this process's pid in an earlier life (a
    container's pid 1). Services of this very process, and other machines' owners, are never
    judged dead here: their lease decides. Containers that share one hostname (``uts: host``)
    look like one machine: a starting one then takes the others' clocks over at once (a clean
    handover: the old owner's next claim finds the lease gone and posts nothing).

    >>> is_dead_here("h:1:a1:0000", "h:1:b2:1111")
    True
    >>> is_dead_here("h:1:b2:0000", "h:1:b2:1111")
    False
    >>> is_dead_here("other:1:a1:0000", "h:1:b2:1111")
    False
    """
    theirs, mine = owner_id.split(":"), instance_id.split(":")
    if len(theirs) != 4 or len(mine) != 4 or theirs[0] != mine[0] or not theirs[1].isdigit():
        return False
    if theirs[1] == mine[1]:
        return theirs[2] != mine[2]
    try:
        os.kill(int(theirs[1]), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):  # alive (another user's), or no such pid
        return False
    return False


@dataclass(frozen=True)
class Claim:
    """What one clock claimed in one pass.

    Attributes:
        record: the clock, its ``announced`` keys including everything handled in this pass.
        posts: the messages to post now.
        settle: the keys to settle once those posts are done with.
        armed: keys claimed ahead that are this instance's to post at their time (not due
            yet): its own, or left by an owner that died (adoption).
    """

    record: ClockRecord
    posts: list[Announcement]
    settle: list[str]
    armed: frozenset[str] = frozenset()


def renew_and_adopt(
    *,
    session: Session,
    owner_id: str,
    now: dt.datetime,
    until: dt.datetime,
    dead_owners: Sequence[str] = (),
) -> tuple[set[int], set[int]]:
    """One heartbeat in one transaction: (clocks still owned, clocks adopted now)."""
    kept = clocks.renew_leases(session=session, owner_id=owner_id, until=until)
    adopted = clocks.adopt_expired_clocks(
        session=session, owner_id=owner_id, now=now, until=until, dead_owners=dead_owners
    )
    return kept, adopted


def claim_due(
    *,
    session: Session,
    until: dict[int, dt.datetime],
    now: dt.datetime,
    collapse: bool,
    owner_id: str,
    lease_until: dt.datetime,
    armed: Mapping[int, AbstractSet[str]] | None = None,
) -> tuple[list[Claim], set[int]]:
    """In one transaction: per clock still owned, what is due by ``until[id]``, claimed.

    The lease is renewed first: on PostgreSQL that locks the clock rows, so an instance trying
    to adopt them waits for this transaction and then finds the lease alive. Clocks no longer
    owned are returned as lost (second item) and get nothing.

    ``armed`` are the keys this instance claimed ahead (``arm_ahead``) and has not posted: due
    now, they are posted without a new claim; not due, they stay armed.

    With ``collapse`` (adoption: the previous owner is gone) its unsettled claims of the last
    ``NONCE_WINDOW_S`` are posted again as they were (same nonce: Discord drops a repeat), and
    everything else that was missed (older unsettled claims included) becomes one catch-up;
    its unsettled claims not due yet (claimed ahead) become this instance's armed keys.
    """
    owned = clocks.renew_leases(
        session=session, owner_id=owner_id, until=lease_until, clock_ids=list(until)
    )
    records = clocks.get_clocks(session=session, clock_ids=sorted(owned))
    posts: dict[int, list[Announcement]] = {}
    keys: dict[int, list[str]] = {}
    again: dict[int, list[Announcement]] = {}
    stale: dict[int, list[str]] = {}
    mine: dict[int, set[str]] = {}
    window = dt.timedelta(seconds=NONCE_WINDOW_S)
    for record in records:
        due_all = announcements_between(record.state, None, until[record.id])
        due_at = {a.key: a.at for a in due_all}
        held = set((armed or {}).get(record.id, ())) & record.unsettled
        claimed = set(record.announced) - held
        if collapse and record.unsettled:
            since = record.unsettled_since
            ahead_of_time = {k for k in record.unsettled - set(due_at) if not _is_catch_up(k)}
            held |= ahead_of_time  # the dead owner's claims ahead: this instance posts them
            claimed -= ahead_of_time
            # A catch-up was claimed with what it covers, in one transaction (one claim time):
            # those were never to be posted as they were, so they fold into a new catch-up.
            covered = {since[k] for k in record.unsettled if _is_catch_up(k)}
            recent = {
                k
                for k, t in since.items()
                if k in due_at
                # posted no earlier than it was due: Discord remembers the nonce from then
                and now - max(t, due_at[k]) <= window
                and not (t in covered and due_at[k] <= t)
            }
            again[record.id] = [a for a in due_all if a.key in recent]
            repostable = {a.key for a in again[record.id]}
            stale[record.id] = sorted(record.unsettled - repostable - ahead_of_time)
            claimed -= set(stale[record.id])
        due = [a for a in due_all if a.key not in claimed]
        mine[record.id] = held
        if due and collapse:
            summary = catch_up(record.state, due, now)
            posts[record.id] = [summary]
            keys[record.id] = [a.key for a in due if a.key not in record.announced]
            keys[record.id].append(summary.key)
        elif due:
            posts[record.id] = due
            keys[record.id] = [a.key for a in due if a.key not in held]
    fresh = clocks.record_many_announcements(session=session, keys=keys, at=now)
    claims = []
    for r in records:
        made = set(fresh.get(r.id, []))
        held = mine[r.id]
        # A lost race posts nothing; a catch-up keyed like a dead owner's unsettled one is
        # ours to post now (same key, same nonce: Discord drops it if the first went out).
        ours = made | set(stale.get(r.id, [])) | held
        new = [a for a in posts.get(r.id, []) if a.key in ours]
        repost = again.get(r.id, [])
        settle = [a.key for a in repost + new] + sorted(made - {a.key for a in new})
        settle += [k for k in stale.get(r.id, []) if k not in settle]
        done = {a.key for a in posts.get(r.id, [])} | set(keys.get(r.id, []))
        due_keys = {a.key for a in announcements_between(r.state, None, until[r.id])}
        record = replace(r, announced=r.announced | done | due_keys)
        claims.append(Claim(record, repost + new, settle, frozenset(held - due_keys)))
    return claims, set(until) - owned


@dataclass(frozen=True)
class Started:
    """One clock started by ``start_many``: its first claim and its tournament line (13)."""

    claim: Claim
    tournament: str | None


def start_many(
    *,
    session: Session,
    starts: Sequence[Mapping[str, Any]],
    now: dt.datetime,
    owner_id: str,
    lease_until: dt.datetime,
    ahead: dt.timedelta | None = None,
) -> list[Started | StartRefused]:
    """Several clocks' starts (``clocks.add_clock(**start)``) and first claims, in one transaction.

    Each start claims its own level 1 (due at its ``started_at``) and, with ``ahead``, what
    falls due in that time after ``now`` (armed); its channel's tournament line, for the status
    message, is read in the same transaction. A start that ``add_clock`` refuses (a running
    clock in the channel, an unknown structure, a length out of range: refused before anything
    is written) gets that error in its place and the others go on; anything else fails the
    whole transaction. One transaction for clocks started together: 200 starts in one second
    would otherwise queue 200 transactions for SQLite's one write lock.
    """
    made: dict[int, ClockRecord] = {}
    results: list[StartRefused | int] = []
    for start in starts:
        try:
            record = clocks.add_clock(
                session=session, **start, owner_id=owner_id, lease_until=lease_until
            )
        except (AlreadyExists, BlindStructureError, ClockError) as exc:
            results.append(StartRefused(exc))
            continue
        made[record.id] = record
        results.append(record.id)
    if not made:
        return [r for r in results if isinstance(r, StartRefused)]
    until = {cid: r.state.started_at for cid, r in made.items()}
    claims, _ = claim_due(
        session=session,
        until=until,
        now=now,
        collapse=False,
        owner_id=owner_id,
        lease_until=lease_until,
    )
    by_id = {c.record.id: c for c in claims}
    if ahead is not None:
        keys = {
            cid: [
                a.key
                for a in announcements_between(c.record.state, until[cid], now + ahead)
                if a.key not in c.record.announced
            ]
            for cid, c in by_id.items()
        }
        armed = clocks.record_many_announcements(session=session, keys=keys, at=now)
        by_id = {
            cid: replace(
                c,
                record=replace(c.record, announced=c.record.announced | set(keys[cid])),
                armed=c.armed | set(armed.get(cid, ())),
            )
            for cid, c in by_id.items()
        }
    lines = tournaments.tournament_status_lines(
        session=session, channel_ids=[r.channel_id for r in made.values()]
    )
    return [
        r if isinstance(r, StartRefused) else Started(by_id[r], lines[made[r].channel_id])
        for r in results
    ]


@dataclass(frozen=True)
class StartRefused:
    """A start ``start_many`` refused: the error ``add_clock`` raised for it."""

    error: AlreadyExists | BlindStructureError | ClockError


def arm_ahead(
    *,
    session: Session,
    owner_id: str,
    lease_until: dt.datetime,
    keys: Mapping[int, Sequence[str]],
    posted: Mapping[int, Sequence[str]],
    now: dt.datetime,
) -> tuple[set[int], dict[int, list[str]]]:
    """The bookkeeping after posting, in one transaction: (clocks still owned, keys armed).

    Settles what was posted from armed keys (``posted``, whoever owns the clock now: it went
    out), renews the leases of the clocks in ``keys`` and claims those keys (announcements
    due soon, computed by the caller) for the clocks still owned: the ones returned are this
    instance's to post at their time without asking the database again.
    """
    if posted:
        clocks.settle_announcements(session=session, keys=posted, at=now)
    owned = clocks.renew_leases(
        session=session, owner_id=owner_id, until=lease_until, clock_ids=sorted(keys)
    )
    wanted = {cid: ks for cid, ks in keys.items() if cid in owned and ks}
    return owned, clocks.record_many_announcements(session=session, keys=wanted, at=now)


def store_status_messages(*, session: Session, message_ids: Mapping[int, int | None]) -> None:
    """Several clocks' status message ids (``clocks.set_status_message``), one transaction."""
    for clock_id, message_id in message_ids.items():
        with contextlib.suppress(NotFound):  # gone: nothing to remember (nothing was written)
            clocks.set_status_message(session=session, clock_id=clock_id, message_id=message_id)


def _is_catch_up(key: str) -> bool:
    return key.startswith("catch-up:")


async def settle(db: Database, keys: dict[int, list[str]], at: dt.datetime) -> None:
    """Mark claimed announcements done with (posted or given up), per clock id."""
    if not keys:
        return
    try:
        await db.run(clocks.settle_announcements, keys=keys, at=at)
    except Exception:
        # Left unsettled: an adopter re-posts them with their nonce, which Discord drops.
        log.exception("could not settle the announcements of clocks %s", sorted(keys))


def stand_down(
    *,
    session: Session,
    owner_id: str,
    posted: Mapping[int, Sequence[str]],
    armed: Mapping[int, Sequence[str]],
    at: dt.datetime,
) -> int:
    """A clean stop in one transaction; how many clocks were released.

    Settles what was posted, withdraws what was claimed ahead and not posted (an adopter then
    sees it as missed, not as perhaps posted) and releases the leases.
    """
    clocks.settle_announcements(session=session, keys=posted, at=at)
    mine = clocks.list_owned_versions(session=session, owner_id=owner_id)  # not an adopter's
    clocks.withdraw_announcements(
        session=session, keys={cid: ks for cid, ks in armed.items() if cid in mine}
    )
    return clocks.release_leases(session=session, owner_id=owner_id)


async def release_leases(
    db: Database,
    owner_id: str,
    *,
    posted: Mapping[int, Sequence[str]] | None = None,
    armed: Mapping[int, Sequence[str]] | None = None,
    at: dt.datetime | None = None,
) -> None:
    """Give up ``owner_id``'s leases (a clean stop), so that another instance adopts at once.

    With ``posted`` and ``armed`` (and ``at``), ``stand_down`` in the same transaction.
    """
    try:
        # Bounded: a stop never waits out a database lock (SQLite's busy timeout is 30 s);
        # a lease not released runs out by itself within ``lease_seconds``.
        if posted or armed:
            call = db.run(
                stand_down, owner_id=owner_id, posted=posted or {}, armed=armed or {}, at=at
            )
        else:
            call = db.run(clocks.release_leases, owner_id=owner_id)
        await asyncio.wait_for(call, RELEASE_WAIT_S)
    except TimeoutError:
        log.warning(
            "clock leases of %s not released within %.0f s (database busy); they run out "
            "by themselves",
            owner_id,
            RELEASE_WAIT_S,
        )
    except Exception:  # the leases run out by themselves
        log.exception("could not release the clock leases of %s", owner_id)
