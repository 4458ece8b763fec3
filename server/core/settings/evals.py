"""Evaluation harness settings (SPEC 7)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class EvalSettings(BaseModel):
    """Where tolerances live and how evals are run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tolerances_file: str = Field(description="YAML of per-metric regression tolerances")
    paraphrase_seeds: int = Field(gt=0, description="seeds per paraphrase for convergence")
