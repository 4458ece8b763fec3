"""One owner per embedded index (SPEC 2.5): an fcntl lock file that names its holder's PID.

Qdrant Edge locks its WAL itself; this lock exists so the refusal can say *who* holds the
index and what to do, and so that a lock left by a dead process is reported, not ignored.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path
from typing import IO

from server.core.errors import StoreLockedError

log = logging.getLogger(__name__)


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
        """Clear the recorded PID and unlock; safe to call twice."""
        if self._handle is None:
            return
        self._handle.seek(0)
        self._handle.truncate()
        fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
        self._handle.close()
        self._handle = None
