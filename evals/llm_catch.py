"""How much of what a small LLM invents does the gate catch? (issue 5, SmolLM2-135M)

    python -m evals.llm_catch [--gold evals/gold/fastapi.jsonl]
                              [--corpus ../shared/data/fastapi-docs/docs] [--limit 30]
                              [--base-url URL --model NAME] [--out runs/llm_catch.json]

Without `--base-url` it starts the local llama.cpp server with SmolLM2-135M (xllamacpp, as
the `llm` test tier does). Every draft the LLM generator returns is recorded before the gate.
Each (claim, citation) of a draft is judged by an oracle independent of the checker's scorer:

- fabricated: the snippet id is not among the hits the generator was given;
- not verbatim: the model's quote is not in the cited chunk;
- unsupported: fewer than `COVERAGE` of the claim's content words are in the cited span, or
  a number of the claim is not in it.

A defect is *caught* when it does not reach the user as a supported citation: the final
answer does not show that claim text citing that snippet with a PASS verdict (it was
blocked, stripped, substituted, regenerated away, or the answer fell back to "I don't know").
Goal: every fabricated id and >= 90 % of unsupported claims caught.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evals.gold import load_gold
from evals.runner import prepare, scratch_settings
from server.core.contracts import Answer, CitationSlot, Claim, Draft, Hit, Verdict
from server.core.paths import repo_root
from server.core.ports import Generator
from server.core.settings import Settings, load_settings
from server.core.text import content_words
from server.query.answer import Engine, answer
from server.query.integrity.numbers import normalise_numbers

COVERAGE = 0.6  # share of a claim's content words its cited span must hold (oracle, not the gate)
ROOT = repo_root()


@dataclass
class RecordingGenerator:
    """Passes through to the real generator and keeps (hits, draft) of every call."""

    inner: Generator
    calls: list[tuple[list[Hit], Draft]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        draft = self.inner.generate(question, hits, seed=seed)
        self.calls.append((list(hits), draft))
        return draft


def defects(claim: Claim, slot: CitationSlot, hits: dict[str, Hit]) -> list[str]:
    """What the oracle finds wrong with one citation of one drafted claim."""
    hit = hits.get(slot.snippet_id)
    if hit is None:
        return ["fabricated"]
    found = []
    verbatim = slot.quote in hit.chunk.text
    if not verbatim:
        found.append("not_verbatim")
    span = slot.quote if verbatim else hit.chunk.text
    words = set(content_words(claim.text))
    covered = len(words & set(content_words(span))) / len(words) if words else 1.0
    if covered < COVERAGE or normalise_numbers(claim.text) - normalise_numbers(span):
        found.append("unsupported")
    return found


def shown_as_supported(final: Answer, claim: Claim, snippet_id: str) -> bool:
    """True when the user sees this claim text citing this snippet with a PASS verdict."""
    if final.fallback or final.gate.verdict is Verdict.BLOCK:
        return False
    verdicts = {v.claim_id: v.verdict for v in final.gate.claims}
    return any(
        c.text.strip() == claim.text.strip()
        and snippet_id in {s.snippet_id for s in c.citations}
        and verdicts.get(c.id) is Verdict.PASS
        for c in final.claims
    )


def judge(calls: list[tuple[list[Hit], Draft]], final: Answer) -> list[dict[str, Any]]:
    rows = []
    for hits, draft in calls:
        by_id = {h.chunk.snippet_id: h for h in hits}
        for claim in draft.claims:
            for slot in claim.citations:
                kinds = defects(claim, slot, by_id)
                if kinds:
                    caught = not shown_as_supported(final, claim, slot.snippet_id)
                    rows.append(
                        {
                            "claim": claim.text,
                            "snippet_id": slot.snippet_id,
                            "defects": kinds,
                            "caught": caught,
                        }
                    )
    return rows


def summarise(rows: list[dict[str, Any]], drafts: int, claims: int) -> dict[str, Any]:
    out: dict[str, Any] = {"drafts": drafts, "claims": claims, "defective_citations": len(rows)}
    for kind in ("fabricated", "not_verbatim", "unsupported"):
        hit = [r for r in rows if kind in r["defects"]]
        out[kind] = {
            "n": len(hit),
            "caught": sum(r["caught"] for r in hit),
            "catch_rate": round(sum(r["caught"] for r in hit) / len(hit), 3) if hit else None,
        }
    return out


@contextmanager
def endpoint(base_url: str | None, model: str | None) -> Iterator[tuple[str, str]]:
    if base_url:
        yield base_url, model or "default"
        return
    from server.query.generate.local_llm import local_llm

    with local_llm() as url:
        yield url, "smollm2"


def run(settings: Settings, gold: Path, corpus: Path, limit: int) -> dict[str, Any]:
    engine: Engine = prepare(scratch_settings(settings, corpus), corpus)
    recorder = RecordingGenerator(engine.generator)
    engine = replace(engine, generator=recorder)
    rows, claims = [], 0
    try:
        for item in load_gold(gold)[:limit]:
            recorder.calls.clear()
            final = answer(item.question, engine)
            claims += sum(len(d.claims) for _, d in recorder.calls)
            rows += [{"id": item.id, **r} for r in judge(list(recorder.calls), final)]
    finally:
        engine.store.close()
    return {"generator": recorder.name, **summarise(rows, limit, claims), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--gold", type=Path, default=ROOT / "evals" / "gold" / "fastapi.jsonl")
    ap.add_argument(
        "--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "fastapi-docs" / "docs"
    )
    ap.add_argument("--limit", type=int, default=30)
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--model", default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    with endpoint(args.base_url, args.model) as (url, model):
        settings = load_settings(generator="llm", llm_base_url=url, llm_model=model)
        report = run(settings, args.gold, args.corpus, args.limit)
    summary = {k: v for k, v in report.items() if k != "rows"}
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    fab, uns = report["fabricated"], report["unsupported"]
    ok = fab["n"] == fab["caught"] and (uns["n"] == 0 or uns["caught"] >= 0.9 * uns["n"])
    print(
        "goal met" if ok else "goal NOT met: every fabricated id and >= 90 % of unsupported",
        file=sys.stderr,
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
