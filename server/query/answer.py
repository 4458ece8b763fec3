"""The whole query DAG, in two functions you can read top to bottom (STYLE: no framework).

`answer`: recall (hybrid, scope pushed down) -> policy (+ scope re-check) -> rerank
-> refuse? (names no candidate mentions; best score below the calibrated threshold)
-> `generate_verified` -> Answer.

`generate_verified`: fence (withhold text that addresses the model) -> generate -> label
-> evaluate -> [more than half unsupported: retrieve again with an expanded query, at most
`integrity.max_regenerations` times] -> repair (substitute or strip) -> gate (re-check,
withhold what still BLOCKs) -> the answer, or "I don't know" with what would answer.
"""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from time import perf_counter
from typing import Literal

from server.core.contracts import (
    Answer,
    CheckCode,
    Chunk,
    CodeFinding,
    Decision,
    Hit,
    IndexMeta,
    Repair,
    RepairAction,
    Timings,
)
from server.core.errors import EmptyIndexError, InputError
from server.core.ports import (
    ChunkStore,
    Embedder,
    Generator,
    PairScorer,
    RelevanceScorer,
    SparseEncoder,
    SupportScorer,
)
from server.core.settings import Settings
from server.core.text import embed_context, embed_input
from server.query.answer_types import common_names, refusal_reason
from server.query.claims import render
from server.query.decide import RefusalModel, absent_share, signals, verdict
from server.query.evidence import (
    sentence_parts,
    with_direct_answer,
    with_evidence,
    without_change_logs,
)
from server.query.generate.llm import UNREACHABLE
from server.query.integrity import repair, verify
from server.query.integrity.citations import placed_copies
from server.query.integrity.injection import DocFlags, SegmentJudge
from server.query.integrity.relevance import claim_relevance, off_topic
from server.query.integrity.verify import Composed, LiveIndex
from server.query.policy import CorpusPolicy, apply_policy
from server.query.rerank import absent_names, collapse_duplicates, rerank, should_refuse
from server.query.retrieve import delta_s, recall

GateMode = Literal["strict", "lenient"]
_CONSISTENT_TRIES = 3  # retrievals per answer while ingest switches revisions under it (ours)
Stage = Literal["recall", "rerank", "generate", "check", "decide"]
Progress = Callable[[Stage], None]


def _quiet(_: Stage) -> None:
    """The progress hook of a caller that did not ask for one."""


@dataclass(frozen=True)
class Engine:
    """Everything `answer()` needs, built once per process by `server.query.engine.build_engine`."""

    settings: Settings
    embedder: Embedder
    sparse: SparseEncoder
    store: ChunkStore
    reranker: PairScorer
    support: SupportScorer
    relevance: RelevanceScorer
    generator: Generator
    policy: CorpusPolicy
    refusal: RefusalModel | None = None
    fences: DocFlags | None = None  # attacks read in the whole document (DocumentFences)
    judge: SegmentJudge | None = None  # the learned reader beside the guard's rules


@dataclass(frozen=True)
class Retrieved:
    """What one retrieval found: the evidence places an answer is drawn from, and the
    candidates they were chosen among."""

    hits: list[Hit]  # reranked, final_k
    candidates: list[Hit]  # every recalled candidate that passed policy and scope
    reranked: list[Hit]  # the same candidates reranked, best first, before the places are chosen
    query_vector: tuple[float, ...]
    recall_ms: float
    policy_ms: float
    rerank_ms: float


def clean_question(question: str, max_chars: int) -> str:
    """The question stripped and NFC-normalised; InputError when empty or too long."""
    text = unicodedata.normalize("NFC", question).strip()
    if not text:
        raise InputError('the question is empty: ask something, e.g. `citegate ask "What is X?"`')
    if len(text) > max_chars:
        raise InputError(
            f"the question has {len(text)} characters; the limit is {max_chars} "
            "(service.max_question_chars): shorten it"
        )
    return text


def retrieve_evidence(
    question: str, engine: Engine, scope_tags: Sequence[str] | None, report: Progress = _quiet
) -> Retrieved:
    """Recall, policy, rerank and the evidence places (`final_k`) of one question, as
    `answer` retrieves them; `evals.gold_rank` reads where a gold chunk is lost on this way."""
    settings = engine.settings
    report("recall")
    t0 = perf_counter()
    found = recall(
        question,
        embedder=engine.embedder,
        sparse=engine.sparse,
        store=engine.store,
        settings=settings.retrieval,
        scope_tags=tuple(scope_tags) if scope_tags is not None else None,
        exclude_tags=tuple(engine.policy.denied_tags),
    )
    t1 = perf_counter()
    allowed = apply_policy(
        list(found.hits), engine.policy, scope_tags=scope_tags, now=datetime.now(UTC)
    )
    report("rerank")
    t2 = perf_counter()
    reranked = rerank(question, allowed, engine.reranker, len(allowed))
    scored = without_change_logs(question, reranked)
    # twice the places: duplicates collapsed below may take some
    max_chars, places = settings.generation.max_unit_chars, settings.retrieval.final_k
    scored = with_evidence(question, scored, max_chars, 2 * places)
    scored = with_direct_answer(question, scored, places, 2 * places, max_chars)
    ranked = collapse_duplicates(
        scored,
        places,
        settings.retrieval.duplicate_jaccard,
        _ingested_at(engine),
    )
    t3 = perf_counter()
    return Retrieved(
        hits=ranked,
        candidates=allowed,
        reranked=reranked,
        query_vector=found.query_vector,
        recall_ms=(t1 - t0) * 1000,
        policy_ms=(t2 - t1) * 1000,
        rerank_ms=(t3 - t2) * 1000,
    )


def _retrieve_consistent(
    question: str, engine: Engine, scope_tags: Sequence[str] | None, report: Progress
) -> tuple[LiveIndex, Retrieved]:
    """Hits and the live index they were found in. The store keeps only live revisions at
    search time; a revision switched by a concurrent ingest between the search and the read
    of the live index would be checked against the wrong one (`rev_mismatch`), so retrieval
    is repeated until both agree, at most `_CONSISTENT_TRIES` times; after that the hits of
    documents that switched are left out.
    """
    for _ in range(_CONSISTENT_TRIES):
        got = retrieve_evidence(question, engine, scope_tags, report)
        live = _live(engine)
        kept = _of_revisions(got.hits, live)
        if len(kept) == len(got.hits):
            return live, got
    # Still switching under every try (a document re-ingested every second): its hits go,
    # the other documents' stay, and nothing is cited under an index hash it is not part of.
    return live, replace(got, hits=kept)


def _of_revisions(hits: Sequence[Hit], live: LiveIndex) -> list[Hit]:
    """The hits of the revisions `live` names: a regeneration's retrieval that meets a
    revision switched since the answer began leaves that document out rather than cite it
    under an index hash it is not part of."""
    return [h for h in hits if live.revs.get(h.chunk.doc_id) == h.chunk.rev]


def _ingested_at(engine: Engine) -> Callable[[str], datetime | None]:
    """When a document was ingested (asked only to break a tie between duplicates)."""

    def at(doc_id: str) -> datetime | None:
        doc = engine.store.get_doc(doc_id)
        return doc.ingested_at if doc else None

    return at


def _settings_for(settings: Settings, mode: GateMode | None) -> Settings:
    if mode is None or mode == settings.integrity.gate_mode:
        return settings
    integrity = settings.integrity.model_copy(update={"gate_mode": mode})
    return settings.model_copy(update={"integrity": integrity})


def _meta(engine: Engine) -> IndexMeta:
    meta = engine.store.meta()
    if meta is None:
        raise EmptyIndexError("the index is empty: run `citegate ingest PATH...` first")
    return meta


def _live(engine: Engine) -> LiveIndex:
    meta = _meta(engine)
    return LiveIndex.from_store(meta, engine.store.live_revs())  # revs only, no document texts


def _delta_s(engine: Engine, query_vector: Sequence[float], hits: Sequence[Hit]) -> float | None:
    if not hits:
        return None
    vectors = engine.store.dense_vectors([h.chunk.snippet_id for h in hits])
    return delta_s(query_vector, list(vectors.values())) if vectors else None


def answer(
    question: str,
    engine: Engine,
    *,
    scope_tags: Sequence[str] | None = None,
    mode: GateMode | None = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> Answer:
    """Answer `question` with verified citations, or an honest "I don't know".

    `scope_tags` limits what the caller may read (None: everything the policy allows);
    `mode` overrides the gate mode. Raises InputError for an empty or oversized question,
    EmptyIndexError before anything is ingested, IndexMismatchError on analyzer or model drift.
    `progress(stage)`, on the calling thread, as each stage starts (the previous one has then
    ended), only once the question and the index have passed the checks above: "recall"
    (hybrid recall and policy), "rerank", "generate" (the generator is asked), "check"
    (label, evaluate, repair, gate), "decide" (the refusal decision; the Answer follows).
    A regeneration round repeats recall, rerank, generate, check; a refused question skips
    generate and check. The hook must not raise.
    """
    report = progress or _quiet
    started = perf_counter()
    text = clean_question(question, engine.settings.service.max_question_chars)
    settings = _settings_for(engine.settings, mode)
    _meta(engine)  # EmptyIndexError before any stage starts
    live, got = _retrieve_consistent(text, engine, scope_tags, report)
    absent = absent_names(text, got.candidates, settings.retrieval)
    refused = bool(absent) or should_refuse(text, got.hits, settings.retrieval, engine.sparse)
    t_gen = perf_counter()
    composed = generate_verified(
        text,
        [] if refused else got.hits,
        generator=engine.generator,
        scorer=engine.support,
        relevance=engine.relevance,
        settings=settings,
        live=live,
        retrieve_again=lambda expanded: _of_revisions(
            retrieve_evidence(expanded, engine, scope_tags, report).hits, live
        ),
        seed=seed,
        absent_names=absent,
        progress=report,
        doc_flags=engine.fences,
        judge=engine.judge,
    )
    report("decide")
    decision = _decide(text, engine, got, composed, absent)
    if decision.refused:
        reason = (
            refusal_reason(decision.unstated)
            if decision.unstated
            else f"refused: the question asks about the {' and the '.join(decision.unnamed)} "
            "and no evidence found names it"
            if decision.unnamed
            else f"refused: p(answerable) {decision.p_answer:.2f} is below the calibrated "
            f"threshold (the evidence found does not answer this question)"
        )
        composed = verify.withdrawn(composed, text, got.hits, reason, decision.unstated)
    t_done = perf_counter()
    return Answer(
        question=text,
        answer=composed.answer,
        claims=composed.claims,
        citations=[placed_copies(c, _chunk_of(got, engine.store)) for c in composed.citations],
        fallback=composed.fallback,
        gate=composed.gate,
        repairs=composed.repairs,
        missing_evidence=composed.missing_evidence,
        trace_id=uuid.uuid4().hex,
        index_hash=live.index_hash,
        delta_s=_delta_s(engine, got.query_vector, got.hits),
        generator=composed.generator,
        decision=decision,
        timings=Timings(
            recall_ms=got.recall_ms,
            policy_ms=got.policy_ms,
            rerank_ms=got.rerank_ms,
            generate_ms=composed.generate_ms,
            check_ms=(t_done - t_gen) * 1000 - composed.generate_ms,
            total_ms=(t_done - started) * 1000,
        ),
    )


def _chunk_of(got: Retrieved, store: ChunkStore) -> Callable[[str], Chunk | None]:
    """A chunk by its snippet id: from the recalled candidates, which hold every copy that
    rerank collapsed, else (a copy found by a repeated retrieval) from the store."""
    recalled = {h.chunk.snippet_id: h.chunk for h in got.candidates}
    return lambda snippet_id: recalled.get(snippet_id) or store.get_chunk(snippet_id)


def _decide(
    question: str, engine: Engine, got: Retrieved, composed: Composed, absent: Sequence[str]
) -> Decision:
    """The refusal decision's signals, and its verdict (`decide.verdict`) when the answer
    was not already "I don't know"."""
    texts = [c.text for c in composed.claims]
    # Judged unit by unit, as the refusal model was fitted: a citation joined over adjacent
    # units (`generation.join_adjacent`) is read as the sentences it is made of.
    units = [part for t in texts for part in sentence_parts(t)]
    scores = engine.relevance.relevance(question, units) if units else []
    share = absent_share(question, absent)
    hits = got.hits
    recalled = [h.chunk.text for h in got.candidates]
    found = signals(
        question, hits, composed.claims, scores, engine.sparse, share, len(units), recalled
    )
    if composed.fallback:
        return Decision(signals=found)
    rule = engine.settings.retrieval.answer_type_rule
    where = {h.chunk.snippet_id: embed_context(h.chunk.title, h.chunk.heading) for h in hits}
    contexts = [
        (c.text, " ".join(where.get(s.snippet_id, "") for s in c.citations))
        for c in composed.claims
    ]
    common = common_names(
        question, [embed_input(h.chunk.title, h.chunk.heading, h.chunk.text) for h in hits]
    )
    name_rule = engine.settings.retrieval.name_rule
    return verdict(question, found, texts, engine.refusal, rule, contexts, common, name_rule)


def generate_verified(
    question: str,
    hits: Sequence[Hit],
    *,
    generator: Generator,
    scorer: SupportScorer,
    settings: Settings,
    live: LiveIndex,
    retrieve_again: Callable[[str], list[Hit]],
    relevance: RelevanceScorer | None = None,
    seed: int = 0,
    absent_names: Sequence[str] = (),
    doc_flags: DocFlags | None = None,
    judge: SegmentJudge | None = None,
    progress: Progress = _quiet,
) -> Composed:
    """Claims -> slots -> check -> repair -> gate; "I don't know" when no evidence holds.

    `hits` empty (refused upstream) gives the same "I don't know" as a failed ladder;
    `absent_names`, when that refusal was for names no readable passage mentions, are
    named in its missing evidence. Hits that address the model never reach the generator;
    each is listed in `repairs` (QUARANTINE), and a citation into one is blocked;
    `doc_flags` also reads each hit's whole document, for an attack cut by a chunk boundary;
    `judge` is the learned reader that joins the guard's rules (`integrity.injection_judge_file`).
    `retrieve_again(expanded_query)` is called at most `integrity.max_regenerations` times.
    Claims that do not bear on the question (`relevance`) are dropped as `off_topic`.
    `progress` hears "generate" and "check" each round (see `answer`).
    """
    notes: list[Repair] = []
    strays: list[CodeFinding] = []
    ms = 0.0
    rounds = settings.integrity.max_regenerations
    for attempt in range(rounds + 1):
        fenced = verify.fence(hits, settings, doc_flags, judge)
        ctx = verify.context(fenced, live, scorer, settings)
        notes += fenced.held
        if not fenced.clean:
            named = absent_names if attempt == 0 else ()
            idk = verify.dont_know(question, hits, ctx, generator.name, notes, ms, None, named)
            return _regenerated(idk)
        progress("generate")
        t0 = perf_counter()
        draft = generator.generate(question, fenced.clean, seed=seed)
        ms += (perf_counter() - t0) * 1000
        progress("check")
        draft = verify.label(draft, ctx)
        verify.warm_texts(draft.claims, ctx)  # one pass for the relevance and support checks
        if relevance is not None and draft.claims:
            where = {h.chunk.snippet_id: h.chunk for h in fenced.clean}
            scores = claim_relevance(relevance, question, draft.claims, where.get)
            kept, dropped, found = off_topic(draft.claims, scores, settings.integrity)
            draft = draft.model_copy(update={"claims": tuple(kept), "answer": render(kept)})
            notes += dropped
            strays += found
        verdicts, _ = verify.evaluate(draft.claims, draft.answer, ctx)
        notes += [Repair(action=RepairAction.LLM_FALLBACK, reason=n) for n in draft.notes]
        if attempt == rounds or not repair.needs_regeneration(verdicts):
            draft, fixed = verify.repair_claims(draft, verdicts, ctx)
            composed = verify.finish(draft, question, ctx, [*notes, *fixed], ms)
            if UNREACHABLE in draft.notes:  # the extractive generator stood in for the LLM
                strays.append(CodeFinding(code=CheckCode.LLM_UNAVAILABLE, detail=UNREACHABLE))
            return _with_codes(_regenerated(composed), strays)
        cfg = settings.integrity
        expanded = repair.expand_query(
            question, fenced.clean, words=cfg.expansion_terms, top=cfg.expansion_hits
        )
        notes.append(
            Repair(
                action=RepairAction.REGENERATE,
                before=draft.answer,
                reason=f"{repair.unsupported_count(verdicts)} of {len(verdicts)} claims "
                f"unsupported: retrieved again with the expanded query {expanded!r} "
                "and regenerated",
            )
        )
        hits = retrieve_again(expanded)
    raise AssertionError("unreachable: the last round always finishes")


def _regenerated(composed: Composed) -> Composed:
    """Each REGENERATE note shows the answer that the regeneration led to."""
    repairs = tuple(
        r.model_copy(update={"after": composed.answer})
        if r.action is RepairAction.REGENERATE
        else r
        for r in composed.repairs
    )
    return composed.model_copy(update={"repairs": repairs})


def _with_codes(composed: Composed, findings: Sequence[CodeFinding]) -> Composed:
    """Findings about what left or stood in for the answer (off-topic claims, an unreachable
    LLM) in the gate's codes; the verdict stays the shown answer's own."""
    if not findings:
        return composed
    gate = composed.gate.model_copy(update={"codes": (*composed.gate.codes, *findings)})
    return composed.model_copy(update={"gate": gate})
