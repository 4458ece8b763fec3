"""One owner per embedded index (SPEC 2.5): an fcntl lock file that names its holder's PID.

Qdrant Edge locks its WAL itself; this lock exists so the refusal can say *who* holds the
index and what to do, and so that a lock left by a dead process is reported, not ignored.

An owner that serves HTTP (`citegate serve`) also records its address beside the lock
(`<lock>.server`, JSON `{"url", "pid"}`), so `citegate ingest` and `citegate ask` can send
their work to it instead of being refused. The record is removed when the lock is released
and ignored when its process is gone or the lock is free.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from pathlib import Path
from typing import IO

from server.core.errors import StoreLockedError
from server.core.settings import Settings

log = logging.getLogger(__name__)


def edge_lock_path(settings: Settings) -> Path:
    """The lock file of the configured embedded index (`data_dir/qdrant-edge/<collection>`)."""
    return lock_path_of(settings.data_dir / "qdrant-edge" / settings.collection)


def lock_path_of(store_path: Path) -> Path:
    """The lock file beside an embedded index folder."""
    return store_path.parent / f"{store_path.name}.lock"


def server_record_path(lock_path: Path) -> Path:
    """Where the owner of `lock_path` records the address it serves on."""
    return lock_path.with_name(f"{lock_path.name}.server")


def record_server(lock_path: Path, url: str) -> None:
    """Record that this process serves the index at `url` (written whole, then renamed)."""
    record = server_record_path(lock_path)
    record.parent.mkdir(parents=True, exist_ok=True)
    partial = record.with_name(f"{record.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps({"url": url, "pid": os.getpid()}), encoding="utf-8")
    partial.replace(record)


def forget_server(lock_path: Path) -> None:
    """Remove the address record if this process wrote it; safe to call twice."""
    record = server_record_path(lock_path)
    if _read_record(record).get("pid") == os.getpid():
        record.unlink(missing_ok=True)


def recorded_server(lock_path: Path) -> str | None:
    """The URL of the live server that owns the index at `lock_path`, or None: no record, its
    process is gone, or nobody holds the lock (a record left by a killed server)."""
    record = _read_record(server_record_path(lock_path))
    url, pid = record.get("url"), record.get("pid")
    if not isinstance(url, str) or not isinstance(pid, int) or not _pid_alive(pid):
        return None
    return url if lock_held(lock_path) else None


def lock_held(lock_path: Path) -> bool:
    """Whether some process (this one included, through another handle) holds the lock."""
    try:
        handle = lock_path.open("r", encoding="utf-8")
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return False


def _read_record(record: Path) -> dict[str, object]:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class OwnerLock:
    """An exclusive, non-blocking lock on `path`, released by `release()` or process exit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None
        self.stale_pid: int | None = None

    def acquire(self) -> None:
        """Take the lock or raise StoreLockedError naming the live holder."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self._recorded_pid(handle)
            handle.close()
            raise StoreLockedError(
                f"the embedded index {self.path.parent} is owned by process {holder or '?'} "
                "(Qdrant Edge allows one process): if that is `citegate serve`, send documents "
                "to its `POST /v1/ingest` or ask through its API; otherwise stop that process"
            ) from None
        previous = self._recorded_pid(handle)
        if previous and previous != os.getpid() and not _pid_alive(previous):
            self.stale_pid = previous
            log.warning(
                "store lock %s was left by process %d, which is no longer running; it did not "
                "close the index cleanly, so this process recovers it from the write-ahead log",
                self.path,
                previous,
            )
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle

    @staticmethod
    def _recorded_pid(handle: IO[str]) -> int | None:
        handle.seek(0)
        text = handle.read().strip()
        return int(text) if text.isdigit() else None

    def release(self) -> None:
        """Clear the recorded PID and this process's server address, and unlock; safe to call
        twice."""
        if self._handle is None:
            return
        forget_server(self.path)
        self._handle.seek(0)
        self._handle.truncate()
        fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
        self._handle.close()
        self._handle = None
