"""Gate verdicts (seed 000) and the repair ladder (seed 001) through `compose`."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from server.contracts import CheckCode, Claim, ClaimType, Draft, Hit, RepairAction, Verdict
from server.generate.extractive import render
from server.integrity.compose import IDK, compose
from server.integrity.gate import code_verdict
from server.settings import Settings, load_settings
from tests.server.integrity.helpers import HIT_A, HIT_B, LIVE, WordOverlapScorer, claim, slot

ROTATE = "The signing key is rotated every 90 days since version 2.1."
VAULT = "Admins must store keys in the vault."


class FixedGenerator:
    """Returns the same draft every time (a fake implementing the Generator Protocol)."""

    name = "fixed"

    def __init__(self, claims: Sequence[Claim]) -> None:
        self.claims = tuple(claims)
        self.calls = 0

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        self.calls += 1
        return Draft(claims=self.claims, answer=render(self.claims), generator=self.name)


@pytest.fixture
def settings() -> Settings:
    return load_settings(integrity={"support_threshold": 0.6})


def run(
    claims: Sequence[Claim],
    settings: Settings,
    hits: Sequence[Hit] = (HIT_A, HIT_B),
    again: Sequence[Hit] = (),
) -> tuple[object, FixedGenerator]:
    gen = FixedGenerator(claims)
    out = compose(
        "How often is the key rotated?",
        list(hits),
        generator=gen,
        scorer=WordOverlapScorer(),
        settings=settings,
        live=LIVE,
        retrieve_again=lambda q: list(again),
    )
    return out, gen


@pytest.mark.parametrize(
    ("code", "kind", "mode", "verdict"),
    [
        (CheckCode.FABRICATED_ID, ClaimType.RECOMMENDATION, "lenient", Verdict.BLOCK),
        (CheckCode.MISSING_CITATION, ClaimType.NUMBER, "strict", Verdict.BLOCK),
        (CheckCode.MISSING_CITATION, ClaimType.NUMBER, "lenient", Verdict.WARN),
        (CheckCode.UNSUPPORTED, ClaimType.RECOMMENDATION, "strict", Verdict.WARN),
        (CheckCode.QUOTE_NOT_VERBATIM, ClaimType.QUOTE, "lenient", Verdict.BLOCK),
        (CheckCode.REV_MISMATCH, ClaimType.FACT, "strict", Verdict.WARN),
    ],
)
def test_code_verdicts(code: CheckCode, kind: ClaimType, mode: str, verdict: Verdict) -> None:
    assert code_verdict(code, kind, mode) is verdict  # type: ignore[arg-type]


def test_supported_claims_pass_with_exact_citations(settings: Settings) -> None:
    out, _ = run([claim(ROTATE, ClaimType.NUMBER, slot(1, ROTATE))], settings)
    assert out.gate.verdict is Verdict.PASS and not out.fallback  # type: ignore[attr-defined]
    cite = out.citations[0]  # type: ignore[attr-defined]
    assert cite.quote == ROTATE and cite.snippet_id == "keys-a" and cite.verification.supported
    assert out.answer == f"{ROTATE} [1]"  # type: ignore[attr-defined]


def test_fabricated_id_is_substituted_visibly(settings: Settings) -> None:
    bad = slot(1, ROTATE).model_copy(update={"snippet_id": "made-up-7"})
    out, _ = run(
        [
            claim(ROTATE, ClaimType.FACT, bad),
            claim(VAULT, ClaimType.RECOMMENDATION, slot(2, VAULT), cid="c2"),
        ],
        settings,
    )
    sub = [r for r in out.repairs if r.action is RepairAction.SUBSTITUTE]  # type: ignore[attr-defined]
    assert len(sub) == 1 and CheckCode.FABRICATED_ID in sub[0].codes
    assert all(c.snippet_id in {"keys-a", "keys-b"} for c in out.citations)  # type: ignore[attr-defined]
    assert "[corrected]" in out.answer  # type: ignore[attr-defined]


def test_unsupported_claim_is_stripped_and_withheld_in_strict(settings: Settings) -> None:
    wrong = claim("Keys are printed on paper and mailed yearly.", ClaimType.FACT, slot(1, ROTATE))
    ok = claim(VAULT, ClaimType.RECOMMENDATION, slot(2, VAULT), cid="c2")
    out, _ = run([wrong, ok, claim(ROTATE, ClaimType.FACT, slot(3, ROTATE), cid="c3")], settings)
    actions = [r.action for r in out.repairs]  # type: ignore[attr-defined]
    assert RepairAction.STRIP_CITATION in actions and RepairAction.FALLBACK in actions
    assert "mailed" not in out.answer and out.gate.verdict is Verdict.BLOCK  # type: ignore[attr-defined]
    assert {v.claim_id for v in out.gate.claims} == {"c1", "c2", "c3"}  # type: ignore[attr-defined]


def test_mostly_unsupported_draft_is_regenerated_once_then_says_i_dont_know(
    settings: Settings,
) -> None:
    wrong = [
        claim(
            f"Unrelated statement number {i} about llamas.",
            ClaimType.FACT,
            slot(i, ROTATE),
            cid=f"c{i}",
        )
        for i in (1, 2)
    ]
    out, gen = run(wrong, settings, again=[HIT_A])
    assert gen.calls == 2  # the first draft and exactly one regeneration
    assert out.repairs[0].action is RepairAction.REGENERATE  # type: ignore[attr-defined]
    assert out.fallback and out.answer == IDK and out.missing_evidence is not None  # type: ignore[attr-defined]


def test_no_evidence_is_an_honest_i_dont_know(settings: Settings) -> None:
    out, gen = run([], settings, hits=())
    assert gen.calls == 0 and out.fallback and out.citations == ()  # type: ignore[attr-defined]
    assert out.missing_evidence.query_terms == ("often", "key", "rotated")  # type: ignore[attr-defined]


def test_a_near_verbatim_quote_is_never_shown(settings: Settings) -> None:
    near = slot(1, ROTATE).model_copy(update={"quote": ROTATE.replace("2.1.", "2.")})
    out, _ = run([claim(ROTATE, ClaimType.RECOMMENDATION, near)], settings)
    assert all(c.quote in c.text for c in out.citations)  # type: ignore[attr-defined]
    found = {c for r in out.repairs for c in r.codes}  # type: ignore[attr-defined]
    assert found & {
        CheckCode.QUOTE_NOT_VERBATIM,
        CheckCode.BAD_OFFSETS,
    }  # a prefix of the text: bad offsets
