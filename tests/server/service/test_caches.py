"""Caches shared by concurrent requests (the service answers in a thread pool): many threads
at once must each get their own values, and never an error."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest

from server.core.contracts import DocRecord
from server.core.settings import load_settings
from server.index.embed import QueryVectorCache
from server.index.store import open_store
from server.query.integrity.support import FeatureSupportScorer, SupportModel
from tests.fakes import HashEmbedder

THREADS, ROUNDS = 16, 200


@pytest.fixture(autouse=True)
def _switch_often() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # interleave the threads as much as the interpreter allows
    yield
    sys.setswitchinterval(before)


def _hammer(work: Callable[[int], None]) -> None:
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(work, range(THREADS * ROUNDS)))


class _StoredThenEvicted(dict[str, tuple[float, ...]]):
    """Another request fills the cache right after this one stored its vector, so that
    this one's entry is evicted before it is read back: the switch that would hand one
    request another's vector, made deterministic."""

    def __setitem__(self, key: str, value: tuple[float, ...]) -> None:
        super().__setitem__(key, value)
        if key == "mine":
            self.clear()
            super().__setitem__("other", tuple(HashEmbedder(dim=64).embed_query("other")))


def test_the_query_cache_never_hands_one_request_another_requests_vector() -> None:
    cache = QueryVectorCache(HashEmbedder(dim=64), size=4)
    cache._vectors = _StoredThenEvicted()
    assert cache.embed_query("mine") == HashEmbedder(dim=64).embed_query("mine")
    wrong: list[int] = []
    shared = QueryVectorCache(HashEmbedder(dim=64), size=4)  # evicting all the time

    def work(i: int) -> None:  # and many threads at once
        query = f"question number {i % THREADS}"
        if shared.embed_query(query) != HashEmbedder(dim=64).embed_query(query):
            wrong.append(i)

    _hammer(work)
    assert not wrong


class _ClearedByAnother(dict[str, list[float]]):
    """Another request clears the cache right after this one stored its vector."""

    def __setitem__(self, key: str, value: list[float]) -> None:
        super().__setitem__(key, value)
        self.clear()


def test_the_support_scorer_cache_survives_clear_under_concurrency() -> None:
    model = SupportModel(
        intercept=0.0,
        weights=dict.fromkeys(
            ("coverage", "cosine", "numbers_agree", "negation_mismatch", "entity_coverage"), 1.0
        ),
        origin="test",
    )
    scorer = FeatureSupportScorer(HashEmbedder(dim=16), model)
    scorer._cache = _ClearedByAnother()
    assert scorer._vec("text") == HashEmbedder(dim=16).embed_documents(["text"])[0]  # no KeyError
    scorer = FeatureSupportScorer(HashEmbedder(dim=16), model)
    errors: list[BaseException] = []

    def work(i: int) -> None:  # and many threads at once
        try:
            for j in range(30):  # distinct texts: the 4096-entry cache clears again and again
                scorer._vec(f"text {i} {j}")
        except KeyError as exc:
            errors.append(exc)

    _hammer(work)
    assert not errors


def test_live_revs_is_a_snapshot_put_doc_does_not_change(tmp_path: Path) -> None:
    from tests.server.index.store.test_contract import IDENTITY

    store = open_store(load_settings(data_dir=tmp_path), IDENTITY)
    try:
        before = store.live_revs()
        now = datetime.now(UTC)
        store.put_doc(
            DocRecord(
                doc_id="d1",
                rev="r1",
                source_url="d1",
                path="d1",
                title="d1",
                content_hash="h",
                chunks=0,
                updated_at=now,
                ingested_at=now,
                text="",
            )
        )
        assert "d1" not in before and store.live_revs()["d1"] == "r1"
    finally:
        store.close()
