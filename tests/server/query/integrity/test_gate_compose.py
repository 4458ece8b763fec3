"""Gate verdicts (seed 000), labels (seed 004) and the repair ladder (seed 001) via `compose`."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from server.core.contracts import (
    CheckCode,
    Claim,
    ClaimType,
    Draft,
    Hit,
    RepairAction,
    Verdict,
)
from server.core.settings import Settings, load_settings
from server.query.answer import generate_verified as compose
from server.query.claims import render
from server.query.integrity.gate import code_verdict
from server.query.integrity.live import LiveIndex
from server.query.integrity.verify import IDK, Composed
from tests.server.query.integrity.helpers import HIT_A, HIT_B, LIVE, WordOverlapScorer, claim, slot

ROTATE = "The signing key is rotated every 90 days since version 2.1."
VAULT = "Admins must store keys in the vault."
GATE = "The gate blocks fabricated citations."
QUESTION = "How often is the key rotated?"


class ScriptedGenerator:
    """A Generator fake: returns the scripted drafts in turn (the last one repeats)."""

    name = "scripted"

    def __init__(self, *drafts: Sequence[Claim]) -> None:
        self.drafts = [tuple(d) for d in drafts]
        self.calls = 0

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        claims = self.drafts[min(self.calls, len(self.drafts) - 1)]
        self.calls += 1
        return Draft(claims=claims, answer=render(claims), generator=self.name)


@pytest.fixture
def settings() -> Settings:
    return load_settings(integrity={"support_threshold": 0.6})


def run(
    gen: ScriptedGenerator,
    settings: Settings,
    hits: Sequence[Hit] = (HIT_A, HIT_B),
    again: Sequence[Hit] = (),
    live: LiveIndex = LIVE,
    asked: list[str] | None = None,
) -> Composed:
    def retrieve_again(query: str) -> list[Hit]:
        if asked is not None:
            asked.append(query)
        return list(again)

    return compose(
        QUESTION,
        list(hits),
        generator=gen,
        scorer=WordOverlapScorer(),
        settings=settings,
        live=live,
        retrieve_again=retrieve_again,
    )


def accounted(out: Composed, claims: Sequence[Claim]) -> bool:
    """No claim is dropped silently: each has a gate verdict or a repair naming it."""
    seen = {v.claim_id for v in out.gate.claims} | {r.claim_id for r in out.repairs}
    return {c.id for c in claims} <= seen


@pytest.mark.parametrize(
    ("code", "kind", "mode", "verdict"),
    [
        (CheckCode.FABRICATED_ID, ClaimType.RECOMMENDATION, "lenient", Verdict.BLOCK),
        (CheckCode.MISMATCH_INDEX_HASH, ClaimType.FACT, "lenient", Verdict.BLOCK),
        (CheckCode.INJECTED_INSTRUCTION, ClaimType.REASONING, "lenient", Verdict.BLOCK),
        (CheckCode.MISSING_CITATION, ClaimType.NUMBER, "strict", Verdict.BLOCK),
        (CheckCode.MISSING_CITATION, ClaimType.NUMBER, "lenient", Verdict.WARN),
        (CheckCode.MISATTRIBUTED, ClaimType.FACT, "strict", Verdict.BLOCK),
        (CheckCode.UNSUPPORTED, ClaimType.FACT, "lenient", Verdict.WARN),
        (CheckCode.UNSUPPORTED, ClaimType.RECOMMENDATION, "strict", Verdict.WARN),
        (CheckCode.QUOTE_NOT_VERBATIM, ClaimType.QUOTE, "lenient", Verdict.BLOCK),
        (CheckCode.REV_MISMATCH, ClaimType.FACT, "strict", Verdict.WARN),
        (CheckCode.MISSING_SCORE, ClaimType.FACT, "strict", Verdict.WARN),
        (CheckCode.MISSING_CITATION, ClaimType.GENERAL_KNOWLEDGE, "strict", Verdict.BLOCK),
        (CheckCode.MISSING_CITATION, ClaimType.SELF_KNOWLEDGE, "strict", Verdict.WARN),
    ],
)
def test_code_verdicts(code: CheckCode, kind: ClaimType, mode: str, verdict: Verdict) -> None:
    assert code_verdict(code, kind, mode) is verdict  # type: ignore[arg-type]


def test_supported_claims_pass_with_exact_citations(settings: Settings) -> None:
    out = run(ScriptedGenerator([claim(ROTATE, ClaimType.NUMBER, slot(1, ROTATE))]), settings)
    assert out.gate.verdict is Verdict.PASS and not out.fallback and out.repairs == ()
    cite = out.citations[0]
    assert (cite.quote, cite.snippet_id, cite.n) == (ROTATE, "keys-a", 1)
    assert cite.verification.supported and cite.verification.support_score == 1.0
    assert (cite.k_pos, cite.k_final, cite.score_norm, cite.rev) == (1, 1, 0.8, "r1")
    assert out.answer == f"{ROTATE} [1]"


def test_fabricated_id_is_substituted_visibly(settings: Settings) -> None:
    bad = slot(1, ROTATE).model_copy(update={"snippet_id": "made-up-7"})
    claims = [
        claim(ROTATE, ClaimType.FACT, bad),
        claim(VAULT, ClaimType.RECOMMENDATION, slot(2, VAULT), cid="c2"),
    ]
    out = run(ScriptedGenerator(claims), settings)
    sub = [r for r in out.repairs if r.action is RepairAction.SUBSTITUTE]
    assert len(sub) == 1 and CheckCode.FABRICATED_ID in sub[0].codes
    assert {c.snippet_id for c in out.citations} == {"keys-a"}
    assert out.answer.startswith(f"[corrected] {ROTATE} [1]")
    assert accounted(out, claims)


def test_misattributed_claim_moves_to_the_chunk_that_supports_it(settings: Settings) -> None:
    vault = claim(VAULT, ClaimType.RECOMMENDATION, slot(1, VAULT))
    wrong = claim(GATE, ClaimType.FACT, slot(2, ROTATE), cid="c2")  # 1 of 2: no regeneration
    out = run(ScriptedGenerator([vault, wrong]), settings)
    (sub,) = out.repairs
    assert sub.action is RepairAction.SUBSTITUTE
    # the gate claim shares no content word with the rotation span it cites
    assert sub.codes == (CheckCode.MISATTRIBUTED, CheckCode.UNSUPPORTED_PART)
    assert [(c.snippet_id, c.quote) for c in out.citations] == [("keys-a", VAULT), ("keys-b", GATE)]


def test_unsupported_claim_is_stripped_and_withheld_in_strict(settings: Settings) -> None:
    wrong = claim("Keys are printed on paper and mailed yearly.", ClaimType.FACT, slot(1, ROTATE))
    claims = [
        wrong,
        claim(VAULT, ClaimType.RECOMMENDATION, slot(2, VAULT), cid="c2"),
        claim(ROTATE, ClaimType.FACT, slot(3, ROTATE), cid="c3"),
    ]
    out = run(ScriptedGenerator(claims), settings)
    assert [(r.action, r.claim_id) for r in out.repairs] == [
        (RepairAction.STRIP_CITATION, "c1"),
        (RepairAction.FALLBACK, "c1"),
    ]
    assert "mailed" not in out.answer and out.gate.verdict is Verdict.BLOCK
    assert [c.n for c in out.citations] == [1, 2]  # renumbered after withholding
    assert {v.claim_id for v in out.gate.claims} == {"c1", "c2", "c3"}


def test_lenient_mode_keeps_the_unsupported_claim_visibly_marked(settings: Settings) -> None:
    lenient = settings.model_copy(
        update={"integrity": settings.integrity.model_copy(update={"gate_mode": "lenient"})}
    )
    wrong = claim("Keys are printed on paper and mailed yearly.", ClaimType.FACT, slot(1, ROTATE))
    claims = [wrong, claim(ROTATE, ClaimType.FACT, slot(2, ROTATE), cid="c2")]
    out = run(ScriptedGenerator(claims), lenient)
    assert out.gate.verdict is Verdict.WARN and not out.fallback
    assert out.answer.startswith("[unsupported] Keys are printed on paper and mailed yearly.")
    assert [c.n for c in out.citations] == [1] and out.citations[0].quote == ROTATE


def test_mostly_unsupported_draft_is_regenerated_once_then_says_i_dont_know(
    settings: Settings,
) -> None:
    wrong = [
        claim(
            f"Unrelated statement {i} about llamas.", ClaimType.FACT, slot(i, ROTATE), cid=f"c{i}"
        )
        for i in (1, 2)
    ]
    gen, asked = ScriptedGenerator(wrong), list[str]()
    out = run(gen, settings, again=[HIT_A], asked=asked)
    assert gen.calls == 2  # the first draft and exactly one regeneration
    assert asked == [f"{QUESTION} keys gate"]  # title and heading terms not in the question
    assert out.repairs[0].action is RepairAction.REGENERATE
    assert out.fallback and out.answer == IDK and out.missing_evidence is not None
    assert accounted(out, wrong)


def test_regeneration_can_succeed(settings: Settings) -> None:
    wrong = [
        claim(f"Llamas {i} hum.", ClaimType.FACT, slot(i, ROTATE), cid=f"c{i}") for i in (1, 2)
    ]
    right = [claim(GATE, ClaimType.FACT, slot(1, GATE, HIT_B))]
    out = run(ScriptedGenerator(wrong, right), settings, again=[HIT_B])
    assert not out.fallback and out.gate.verdict is Verdict.PASS
    assert out.repairs[0].action is RepairAction.REGENERATE
    assert "Llamas 1 hum." in out.repairs[0].before and out.repairs[0].after == f"{GATE} [1]"


def test_no_evidence_is_an_honest_i_dont_know(settings: Settings) -> None:
    gen = ScriptedGenerator([])
    out = run(gen, settings, hits=())
    assert gen.calls == 0 and out.fallback and out.citations == () and out.answer == IDK
    assert out.missing_evidence is not None
    assert out.missing_evidence.query_terms == ("often", "key", "rotated")
    assert "changelog" in out.missing_evidence.suggested_sources[0]  # "how often": a figure


def test_a_near_verbatim_quote_is_never_shown(settings: Settings) -> None:
    near = slot(1, ROTATE).model_copy(update={"quote": ROTATE.replace("2.1.", "2.")})
    out = run(ScriptedGenerator([claim(ROTATE, ClaimType.RECOMMENDATION, near)]), settings)
    assert all(c.quote in c.text for c in out.citations)
    found = {c for r in out.repairs for c in r.codes}
    assert CheckCode.BAD_OFFSETS in found  # a prefix of the text: the span does not match


def test_foreign_index_identity_blocks_and_falls_back(settings: Settings) -> None:
    foreign = LIVE.model_copy(update={"index_hash": "otherid:abc"})
    claims = [claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))]
    out = run(ScriptedGenerator(claims), settings, live=foreign)
    assert out.fallback and out.gate.verdict is Verdict.BLOCK
    assert out.repairs[-1].codes == (CheckCode.MISMATCH_INDEX_HASH,)


def test_a_chunk_no_longer_live_warns(settings: Settings) -> None:
    moved = LIVE.model_copy(update={"revs": {"keys.md": "r2"}})
    out = run(
        ScriptedGenerator([claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))]), settings, live=moved
    )
    assert out.gate.verdict is Verdict.WARN and not out.fallback
    assert out.citations[0].verification.codes == (CheckCode.REV_MISMATCH,)


def test_foundational_evidence_is_labelled(settings: Settings) -> None:
    own = HIT_B.model_copy(
        update={"chunk": HIT_B.chunk.model_copy(update={"tags": ("foundational",)})}
    )
    out = run(
        ScriptedGenerator([claim(GATE, ClaimType.FACT, slot(1, GATE, own))]), settings, hits=[own]
    )
    assert out.answer == f"[foundational knowledge] {GATE} [1]"
    assert out.claims[0].type is ClaimType.SELF_KNOWLEDGE and out.gate.verdict is Verdict.PASS


def test_general_knowledge_only_where_allowed(settings: Settings) -> None:
    gk = claim("Water boils at 100 C at sea level.", ClaimType.GENERAL_KNOWLEDGE, cid="g")
    claims = [claim(ROTATE, ClaimType.FACT, slot(1, ROTATE)), gk]
    strict = run(ScriptedGenerator(claims), settings)
    assert "Water" not in strict.answer and strict.gate.verdict is Verdict.BLOCK
    assert accounted(strict, claims)
    allowed = settings.model_copy(
        update={
            "integrity": settings.integrity.model_copy(update={"allow_general_knowledge": True})
        }
    )
    out = run(ScriptedGenerator(claims), allowed)
    assert out.gate.verdict is Verdict.PASS
    assert out.answer.endswith(
        "[general knowledge] Water boils at 100 C at sea level. "
        "(general knowledge, not verified against the corpus)"
    )
