"""Policy and scope (SPEC 3.2), rerank tie-break (seed 002 rule 5), refusal, deltaS, parity."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from ingest.pipeline import ingest_uploads
from server.core.contracts import Chunk, Hit, Offsets
from server.core.errors import IndexMismatchError
from server.core.identity import index_hash
from server.core.settings import load_settings
from server.index.sparse import Bm25Encoder
from server.index.store import open_memory_store
from server.query.answer import Engine, _of_revisions, answer, retrieve_evidence
from server.query.answer_types import common_names
from server.query.evidence import without_change_logs
from server.query.integrity.live import LiveIndex
from server.query.policy import CorpusPolicy, apply_policy
from server.query.rerank import (
    absent_names,
    question_coverage,
    refusal_threshold,
    rerank,
    should_refuse,
)
from server.query.retrieve import check_parity, delta_s
from tests.engine import offline_engine
from tests.fakes import HashEmbedder

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def hit(
    sid: str,
    section: str = "s",
    tags: tuple[str, ...] = ("public",),
    age_days: int = 0,
    url: str = "docs/a.md",
    domain: str = "local",
    k: int = 1,
    text: str = "text",
) -> Hit:
    chunk = Chunk(
        doc_id="d",
        section_id=section,
        snippet_id=sid,
        source_url=url,
        offsets=Offsets(start=0, end=len(text)),
        tokens=1,
        index_hash="h",
        embed_model="m",
        analyzer="a",
        rev="r",
        text=text,
        title="t",
        tags=tags,
        source_domain=domain,
        updated_at=NOW - timedelta(days=age_days),
        content_hash="c",
    )
    return Hit(chunk=chunk, score_raw=1.0 / k, k_pos=k)


def ids(hits: list[Hit]) -> list[str]:
    return [h.chunk.snippet_id for h in hits]


def test_policy_drops_denied_tags_sources_domains_and_out_of_scope() -> None:
    hits = [
        hit("a"),
        hit("b", tags=("draft",)),
        hit("c", url="elsewhere/x.md"),
        hit("d", domain="evil.com"),
        hit("e", tags=("internal",)),
    ]
    policy = CorpusPolicy(
        denied_tags=("draft",), allowed_sources=("docs/",), allowed_domains=("local",)
    )
    assert ids(apply_policy(hits, policy, scope_tags=None, now=NOW)) == ["a", "e"]
    assert ids(apply_policy(hits, policy, scope_tags=("public",), now=NOW)) == ["a"]
    assert apply_policy(hits, policy, scope_tags=(), now=NOW) == []


@pytest.mark.parametrize(
    ("action", "expected"),
    [("annotate", ["old", "new"]), ("demote", ["new", "old"]), ("drop", ["new"])],
)
def test_stale_documents(action: str, expected: list[str]) -> None:
    policy = CorpusPolicy(max_age_days=30, stale_action=action)
    out = apply_policy([hit("old", age_days=90), hit("new")], policy, scope_tags=None, now=NOW)
    assert ids(out) == expected
    assert [h.old_document for h in out] == [i == "old" for i in expected]


class TableScorer:
    name = "table"

    def __init__(self, table: dict[str, float]) -> None:
        self.table = table

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        return [self.table[h.chunk.snippet_id] for h in hits]


def test_rerank_sorts_with_the_deterministic_tie_break() -> None:
    hits = [hit("z2", "b", k=1), hit("a9", "b", k=2), hit("m1", "a", k=3), hit("top", "c", k=4)]
    out = rerank("q", hits, TableScorer({"z2": 0.5, "a9": 0.5, "m1": 0.5, "top": 0.9}), top_k=3)
    assert ids(out) == ["top", "m1", "a9"]  # 0.9 first; ties by section asc, then snippet asc
    assert [h.k_final for h in out] == [1, 2, 3] and [h.k_pos for h in out] == [4, 3, 2]
    assert out[0].rerank_score == 0.9 and out[0].score_norm == 0.9


def test_refusal_and_delta_s() -> None:
    settings = load_settings()
    floor = settings.retrieval.model_copy(update={"min_rerank_score": 0.3, "uncovered_penalty": 0})
    sparse = Bm25Encoder(settings.models)
    assert should_refuse("q", [], floor, sparse)
    scored = rerank("q", [hit("a")], TableScorer({"a": 0.3}), top_k=1)
    higher = floor.model_copy(update={"min_rerank_score": 0.35})
    lower = floor.model_copy(update={"min_rerank_score": 0.25})
    assert should_refuse("q", scored, higher, sparse)
    assert not should_refuse("q", scored, lower, sparse)
    # centroid (0.5, 0.5): cos = 0.5 / sqrt(0.5) = 0.7071 -> deltaS = 0.2929 (rounded to 4 places)
    assert delta_s([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]) == round(1 - 0.5 / 0.5**0.5, 4)
    assert delta_s([1.0, 0.0], []) == 1.0


def test_refusal_threshold_rises_with_question_terms_the_best_hit_lacks() -> None:
    settings = load_settings()
    sparse = Bm25Encoder(settings.models)
    question = "How do cookies expire in the browser?"  # BM25 terms: cooki, expir, browser
    assert question_coverage(question, "Cookies are sent by the browser.", sparse) == 2 / 3
    assert question_coverage(question, "A cookie can expire in a browser.", sparse) == 1.0
    assert question_coverage("What is it?", "anything", sparse) == 1.0  # stopwords only
    rule = settings.retrieval.model_copy(update={"min_rerank_score": 0.5, "uncovered_penalty": 0.3})
    assert refusal_threshold(2 / 3, rule) == pytest.approx(0.5 + 0.3 / 3)  # 0.6
    partial = hit("a", text="Cookies are sent by the browser.")
    full = hit("b", text="A cookie can expire in a browser.")
    scorer = TableScorer({"a": 0.55, "b": 0.52})
    assert should_refuse(question, rerank(question, [partial], scorer, 1), rule, sparse)  # < 0.6
    assert not should_refuse(question, rerank(question, [full], scorer, 1), rule, sparse)  # >= 0.5
    no_penalty = rule.model_copy(update={"uncovered_penalty": 0.0})
    assert not should_refuse(question, rerank(question, [partial], scorer, 1), no_penalty, sparse)


def test_names_no_candidate_mentions_refuse() -> None:
    rule = load_settings().retrieval.model_copy(update={"missing_name_share": 0.5})
    pool = [hit("a", text="GitHub handles DMCA counter notices"), hit("b", text="Notices.")]
    q = "How does GitLab handle DMCA counter notices?"  # GitLab: 1 of 2 names, >= 0.5
    assert absent_names(q, pool, rule) == ("GitLab",)
    assert absent_names(q, [*pool, hit("c", text="GitLab too")], rule) == ()  # any candidate
    assert absent_names(q, pool, rule.model_copy(update={"missing_name_share": 1.0})) == ()
    assert absent_names(q, pool, rule.model_copy(update={"missing_name_share": 0.0})) == ()


def test_a_code_identifier_no_candidate_writes_refuses() -> None:
    rule = load_settings().retrieval.model_copy(update={"missing_identifier_rule": True})
    pool = [hit("a", text="Read env vars with `envvar=`."), hit("b", text="Pass `--Verbose`.")]
    q = "Can options get env var names from a prefix, like auto_envvar_prefix?"
    assert absent_names(q, pool, rule) == ("auto_envvar_prefix",)
    assert absent_names("Does it add a --log-level option?", pool, rule) == ("--log-level",)
    assert absent_names("How does --verbose count?", pool, rule) == ()  # any case
    assert absent_names("Use auto_envvar_prefix.", pool, rule) == ()  # no question
    off = rule.model_copy(update={"missing_identifier_rule": False})
    assert absent_names(q, pool, off) == ()


def test_answer_refuses_a_question_about_a_name_the_corpus_lacks(tmp_path: Path) -> None:
    # the score floor is low, so only the name rule can refuse here
    engine = offline_engine(load_settings(data_dir=tmp_path, retrieval={"min_rerank_score": 0.05}))
    asked = answer("How does GitLab scope an API key?", engine)  # GitLab: 1 of 2 names
    assert asked.fallback and not asked.citations
    assert asked.missing_evidence is not None
    assert asked.missing_evidence.summary.startswith(
        "No indexed passage you may read mentions GitLab."
    )
    kept = answer("How is a user key scoped in the HTTP API?", engine)
    assert not kept.fallback and kept.citations


def test_analyzer_parity_fails_fast() -> None:
    settings = load_settings()
    emb, sparse = HashEmbedder(), Bm25Encoder(settings.models)
    from server.query.engine import index_identity

    store = open_memory_store(index_identity(settings, emb, sparse))
    check_parity(store, emb, sparse)
    other = Bm25Encoder(settings.models.model_copy(update={"bm25_split_identifiers": False}))
    with pytest.raises(IndexMismatchError, match=r"^analyzer_mismatch"):
        check_parity(store, emb, other)


def _reupload(engine: Engine, name: str, text: str, rev: str | None = None) -> None:
    ingest_uploads(
        [(name, text.encode())],
        settings=engine.settings,
        embedder=engine.embedder,
        sparse=engine.sparse,
        store=engine.store,
        rev=rev,
    )


class _SwitchAfterSearch:
    """A store whose first search (or, with `every`, each search) is followed by a concurrent
    ingest switching a revision (what a reader racing `citegate ingest` meets)."""

    def __init__(self, inner: Any, switch: Callable[[], None], every: bool = False) -> None:
        self._inner, self._switch, self._every, self.searches = inner, switch, every, 0

    def search(self, request: Any) -> list[Hit]:
        found: list[Hit] = self._inner.search(request)
        self.searches += 1
        if self._every or self.searches == 1:
            self._switch()
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_an_answer_cites_the_revisions_of_the_index_it_names(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    page = "# Retries\n\nThe queue retries a failed job three times before it gives up.\n"
    (corpus / "queue.md").write_text(page, encoding="utf-8")
    settings = load_settings(data_dir=tmp_path / "data", retrieval={"min_rerank_score": 0.05})
    engine = offline_engine(settings, corpus=corpus)
    before = engine.store.get_doc("queue.md")
    assert before is not None

    def switch() -> None:
        _reupload(engine, "queue.md", f"{page}\nEach retry waits ten seconds.\n", "r-new")

    store = _SwitchAfterSearch(engine.store, switch)
    got = answer("How many times does the queue retry a failed job?", replace(engine, store=store))
    assert got.citations and not got.fallback
    assert store.searches >= 2  # the first retrieval met the switch and was repeated
    assert {c.rev for c in got.citations} == {"r-new"}
    meta = engine.store.meta()
    assert meta is not None
    assert got.index_hash == index_hash(meta.identity, [("queue.md", "r-new")])
    assert "rev_mismatch" not in {f.code.value for f in got.gate.codes}


def test_a_change_log_is_evidence_only_for_questions_about_versions(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "queue.md").write_text(
        "# Queue\n\nThe queue retries a failed job three times before it gives up.\n",
        encoding="utf-8",
    )
    (corpus / "release-notes.md").write_text(
        "# Release notes\n\n## 0.95.0\n\n* The queue retries a failed job three times now.\n",
        encoding="utf-8",
    )
    settings = load_settings(data_dir=tmp_path / "data", retrieval={"min_rerank_score": 0.0})
    engine = offline_engine(settings, corpus=corpus)
    plain = "How many times does the queue retry a failed job?"
    versioned = "In which version did the queue start to retry a failed job?"
    got = retrieve_evidence(plain, engine, None)
    assert {h.chunk.doc_id for h in got.candidates} == {"queue.md", "release-notes.md"}
    assert [h.chunk.doc_id for h in got.hits] == ["queue.md"]  # the change log gave way
    assert "release-notes.md" in {
        h.chunk.doc_id for h in retrieve_evidence(versioned, engine, None).hits
    }
    only_log = [h for h in got.candidates if h.chunk.doc_id == "release-notes.md"]
    assert without_change_logs(plain, only_log) == only_log  # nothing else: kept


def test_a_regeneration_keeps_only_hits_of_the_answers_revisions() -> None:
    live = LiveIndex(index_hash="i:c", analyzer="a", embed_model="m", revs={"a.md": "r2"})

    def of(sid: str, doc: str, rev: str) -> Hit:
        h = hit(sid)
        return h.model_copy(
            update={"chunk": h.chunk.model_copy(update={"doc_id": doc, "rev": rev})}
        )

    now, stale, gone = of("n", "a.md", "r2"), of("s", "a.md", "r3"), of("g", "b.md", "r1")
    assert _of_revisions([stale, now, gone], live) == [now]


def test_a_document_switching_under_every_retrieval_is_left_out(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    page = "# Retries\n\nThe queue retries a failed job three times before it gives up.\n"
    (corpus / "queue.md").write_text(page, encoding="utf-8")
    (corpus / "worker.md").write_text(
        "# Worker\n\nThe worker logs every job it starts.\n", encoding="utf-8"
    )
    settings = load_settings(data_dir=tmp_path / "data", retrieval={"min_rerank_score": 0.05})
    engine = offline_engine(settings, corpus=corpus)
    flips = iter(range(1000))

    def switch() -> None:  # a new revision of queue.md after every search
        _reupload(engine, "queue.md", f"{page}\nRevision {next(flips)}.\n")

    store = _SwitchAfterSearch(engine.store, switch, every=True)
    question = "How many times does the queue retry a failed job before it gives up?"
    got = answer(question, replace(engine, store=store))
    assert store.searches >= 3
    assert "queue.md" not in {c.doc_id for c in got.citations}
    assert "rev_mismatch" not in {f.code.value for f in got.gate.codes}


def test_an_answer_that_never_states_the_asked_kind_of_value_is_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "plans.md").write_text(
        "# Plans\n\nThe Team plan includes private repositories and code review tools for "
        "every member of the team plan.\n",
        encoding="utf-8",
    )
    low_floor = {"min_rerank_score": 0.05}
    engine = offline_engine(load_settings(data_dir=tmp_path, retrieval=low_floor), corpus)
    question = "How much does the Team plan cost per member?"
    asked = answer(question, engine)
    assert asked.fallback and not asked.citations
    assert asked.decision is not None and asked.decision.unstated == ("price",)
    assert any("asks for a price" in r.reason for r in asked.repairs)
    assert asked.missing_evidence is not None
    assert asked.missing_evidence.suggested_sources[0] == (
        "a document that states the price for “Team plan cost per member”"
    )
    # the same evidence is shown when the rule is off: the rule alone refused it
    off = {**low_floor, "answer_type_rule": False}
    shown = answer(
        question, offline_engine(load_settings(data_dir=tmp_path, retrieval=off), corpus)
    )
    assert not shown.fallback and shown.citations
    # and a claim that states a price is an answer
    (corpus / "plans.md").write_text(
        "# Plans\n\nThe Team plan costs $4 per member per month.\n", encoding="utf-8"
    )
    priced = answer(
        question, offline_engine(load_settings(data_dir=tmp_path, retrieval=low_floor), corpus)
    )
    assert not priced.fallback and "$4" in priced.answer
    assert priced.decision is not None and priced.decision.unstated == ()


def test_common_names_are_the_question_names_every_hit_holds() -> None:
    hits = [
        hit("a", text="GitHub Sponsors pays out monthly."),
        hit("b", text="GitHub may change these terms."),
    ]
    q = "How much does a ticket to GitHub's Universe conference cost?"
    texts = [h.chunk.text for h in hits]
    assert common_names(q, texts) == frozenset({"github"})  # 'Universe': in no hit
    assert common_names(q, [*texts[:1], "Terms of service."]) == frozenset()
    assert common_names(q, []) == frozenset()
