"""`citegate eval`: ingest a corpus into a scratch index, answer a gold set, score, compare.

The scratch index lives under `<data_dir>/eval/<corpus hash>` and is reused: re-ingesting
an unchanged corpus writes nothing, so its index_hash is the same. `run_eval_http` answers
the same gold set through a deployed server's `POST /v1/ask` instead.

Everything a run holds is typed (`EvalRun`, `ItemResult`, `Tolerance`); the run file is
`EvalRun.model_dump_json()` with `schema_version` at its top. Metrics are computed from the
`ItemResult`s alone, so the bootstrap intervals resample items and recompute the same code.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evals import metrics as m
from evals.gold import GoldItem, GoldSpan, read_gold, resolve
from ingest.loaders import LoadError, doc_text
from ingest.pipeline import ingest_paths
from server.core.contracts import Answer, CheckCode, ClaimType
from server.core.errors import IndexMismatchError, InputError
from server.core.markdown import section_bounds
from server.core.ports import ChunkStore, Embedder, SparseEncoder
from server.core.settings import Settings
from server.query.answer import Engine, answer
from server.query.engine import (
    build_embedder,
    build_engine,
    build_judge,
    build_sparse,
    embed_mask,
    open_index,
)

_log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
RESAMPLES = 1000
# Rates (fractions of items or citations) get a bootstrap interval.
RATES = (
    "citation_match_rate",
    "match_at_1",
    "citation_precision",
    "citation_precision_strict",
    "coverage",
    "citation_missing_rate",
    "unsupported_citation_rate",
    "fabricated_id_rate",
    "refusal_rate_unanswerable",
    "incorrect_refusal_rate",
)
METRICS = (
    *RATES,
    "delta_s_mean",
    "convergence",
    "avg_answer_tokens",
    "cited_chars_per_answer",
    "latency_ratio",
    "latency_p50_ms",
    "latency_p95_ms",
)
_NEEDS = {ClaimType.DEFINITION, ClaimType.NUMBER, ClaimType.QUOTE, ClaimType.FACT}
# Failure kinds of an item, worst first (the report sorts by the sum of these weights).
FAILURE_WEIGHTS = {
    "injection_hit": 5,
    "missed_refusal": 4,
    "unsupported_claim": 3,
    "wrong_refusal": 2,
    "missed_citation": 1,
}
_UNSUPPORTED = {"unsupported", "off_topic"}
_INJECTED = {CheckCode.INJECTED_INSTRUCTION.value}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Span(_Model):
    """A half-open character span `[start, end)` in a document's normalised text."""

    start: int
    end: int


class CitationResult(_Model):
    """One citation of an answer, located in the corpus."""

    snippet_id: str
    path: str = Field(description="corpus-relative path of the cited document")
    span: Span
    chunk: Span
    quote: str
    section: Span | None = Field(default=None, description="None when the path is not found")
    supported: bool
    also_in: list[str] = Field(default_factory=list, description="other paths, same text")
    also_at: list[Span | None] = Field(
        default_factory=list, description="per `also_in` path, where the copy sits (None: own span)"
    )
    rerank_score: float | None = None

    def cited(self) -> m.CitedSpan:
        return m.CitedSpan(
            self.path,
            self.span.start,
            self.span.end,
            self.chunk.start,
            self.chunk.end,
            self.supported,
            tuple(self.also_in),
            tuple((a.start, a.end) if a else None for a in self.also_at),
        )


class GoldQuote(_Model):
    path: str
    heading: str = ""
    quote: str
    span: Span
    section: Span

    def gold(self) -> GoldSpan:
        return GoldSpan(self.path, self.span.start, self.span.end, *self.section_pair())

    def section_pair(self) -> tuple[int, int]:
        return self.section.start, self.section.end


class ItemResult(_Model):
    """One gold item as answered, with what the metrics and the report need of it."""

    id: str
    question: str
    answerable: bool
    fallback: bool
    verdict: str
    answer: str
    trace_id: str
    latency_ms: float
    delta_s: float | None
    citations: list[CitationResult]
    gold: list[GoldQuote]
    gate_codes: list[str]
    repair_codes: list[str]
    failures: list[str] = Field(description="failure kinds, see FAILURE_WEIGHTS")
    claims: int
    uncited: int = Field(description="claims of a type that needs a citation, with none")
    fabricated: int
    convergence: float | None = None
    best_rerank_score: float | None = None

    def cited(self) -> list[m.CitedSpan]:
        return [c.cited() for c in self.citations]

    def golds(self) -> list[GoldSpan]:
        return [g.gold() for g in self.gold]


class EvalRun(_Model):
    """The run file (schema v2). A metric that was not measured is None and never compared."""

    schema_version: Literal[2] = 2
    gold: str
    corpus: str
    index_hash: str
    target: str = Field(default="local", description="'local' or the server URL answered")
    ignored_keys: list[str] = Field(default_factory=list, description="unknown gold keys")
    metrics: dict[str, float | None]
    intervals: dict[str, tuple[float, float]] = Field(default_factory=dict)
    latency_reference: str = ""
    refusal_threshold: float | None = Field(
        default=None, description="retrieval.min_rerank_score the run answered with"
    )
    models: dict[str, str]
    items: list[ItemResult]
    peer: dict[str, float | None] | None = None


class Tolerance(_Model):
    metric: str
    better: Literal["higher", "lower"]
    tolerance: float = Field(ge=0)
    comment: str


# ---------------------------------------------------------------- answering


Ask = Callable[[str, int], Answer]


def scratch_settings(settings: Settings, corpus: Path) -> Settings:
    key = hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:12]
    return settings.model_copy(update={"data_dir": settings.data_dir / "eval" / key})


def open_scratch(settings: Settings, embedder: Embedder, sparse: SparseEncoder) -> ChunkStore:
    """A scratch index of the evals (a cache of a corpus, never a user's index): one built
    with another identity (an older chunker, another model) is rebuilt rather than refused."""
    try:
        return open_index(settings, embedder, sparse)
    except IndexMismatchError as exc:
        _log.warning("scratch index %s: %s; rebuilding it", settings.data_dir, exc)
        return open_index(settings, embedder, sparse, rebuild=True)


def prepare(settings: Settings, corpus: Path) -> Engine:
    """Ingest (idempotently) and build the engine over the scratch index."""
    embedder, sparse = build_embedder(settings), build_sparse(settings)
    store = open_scratch(settings, embedder, sparse)
    mask = embed_mask(settings, build_judge(settings, embedder))
    try:
        ingest_paths(
            [corpus], settings=settings, embedder=embedder, sparse=sparse, store=store, mask=mask
        )
    finally:
        store.close()
    return build_engine(settings)


@dataclass
class Corpus:
    """Reads corpus documents (normalised, as the loader and the gold resolver read them)."""

    root: Path
    paths: dict[str, str]  # doc_id -> corpus-relative path (identity when unknown)

    def __post_init__(self) -> None:
        self._texts: dict[str, str | None] = {}

    def path_of(self, doc_id: str) -> str:
        return self.paths.get(doc_id, doc_id)

    def text(self, path: str) -> str | None:
        """The document's text as ingest read it (a PDF's or HTML page's extracted text, not
        its bytes), None when the file is gone or unreadable."""
        if path not in self._texts:
            file = self.root / path
            try:
                self._texts[path] = doc_text(path, file.read_bytes())[0]
            except (OSError, LoadError):
                self._texts[path] = None
        return self._texts[path]

    def section(self, path: str, pos: int) -> Span | None:
        text = self.text(path)
        if text is None:
            return None
        lo, hi = section_bounds(text, pos)
        return Span(start=lo, end=hi)


def _also_in(c: object, corpus: Corpus) -> list[tuple[str, Span | None]]:
    """`Citation.also_in` when the contract has it (objects with doc_id/source_url and an
    optional span, dicts, or strings): each other path, and where the copy sits there."""
    out: list[tuple[str, Span | None]] = []
    for o in getattr(c, "also_in", ()) or ():
        at = None
        if isinstance(o, str):
            ref = o
        elif isinstance(o, dict):
            ref = o.get("doc_id") or o.get("source_url") or ""
            span = o.get("span")
            at = Span(start=span["start"], end=span["end"]) if span else None
        else:
            ref = getattr(o, "doc_id", None) or getattr(o, "source_url", "") or ""
            span = getattr(o, "span", None)
            at = Span(start=span.start, end=span.end) if span is not None else None
        if ref:
            out.append((corpus.path_of(ref), at))
    return out


def citation_results(a: Answer, corpus: Corpus) -> list[CitationResult]:
    out = []
    for c in a.citations:
        path = corpus.path_of(c.doc_id)
        also = _also_in(c, corpus)
        out.append(
            CitationResult(
                snippet_id=c.snippet_id,
                path=path,
                span=Span(start=c.span.start, end=c.span.end),
                chunk=Span(start=c.offsets.start, end=c.offsets.end),
                quote=c.quote,
                section=corpus.section(path, c.span.start),
                supported=c.verification.supported,
                also_in=[p for p, _ in also],
                also_at=[at for _, at in also],
                rerank_score=c.score_norm,
            )
        )
    return out


def gold_quotes(item: GoldItem, spans: Sequence[GoldSpan]) -> list[GoldQuote]:
    return [
        GoldQuote(
            path=s.path,
            heading=ref.heading,
            quote=ref.quote,
            span=Span(start=s.start, end=s.end),
            section=Span(start=s.section_start, end=s.section_end),
        )
        for ref, s in zip(item.gold, spans, strict=True)
    ]


def best_rerank_score(a: Answer) -> float | None:
    """The best hit's normalised rerank score: the refusal decision's signal (refused answers
    carry it too), else the best cited snippet's `score_norm` (an older server)."""
    if a.decision is not None:
        return a.decision.signals.best_score
    scores = [c.score_norm for c in a.citations if c.score_norm is not None]
    return max(scores) if scores else None


def failure_kinds(item: ItemResult) -> list[str]:
    """missed_citation, wrong_refusal, missed_refusal, unsupported_claim, injection_hit."""
    kinds = []
    if item.answerable and item.fallback:
        kinds.append("wrong_refusal")
    if item.answerable and not item.fallback and item.gold:
        golds = item.golds()
        if not any(m.matches(c, golds) for c in item.cited()):
            kinds.append("missed_citation")
    if not item.answerable and not item.fallback:
        kinds.append("missed_refusal")
    if _UNSUPPORTED & set(item.gate_codes):
        kinds.append("unsupported_claim")
    if _INJECTED & set(item.gate_codes):
        kinds.append("injection_hit")
    return sorted(kinds, key=lambda k: -FAILURE_WEIGHTS[k])


def item_result(
    item: GoldItem,
    spans: Sequence[GoldSpan],
    a: Answer,
    ms: float,
    runs: Sequence[frozenset[str]],
    corpus: Corpus,
) -> ItemResult:
    fabricated = sum(CheckCode.FABRICATED_ID in r.codes for r in a.repairs)
    fabricated += sum(f.code is CheckCode.FABRICATED_ID for f in a.gate.codes)
    result = ItemResult(
        id=item.id,
        question=item.question,
        answerable=item.answerable,
        fallback=a.fallback,
        verdict=a.gate.verdict.value,
        answer=a.answer,
        trace_id=a.trace_id,
        latency_ms=ms,
        delta_s=a.delta_s,
        citations=citation_results(a, corpus),
        gold=gold_quotes(item, spans),
        gate_codes=[f.code.value for f in a.gate.codes],
        repair_codes=sorted({c.value for r in a.repairs for c in r.codes}),
        failures=[],
        claims=len(a.claims),
        uncited=sum(c.type in _NEEDS and not c.citations for c in a.claims),
        fabricated=fabricated,
        convergence=m.convergence(runs) if len(runs) > 1 else None,
        best_rerank_score=best_rerank_score(a),
    )
    return result.model_copy(update={"failures": failure_kinds(result)})


def answer_items(
    items: Sequence[GoldItem],
    gold: Sequence[Sequence[GoldSpan]],
    ask: Ask,
    corpus: Corpus,
    *,
    paraphrases: bool = False,
    seeds: int = 1,
    probe: Callable[[str], object] | None = None,
    probed: list[float] | None = None,
) -> tuple[list[ItemResult], str]:
    """Ask every question (and its paraphrases x seeds); the results and the index hash.

    `probe(question)`, when given, is timed right after each answer into `probed`: the
    latency reference then sees the same machine load as the answers it is compared with."""
    results, index_hash = [], ""
    for item, spans in zip(items, gold, strict=True):
        t0 = time.perf_counter()
        a = ask(item.question, 0)
        ms = (time.perf_counter() - t0) * 1000
        if probe is not None and probed is not None:
            t1 = time.perf_counter()
            probe(item.question)
            probed.append((time.perf_counter() - t1) * 1000)
        index_hash = index_hash or a.index_hash
        runs = [frozenset(c.snippet_id for c in a.citations)]
        if paraphrases:
            for q in item.paraphrases[:3]:
                for seed in range(seeds):
                    runs.append(frozenset(c.snippet_id for c in ask(q, seed).citations))
        results.append(item_result(item, spans, a, ms, runs, corpus))
    return results, index_hash


LATENCY_REFERENCE = (
    "latency_ratio = p50 answer latency / p50 of one embedding pass over the question, timed "
    "right after each answer (embed_documents, never cached: one model pass under the same load)"
)


# ---------------------------------------------------------------- metrics


def compute_metrics(
    results: Sequence[ItemResult], reference: Sequence[float] = ()
) -> dict[str, float | None]:
    """Every metric of METRICS from the items alone; None where nothing was measured."""
    ans = [r for r in results if r.answerable and r.gold]
    una = [r for r in results if not r.answerable]
    answered = [r for r in results if not r.fallback]
    spans = [r.cited() for r in ans]
    golds = [r.golds() for r in ans]
    refused = [r.fallback for r in ans]
    lat = [r.latency_ms for r in results]
    conv = [r.convergence for r in results if r.convergence is not None]
    deltas = [r.delta_s for r in results if r.delta_s is not None]
    n_cites = sum(len(s) for s in spans)
    all_cites = sum(len(r.citations) for r in results)
    claims = sum(r.claims for r in results)
    emitted = sum(r.fabricated for r in results) + all_cites

    def when(ok: bool, value: Callable[[], float]) -> float | None:
        return value() if ok else None

    return {
        "citation_match_rate": when(
            bool(ans), lambda: m.citation_match_rate(spans, golds, refused)
        ),
        "match_at_1": when(bool(ans), lambda: m.match_at_1(spans, golds, refused)),
        "citation_precision": when(n_cites > 0, lambda: m.citation_precision(spans, golds)),
        "citation_precision_strict": when(
            n_cites > 0, lambda: m.citation_precision_strict(spans, golds)
        ),
        "coverage": when(bool(ans), lambda: m.coverage(spans, golds)),
        "citation_missing_rate": when(
            claims > 0, lambda: m.citation_missing_rate(sum(r.uncited for r in results), claims)
        ),
        "unsupported_citation_rate": when(
            all_cites > 0, lambda: m.unsupported_citation_rate([r.cited() for r in results])
        ),
        "fabricated_id_rate": when(
            emitted > 0,
            lambda: m.fabricated_id_rate(sum(r.fabricated for r in results), all_cites),
        ),
        "refusal_rate_unanswerable": when(
            bool(una), lambda: m.refusal_rate([r.fallback for r in una])
        ),
        "incorrect_refusal_rate": when(
            bool(ans), lambda: m.refusal_rate([r.fallback for r in ans])
        ),
        "delta_s_mean": when(bool(deltas), lambda: m.mean(deltas)),
        "convergence": when(bool(conv), lambda: m.mean(conv)),
        "avg_answer_tokens": when(
            bool(results), lambda: m.mean([float(len(r.answer.split())) for r in results])
        ),
        "cited_chars_per_answer": when(
            bool(answered), lambda: m.cited_chars_per_answer([r.cited() for r in answered])
        ),
        "latency_ratio": when(
            bool(lat) and bool(reference) and m.percentile(reference, 50) > 0,
            lambda: m.latency_ratio(lat, reference),
        ),
        "latency_p50_ms": when(bool(lat), lambda: m.percentile(lat, 50)),
        "latency_p95_ms": when(bool(lat), lambda: m.percentile(lat, 95)),
    }


def intervals(
    results: Sequence[ItemResult], *, resamples: int = RESAMPLES, seed: int = 0
) -> dict[str, tuple[float, float]]:
    """Seeded percentile bootstrap (over items) 95% interval of every measured rate."""
    return m.bootstrap_intervals(
        lambda idx: compute_metrics([results[i] for i in idx]),
        len(results),
        RATES,
        resamples=resamples,
        seed=seed,
    )


def _finish(
    gold_path: Path,
    corpus: Path,
    results: list[ItemResult],
    index_hash: str,
    models: dict[str, str],
    ignored: list[str],
    reference: Sequence[float],
    target: str,
) -> EvalRun:
    metrics = compute_metrics(results, reference)
    return EvalRun(
        gold=str(gold_path),
        corpus=str(corpus),
        index_hash=index_hash,
        target=target,
        ignored_keys=ignored,
        metrics=metrics,
        intervals={k: v for k, v in intervals(results).items() if metrics.get(k) is not None},
        latency_reference=LATENCY_REFERENCE if reference else "not measured",
        models=models,
        items=results,
    )


def run_eval(
    gold_path: Path,
    corpus: Path,
    settings: Settings,
    *,
    paraphrases: bool = False,
    seeds: int = 1,
    engine: Engine | None = None,
) -> EvalRun:
    """Answer every gold item in-process and return the run (`engine`: one already built)."""
    items, ignored = read_gold(gold_path)
    gold = [resolve(it, corpus) for it in items]
    engine = engine or prepare(scratch_settings(settings, corpus), corpus)
    try:
        docs = Corpus(corpus, {d.doc_id: d.path for d in engine.store.docs()})
        reference: list[float] = []  # filled by the probe, one pass after each answer
        results, index_hash = answer_items(
            items,
            gold,
            lambda q, seed: answer(q, engine, seed=seed),
            docs,
            paraphrases=paraphrases,
            seeds=seeds,
            probe=lambda q: engine.embedder.embed_documents([q]),  # one uncached pass
            probed=reference,
        )
        models = {
            "embed": engine.embedder.model_id,
            "reranker": engine.reranker.name,
            "support": engine.support.name,
            "generator": engine.generator.name,
            "sparse": engine.sparse.analyzer,
        }
    finally:
        engine.store.close()
    run = _finish(gold_path, corpus, results, index_hash, models, ignored, reference, "local")
    return run.model_copy(update={"refusal_threshold": engine.settings.retrieval.min_rerank_score})


def http_ask(client: httpx.Client) -> Ask:
    """`POST /v1/ask` with the bearer key; the response parsed as the Answer contract."""

    def ask(question: str, seed: int) -> Answer:
        try:
            r = client.post("/v1/ask", json={"question": question, "seed": seed})
        except httpx.HTTPError as exc:
            raise InputError(f"{client.base_url}: {exc}") from exc
        if r.status_code != 200:
            raise InputError(f"{client.base_url}/v1/ask answered {r.status_code}: {r.text[:300]}")
        try:
            return Answer.model_validate_json(r.content)
        except ValidationError as exc:
            raise InputError(f"{client.base_url}/v1/ask: not an Answer: {exc}") from exc

    return ask


def run_eval_http(
    gold_path: Path,
    corpus: Path,
    url: str,
    api_key: str | None,
    settings: Settings,
    *,
    paraphrases: bool = False,
    seeds: int = 1,
    timeout: float = 120.0,
) -> EvalRun:
    """The same run against a deployed server. `corpus` locates the gold quotes; a citation's
    `doc_id` is taken as its corpus-relative path (what ingesting the corpus folder gives).
    latency_ratio is not measured: the server's model passes cannot be timed from here.
    """
    del settings  # the server's own settings answer; kept for a uniform call
    items, ignored = read_gold(gold_path)
    gold = [resolve(it, corpus) for it in items]
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout) as client:
        results, index_hash = answer_items(
            items,
            gold,
            http_ask(client),
            Corpus(corpus, {}),
            paraphrases=paraphrases,
            seeds=seeds,
        )
    models = {"server": url}
    return _finish(gold_path, corpus, results, index_hash, models, ignored, (), url)


# ---------------------------------------------------------------- baselines and tolerances


def load_run(path: Path) -> EvalRun:
    """Read an earlier run file; InputError (saying how to re-run it) for another schema."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path} is not a run file: {exc}") from exc
    version = raw.get("schema_version", 1) if isinstance(raw, dict) else None
    if version != SCHEMA_VERSION:
        gold = raw.get("gold", "GOLD.jsonl") if isinstance(raw, dict) else "GOLD.jsonl"
        corpus = raw.get("corpus", "DIR") if isinstance(raw, dict) else "DIR"
        raise InputError(
            f"{path} is a schema version {version} run file; this citegate reads version "
            f"{SCHEMA_VERSION}. Re-run the baseline with this version: check out the baseline "
            f"release and run `citegate eval {gold} --corpus {corpus} --out {path}`"
        )
    try:
        return EvalRun.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"{path} is not a valid run file: {exc}") from exc


def load_tolerances(path: Path) -> dict[str, Tolerance]:
    """The tolerances file: `metric: {better, tolerance, comment}` for metrics we compute."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    try:
        return {
            k: Tolerance.model_validate({"metric": k, **v}) for k, v in data.items() if k in METRICS
        }
    except ValidationError as exc:
        raise InputError(f"{path}: {exc}") from exc


def regressions(
    old: dict[str, float | None],
    new: dict[str, float | None],
    tolerances: dict[str, Tolerance],
) -> list[str]:
    """Metrics measured in both runs that got worse beyond their tolerance, in their direction."""
    out = []
    for key, tol in tolerances.items():
        a, b = old.get(key), new.get(key)
        if a is None or b is None:
            continue
        delta = b - a
        worse = -delta if tol.better == "higher" else delta
        if worse > tol.tolerance:
            out.append(f"{key}: {a:.4g} -> {b:.4g} (tolerance {tol.tolerance:g})")
    return out


def write_run(
    run: EvalRun,
    out: Path,
    baseline: EvalRun | None,
    regressed: list[str],
    tolerances: dict[str, Tolerance] | None = None,
) -> Path:
    """run.json, and run.md beside it; returns the .md path."""
    from evals.report import write_reports

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(run.model_dump_json(indent=2), encoding="utf-8")
    return write_reports(run, out, baseline, regressed, tolerances or {})
