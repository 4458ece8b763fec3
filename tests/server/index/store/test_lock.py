"""One owner per embedded index: refusal names the PID; a dead owner's lock is reported; what a
killed owner wrote survives it."""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
from pathlib import Path

import pytest

from server.core.errors import StoreLockedError
from server.core.settings import load_settings
from server.index.store import open_store
from tests.server.index.store.test_contract import IDENTITY, _doc, _record


def _try_open(data_dir: str, queue: mp.Queue) -> None:  # type: ignore[type-arg]
    try:
        open_store(load_settings(data_dir=data_dir), IDENTITY).close()
        queue.put("opened")
    except StoreLockedError as exc:
        queue.put(f"locked: {exc}")


def test_second_process_is_refused_with_the_holder_pid(tmp_path: Path) -> None:
    store = open_store(load_settings(data_dir=tmp_path), IDENTITY)
    queue: mp.Queue = mp.get_context("spawn").Queue()  # type: ignore[type-arg]
    child = mp.get_context("spawn").Process(target=_try_open, args=(str(tmp_path), queue))
    child.start()
    child.join(120)
    message = queue.get(timeout=5)
    store.close()
    assert message.startswith("locked:")
    assert str(os.getpid()) in message and "POST /v1/ingest" in message


def test_lock_left_by_a_dead_process_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    open_store(load_settings(data_dir=tmp_path), IDENTITY).close()
    lock = tmp_path / "qdrant-edge" / "citegate.lock"
    lock.write_text("999999")  # a PID that is not running
    with caplog.at_level(logging.WARNING):
        store = open_store(load_settings(data_dir=tmp_path), IDENTITY)
    store.close()
    assert "999999" in caplog.text and "no longer running" in caplog.text


def test_corrupt_index_says_so_and_how_to_rebuild(tmp_path: Path) -> None:
    from server.core.errors import StoreCorruptError

    settings = load_settings(data_dir=tmp_path)
    open_store(settings, IDENTITY).close()
    for path in (tmp_path / "qdrant-edge" / "citegate").rglob("*"):
        if path.is_file():
            path.write_bytes(b"garbage")
    with pytest.raises(StoreCorruptError, match=r"--rebuild"):
        open_store(settings, IDENTITY)
    rebuilt = open_store(settings, IDENTITY, rebuild=True)
    assert rebuilt.count() == 0
    rebuilt.close()


def test_an_index_the_engine_cannot_write_says_what_to_do_and_frees_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.core.errors import StoreError
    from server.index.store import edge

    class FullDisk:
        def update(self, _: object) -> None:
            raise Exception("IO Error: No space left on device (os error 28)")

    monkeypatch.setattr(edge, "_open_shard", lambda path, dim: FullDisk())
    settings = load_settings(data_dir=tmp_path)
    with pytest.raises(StoreError, match=r"No space left.*free space and run the command again"):
        open_store(settings, IDENTITY)
    monkeypatch.undo()
    open_store(settings, IDENTITY).close()  # the owner lock was released


def _write_then_die(data_dir: str) -> None:
    store = open_store(load_settings(data_dir=data_dir), IDENTITY)
    store.upsert([_record("cors", "Use CORSMiddleware.", ("public",), rev="r2")])
    store.put_doc(_doc("cors", "Use CORSMiddleware.", rev="r2"))  # the flip, not flushed
    os._exit(9)  # no close(): whatever was not replayable is lost


def test_a_flip_survives_its_writer_being_killed(tmp_path: Path) -> None:
    child = mp.get_context("spawn").Process(target=_write_then_die, args=(str(tmp_path),))
    child.start()
    child.join(120)
    assert child.exitcode == 9
    store = open_store(load_settings(data_dir=tmp_path), IDENTITY)  # the write-ahead log replays
    doc = store.get_doc("cors")
    count = store.count()
    store.close()
    assert doc is not None and doc.rev == "r2"
    assert count == 1  # its chunk came back with it
