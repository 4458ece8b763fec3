"""Integrity checker and gate settings (SPEC 5)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class IntegritySettings(BaseModel):
    """Support threshold, gate mode and repair bounds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gate_mode: Literal["strict", "lenient"] = Field(description="seed 000 gate mode")
    support_threshold: float = Field(ge=0.0, le=1.0, description="min support score (calibrated)")
    coverage_trust: float = Field(
        ge=0.0,
        le=1.0,
        description="support score above which the coverage rules (entity_mismatch, "
        "unsupported_part) are not raised: the support model reads paraphrases those word "
        "rules cannot (calibrated; 1.0: raised whatever the score)",
    )
    part_trust: float = Field(
        ge=0.0,
        le=1.0,
        description="support score above which a claim of one part is not held to the "
        "unsupported_part rule: the score read it whole; the rule's own catch is a part "
        "beside others, as in merged claims (calibrated; 1.0: held whatever the score)",
    )
    allow_cross_section: bool = Field(description="seed 002 rule 3 whitelist switch")
    allow_general_knowledge: bool = Field(description="whether [general knowledge] may appear")
    max_regenerations: int = Field(ge=0, description="re-retrieval rounds of the repair ladder")
    relevance_floor: float = Field(
        description="cosine(question, claim) below which a claim is off topic and dropped "
        "(calibrated; with every claim dropped the answer is I don't know)",
    )
    relevance_relative: float = Field(
        ge=0.0, le=1.0, description="a claim also needs this share of the best claim's relevance"
    )
    expansion_terms: int = Field(
        ge=0, description="heading terms added to the question when retrieving again"
    )
    expansion_hits: int = Field(
        gt=0, description="top hits whose titles and headings give those terms"
    )
    max_claims: int = Field(gt=0, description="claims an answer may carry")
    support_model_file: str = Field(description="logistic coefficients fitted on dev splits")
    nli_path: str | None = Field(description="NLI cross-encoder folder; beats the feature model")
    over_generalised: list[str] = Field(description="phrases that need specific support")
    injection_guard: bool = Field(
        description="SPEC 7.3: chunks that address the model are never evidence (quarantine)"
    )
    injection_judge_file: str | None = Field(
        description="the guard's learned reader (relative to config/; written by "
        "`make train-injection`); null: the rules alone"
    )
    foundational_tag: str = Field(
        min_length=1,
        description="tag of the foundational-docs collection ([foundational knowledge])",
    )
