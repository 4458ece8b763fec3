"""Small pure text helpers shared by generation and the checker (no I/O, no models)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from server.contracts import Chunk

_SENT_END = re.compile(r"(?<=[.!?])[ \t]+(?=[\"'(\[*_`]?[A-Z0-9])|\n{2,}|\n(?=[-*+] |\d+\. |#)")
_NOISE = re.compile(r"^\s*(#{1,6}\s|```|~~~|///|\{\*|!!!|\||<|---|\[.*\]:|>\s*$)")
_MARKER = re.compile(r"^(?:[-*+]|\d+\.)\s+|^>\s+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*|\d+(?:[.,]\d+)*%?")
_STOPWORDS = (
    "a an the of to in on for and or but is are was were be been being it its this that "
    "these those with as by at from into about than then so such can could should would "
    "will shall may might must do does did done has have had not no yes you your we our "
    "they their there here what which who whom whose when where why how if else also only "
    "just more most very any all each other some one i me my he she him her them us use "
    "used using "
)
STOP = frozenset(_STOPWORDS.split())


@dataclass(frozen=True)
class Sentence:
    """A sentence of a chunk: exact document offsets and its display text."""

    start: int
    end: int
    quote: str
    display: str


def content_words(text: str) -> list[str]:
    """Lowercased words minus stopwords; a crude stem keeps 'middleware'/'middlewares' equal."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOP or len(w) < 2:
            continue
        out.append(w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def display(text: str) -> str:
    """Markdown emphasis and link syntax removed for reading; never used as a quote."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"\{\s*#[\w-]+\s*\}", "", text)
    return " ".join(text.split())


def sentences(chunk: Chunk) -> Iterator[Sentence]:
    """Prose sentences of a chunk, skipping headings, code, tables, admonition markers."""
    text, base, in_fence = chunk.text, chunk.offsets.start, False
    cursor = 0
    pieces = [*(m.start() for m in _SENT_END.finditer(text)), len(text)]
    for cut in pieces:
        raw = text[cursor:cut]
        start = cursor + (len(raw) - len(raw.lstrip()))
        cursor = cut
        body = text[start:cut].rstrip()
        if body.count("```") % 2 or body.count("~~~") % 2:
            in_fence = not in_fence
            continue
        if in_fence or not body or _NOISE.match(body) or "\n```" in body:
            continue
        marker = _MARKER.match(body)
        if marker:
            start, body = start + marker.end(), body[marker.end() :]
        if len(content_words(body)) < 3:
            continue
        yield Sentence(base + start, base + start + len(body), body, display(body))
