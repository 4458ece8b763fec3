"""Extractive generator settings (SPEC 4): how evidence sentences are scored and picked."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GenerationSettings(BaseModel):
    """Sentence score = w_cosine * cos(question, sentence) + w_overlap * share of the
    question's content words in the sentence + w_hit * the hit's rerank score relative to the
    best hit's (+ w_instruction for a unit that says how to do what a how-to question asks);
    sentences are then picked greedily (cut-offs are shares of the best score)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence_hits: int = Field(gt=0, description="top reranked hits whose sentences compete")
    w_cosine: float = Field(ge=0.0, description="weight of question-sentence embedding cosine")
    w_overlap: float = Field(ge=0.0, description="weight of question content-word overlap")
    w_hit: float = Field(ge=0.0, description="weight of the hit's relative rerank score")
    w_instruction: float = Field(
        ge=0.0,
        description="score units added to a unit that says how to do what a how-to question "
        "asks (a purpose clause sharing a word with it, then an instruction: "
        "server.query.answer_types.instructs)",
    )
    min_score: float = Field(ge=0.0, description="absolute floor of a sentence's score")
    relative_cutoff: float = Field(
        ge=0.0, le=1.0, description="keep sentences scoring at least this share of the best"
    )
    other_section_cutoff: float = Field(
        ge=0.0, le=1.0, description="share of the best a sentence from another section needs"
    )
    redundant_overlap: float = Field(
        ge=0.0, le=1.0, description="content-word Jaccard above which a sentence repeats one"
    )
    redundant_containment: float = Field(
        ge=0.0,
        le=1.0,
        description="share of a candidate unit's content words inside a chosen one above which "
        "it repeats it (a sentence of a chosen lead-in unit); a larger unit that holds a chosen "
        "one says more and is not redundant",
    )
    twin_jaccard: float = Field(
        ge=0.0,
        le=1.0,
        description="content-word Jaccard at or above which a unit of another document, whose "
        "words the larger unit all holds, is the same passage copied (cited once, `also_in`)",
    )
    max_unit_chars: int = Field(
        gt=0,
        description="characters a lead-in unit may span with the list or code it introduces "
        "(cut at an item or line boundary)",
    )
    join_adjacent: bool = Field(
        description="two chosen units of one chunk with nothing but whitespace, bare HTML tags "
        "or a list marker between them are cited as one span (a passage read in its order)"
    )
    join_continuations: bool = Field(
        description="a chosen unit takes the unit right after it that continues it (opens in "
        "lower case, or in its paragraph with a connective or a pronoun) and clears the floor, "
        "as one span; a leading unit that leans on the sentence before it, or opens a "
        "paragraph leaning on the one before, takes that sentence, and a lower-case fragment "
        "after it the unit it finishes (server.query.generate.extractive.with_continuations, "
        "lead_with_head, fragments_with_heads)"
    )
    lead_margin: float = Field(
        ge=0.0,
        description="score units below the best unit's within which the unit most about the "
        "asked thing (focus words in it, the sentence before it, its headings) leads",
    )
    llm_offered: int = Field(
        gt=0, description="reranked snippets shown to the LLM, the enum of its citation ids"
    )
