"""Section-aware chunking with exact offsets (SPEC 2.2).

Headings give `section_id` (`<doc path without extension>/<heading slug path>`); a chunk
never crosses a section; inside a section, blocks (paragraphs, whole code fences) and
sentences are packed up to `max_tokens` word-pieces of the embedder's own tokenizer, with
`overlap` units repeated. Every span is a slice of the normalised text, so
`doc_text[start:end] == chunk_text` holds by construction.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from server.core.markdown import FENCE, body_start, headings, slugify

_SENTENCE_END = re.compile(r"(?<=[.!?])[ \t]+(?=[\"'(\[*_`]?[A-Z0-9])")

Count = Callable[[str], int]  # word-pieces of a text, special tokens included
Pieces = Callable[[str], list[tuple[int, int]]]  # character spans of its word-pieces


@dataclass(frozen=True)
class Section:
    """A heading path and the half-open span of its text (heading line included)."""

    section_id: str
    start: int
    end: int
    page: int | None = None


@dataclass(frozen=True)
class Span:
    """A chunk-to-be: its section, exact offsets and exact token count."""

    section_id: str
    start: int
    end: int
    tokens: int
    page: int | None = None


def doc_root(path: str) -> str:
    """The section id prefix of a document: its path without the extension."""
    return path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path


def markdown_sections(text: str, root: str) -> list[Section]:
    """Sections of a Markdown text (`server.core.markdown.headings`: not inside code fences)."""
    marks: list[tuple[int, str]] = [(body_start(text), root)]
    path: list[tuple[int, str]] = []
    for h in headings(text):
        path = [p for p in path if p[0] < h.level] + [(h.level, h.anchor or slugify(h.text))]
        marks.append((h.start, "/".join([root, *(s for _, s in path)])))
    bounds = [*(s for s, _ in marks[1:]), len(text)]
    return [
        Section(sid, start, end)
        for (start, sid), end in zip(marks, bounds, strict=True)
        if end > start
    ]


def page_sections(text: str, root: str, page_starts: list[int]) -> list[Section]:
    """One section per PDF page."""
    ends = [*page_starts[1:], len(text)]
    return [
        Section(f"{root}/page-{i + 1}", s, e, page=i + 1)
        for i, (s, e) in enumerate(zip(page_starts, ends, strict=True))
        if e > s
    ]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def _blocks(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Paragraphs separated by blank lines; a code fence stays one block."""
    pos, block_start, in_fence = start, start, False
    for line in text[start:end].splitlines(keepends=True):
        if FENCE.match(line):
            in_fence = not in_fence
        if not in_fence and not line.strip():
            if (span := _trimmed(text, block_start, pos)) is not None:
                yield span
            block_start = pos + len(line)
        pos += len(line)
    if (span := _trimmed(text, block_start, end)) is not None:
        yield span


def _sentences(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    if FENCE.match(text[start:end]):
        yield from (s for s in _lines(text, start, end))
        return
    cursor = start
    for m in _SENTENCE_END.finditer(text, start, end):
        if (span := _trimmed(text, cursor, m.start())) is not None:
            yield span
        cursor = m.end()
    if (span := _trimmed(text, cursor, end)) is not None:
        yield span


def _lines(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        if (span := _trimmed(text, pos, pos + len(line))) is not None:
            yield span
        pos += len(line)


def _words(
    text: str, start: int, end: int, fits: Callable[[int, int], bool]
) -> Iterator[tuple[int, int]]:
    """Last resort for a unit too long even as one line: greedy runs of whole words."""
    cursor = start
    words = [m.span() for m in re.finditer(r"\S+", text[start:end])]
    piece_start = None
    for ws, we in ((start + a, start + b) for a, b in words):
        if piece_start is None:
            piece_start = ws
        elif not fits(piece_start, we):
            yield piece_start, cursor
            piece_start = ws
        cursor = we
    if piece_start is not None:
        yield piece_start, cursor


def _units(
    text: str, section: Section, fits: Callable[[int, int], bool]
) -> Iterator[tuple[int, int]]:
    """The smallest pieces that each fit: blocks, else sentences, else lines, else words."""
    for block in _blocks(text, section.start, section.end):
        if fits(*block):
            yield block
            continue
        for sent in _sentences(text, *block):
            if fits(*sent):
                yield sent
                continue
            for line in _lines(text, *sent):
                yield from ([line] if fits(*line) else _words(text, *line, fits))


class _Counts:
    """Token counts of spans of one section: exact ones (each span tokenised at most once),
    and unit sizes read off the word-pieces of the section, tokenised once."""

    def __init__(self, text: str, section: Section, count: Count, pieces: Pieces) -> None:
        self.text, self.count = text, count
        self.known: dict[tuple[int, int], int] = {}
        self.specials = count("")  # what every count includes once ([CLS] and [SEP])
        spans = pieces(text[section.start : section.end])
        self.starts = sorted(section.start + a for a, _ in spans)
        self.ends = sorted(section.start + b for _, b in spans)

    def exact(self, start: int, end: int) -> int:
        if (start, end) not in self.known:
            self.known[start, end] = self.count(self.text[start:end])
        return self.known[start, end]

    def inner(self, start: int, end: int) -> int:
        """Word-pieces lying wholly inside `text[start:end]`, special tokens left out."""
        return bisect_right(self.ends, end) - bisect_left(self.starts, start)


def pack(
    text: str,
    section: Section,
    count: Count,
    max_tokens: int,
    overlap: int,
    pieces: Pieces,
) -> list[Span]:
    """Greedy packing of units into spans of at most `max_tokens`, `overlap` units repeated.

    Units meet at whitespace, where a word-piece tokenizer splits anyway, so the section is
    tokenised once (`pieces`: the character spans of its word-pieces), a unit is sized by the
    word-pieces inside it and a run of units by their sum: nothing is tokenised again as a
    run grows (that was 5 % of ingesting SciFact). Each span
    is then counted exactly; a tokenizer for which the sizes do not add up gets the section
    packed again by exact counts, so no span is ever over `max_tokens` by the real count.
    """
    counts = _Counts(text, section, count, pieces)

    def summed(units: list[tuple[int, int]]) -> int:
        return counts.specials + sum(counts.inner(*u) for u in units)

    runs = _greedy(text, section, summed, max_tokens, overlap)
    if any(counts.exact(*r) > max_tokens for r in runs):
        runs = _greedy(
            text, section, lambda us: counts.exact(us[0][0], us[-1][1]), max_tokens, overlap
        )
    return [Span(section.section_id, s, e, counts.exact(s, e), section.page) for s, e in runs]


def _greedy(
    text: str,
    section: Section,
    size: Callable[[list[tuple[int, int]]], int],
    max_tokens: int,
    overlap: int,
) -> list[tuple[int, int]]:
    """Units in order, a run closed when the next unit would take it over `max_tokens`."""
    runs: list[tuple[int, int]] = []
    current: list[tuple[int, int]] = []
    for unit in _units(text, section, lambda s, e: size([(s, e)]) <= max_tokens):
        if current and size([*current, unit]) > max_tokens:
            runs.append((current[0][0], current[-1][1]))
            keep = current[-overlap:] if overlap else []
            current = keep if keep and size([*keep, unit]) <= max_tokens else []
        current.append(unit)
    if current:
        runs.append((current[0][0], current[-1][1]))
    return runs
