"""What an answer under load may cite: one revision per document, the one live at its hash.

Pure functions over the response contract (no locust here: importing locust patches the
process with gevent). The churn document moves between three states while questions are
asked (absent, revision A, revision B); every other document keeps the revision it was
ingested with. An answer's `index_hash` names the live state it was answered from, so each
of its citations must carry that state's revision of its document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from server.core.contracts import Answer, IndexIdentity
from server.core.identity import index_hash

CHURN_DOC = "load-churn.md"
CHURN_REVS = ("load-a", "load-b")
CHURN_DAYS = {"load-a": 30, "load-b": 45}
CHURN_QUESTIONS = (
    "How often does the load drill rotate its practice key?",
    "How many spare keys does the load drill keep?",
)

FindingKind = Literal["mixed", "stale", "unknown_index_hash"]
# Any identity: only the content half of the hash is compared (the identity half is the prefix
# read from the live server), so the server's own formula is used, never a copy of it.
_ANY_IDENTITY = IndexIdentity(embed_model="-", dense_dim=1, analyzer="-", chunker="-")


@dataclass(frozen=True)
class Finding:
    """One broken answer: its kind and what was seen."""

    kind: FindingKind
    detail: str
    flagged: bool = False  # the server marked the citation rev_mismatch itself (a WARN)


def churn_text(rev: str) -> bytes:
    """The Markdown of one churn revision: the same headings, a different number of days."""
    days = CHURN_DAYS[rev]
    return (
        f"# Load drill\n\n## Drill schedule\n\n"
        f"The load drill rotates its practice key every {days} days. "
        f"It keeps {days // 15} spare keys in the drill vault between rotations.\n"
    ).encode()


def content_half(revs: Mapping[str, str]) -> str:
    """The `<content>` half of `server.core.identity.index_hash` for these live doc revisions."""
    return index_hash(_ANY_IDENTITY, revs.items()).split(":", 1)[1]


def live_states(identity_half: str, static: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Full index hash -> live revisions (doc_id -> rev), for each state of the churn document.

    `static` are the other documents' revisions (the churn document is dropped from it).
    """
    base = {doc_id: rev for doc_id, rev in static.items() if doc_id != CHURN_DOC}
    states = [base] + [{**base, CHURN_DOC: rev} for rev in CHURN_REVS]
    return {f"{identity_half}:{content_half(state)}": state for state in states}


def check_answer(answer: Answer, states: Mapping[str, Mapping[str, str]]) -> list[Finding]:
    """Every way `answer` mixes revisions: two revisions of one document among its citations
    (`mixed`), a citation whose revision is not the one live at the answer's `index_hash`
    (`stale`), or an `index_hash` that is none of the states the workload can produce."""
    found: list[Finding] = []
    by_doc: dict[str, set[str]] = {}
    for cite in answer.citations:
        by_doc.setdefault(cite.doc_id, set()).add(cite.rev)
    for doc_id, revs in sorted(by_doc.items()):
        if len(revs) > 1:
            found.append(Finding("mixed", f"{doc_id} cited at {sorted(revs)}"))
    live = states.get(answer.index_hash)
    if live is None:
        return [*found, Finding("unknown_index_hash", answer.index_hash)]
    verdict = answer.gate.verdict.value
    for cite in answer.citations:
        want = live.get(cite.doc_id)
        if cite.rev != want:
            codes = [code.value for code in cite.verification.codes]
            detail = f"[{cite.n}] {cite.doc_id}@{cite.rev}, live at hash: {want}"
            detail += f" (codes: {','.join(codes) or 'none'}; verdict {verdict})"
            found.append(Finding("stale", detail, flagged="rev_mismatch" in codes))
    return found
