"""The gold-set format (SPEC 7.1) and citation matching against gold quotes.

One JSON object per line: `{"id", "question", "paraphrases": [..], "answerable": bool,
"claim_types": [..], "gold": [{"path", "heading", "quote"}], "answer_facts": [..]}`.
A citation matches when it points into the gold file and its cited span overlaps the
character span of a gold quote (found by exact search in the normalised text).

Keys this version does not know (on an item or a gold reference) are ignored, not rejected,
and `read_gold` lists them once; a missing required key is an error naming file and line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ingest.loaders import LoadError, doc_text, normalise
from server.core.errors import InputError
from server.core.markdown import section_bounds


class GoldRef(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    path: str
    heading: str = ""
    quote: str = Field(min_length=1)


class GoldItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    question: str = Field(min_length=1)
    paraphrases: list[str] = []
    answerable: bool
    claim_types: list[str] = []
    gold: list[GoldRef] = []
    answer_facts: list[str] = []


def _unknown(raw: object) -> set[str]:
    """Keys of one raw item (and of its gold references, as `gold.<key>`) the models ignore."""
    if not isinstance(raw, dict):
        return set()
    keys = set(raw) - set(GoldItem.model_fields)
    for ref in raw.get("gold") or []:
        if isinstance(ref, dict):
            keys |= {f"gold.{k}" for k in set(ref) - set(GoldRef.model_fields)}
    return keys


def read_gold(path: Path) -> tuple[list[GoldItem], list[str]]:
    """Parse a JSONL gold set: the items and the sorted unknown keys that were ignored.

    InputError names the file, the line and the field when a line is not a gold item.
    """
    items, ignored = [], set()
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            items.append(GoldItem.model_validate(raw))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise InputError(f"{path}:{no}: not a gold item: {exc}") from exc
        ignored |= _unknown(raw)
    if not items:
        raise InputError(f"{path} holds no gold items")
    return items, sorted(ignored)


def load_gold(path: Path) -> list[GoldItem]:
    """Parse a JSONL gold set; InputError names the line and the field."""
    return read_gold(path)[0]


@dataclass(frozen=True)
class GoldSpan:
    path: str
    start: int
    end: int
    section_start: int
    section_end: int


def resolve(item: GoldItem, corpus: Path) -> list[GoldSpan]:
    """Character spans of every gold quote; InputError when a quote is not verbatim."""
    spans = []
    for ref in item.gold:
        file = corpus / ref.path
        if not file.is_file():
            raise InputError(f"gold {item.id}: {ref.path} is not in {corpus}")
        try:  # the text ingest reads: a PDF's or HTML page's extracted text, not its bytes
            text = doc_text(ref.path, file.read_bytes())[0]
        except LoadError as exc:
            raise InputError(f"gold {item.id}: {ref.path} cannot be read: {exc}") from exc
        start = text.find(normalise(ref.quote))
        if start < 0:
            raise InputError(
                f"gold {item.id}: quote not found verbatim in {ref.path}: {ref.quote[:60]!r}"
            )
        lo, hi = section_bounds(text, start)
        spans.append(GoldSpan(ref.path, start, start + len(normalise(ref.quote)), lo, hi))
    return spans
