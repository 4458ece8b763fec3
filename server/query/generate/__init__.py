"""Claim-first generators (SPEC 4): extractive (offline default) and LLM."""

from __future__ import annotations

from server.core.ports import Embedder, Generator
from server.core.settings import Settings
from server.query.generate.extractive import ExtractiveGenerator


def build_generator(settings: Settings, *, embedder: Embedder) -> Generator:
    """The extractive generator, or the LLM one when `generator: llm` (falls back to it)."""
    extractive = ExtractiveGenerator(
        embedder, settings.generation, max_claims=settings.integrity.max_claims
    )
    if settings.generator == "llm":
        from server.query.generate.llm import LLMGenerator

        return LLMGenerator.from_settings(settings, fallback=extractive)
    return extractive
