"""Check a gold set against its corpus before it is used for figures.

    python -m evals.verify_gold GOLD.jsonl --corpus DIR

For every item: each quote is found verbatim (evals.gold.resolve, after the loader's
normalisation); its heading names a heading of that file (Markdown `#` lines outside code
fences, or the front-matter `title`; `{ #anchor }`, inline markup and double quotes are
dropped before comparing) and the quote lies under that heading; answerable items have gold
and unanswerable ones none; claim types come from the claim taxonomy; ids are unique.
Prints one line per failure (`id: reason`) and exits 1, or prints a one-line summary and exits 0.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from evals.gold import GoldItem, GoldRef, load_gold, resolve
from ingest.loaders import doc_text, front_matter
from server.core import markdown
from server.core.contracts import ClaimType
from server.core.errors import InputError

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_MARKUP = re.compile(r"[`*\"“”]")
_CLAIM_TYPES = frozenset(t.value for t in ClaimType)


@dataclass(frozen=True)
class Heading:
    """A heading line: where it starts, its level (0 for the front-matter title), its text."""

    pos: int
    level: int
    title: str


def plain(heading: str) -> str:
    """Heading text without inline markup or double quotes: `**FastAPI**'s "X"` -> `FastAPI's X`."""
    text = _MARKUP.sub("", _TAG.sub("", _LINK.sub(r"\1", heading)))
    return " ".join(text.split())


def headings(text: str) -> list[Heading]:
    """Headings of a normalised Markdown text in order, as the chunker sees them
    (`server.core.markdown`), after the front-matter title."""
    found: list[Heading] = []
    title = front_matter(text).get("title")
    if isinstance(title, str):
        found.append(Heading(0, 0, plain(title)))
    found += [Heading(h.start, h.level, plain(h.text)) for h in markdown.headings(text)]
    return found


def enclosing(marks: list[Heading], pos: int) -> list[str]:
    """The heading path at `pos`: the nearest heading and each of its ancestors."""
    path: list[Heading] = []
    for mark in marks:
        if mark.pos > pos:
            break
        path = [p for p in path if p.level < mark.level] + [mark]
    return [p.title for p in path]


def check_ref(item: GoldItem, ref: GoldRef, corpus: Path) -> list[str]:
    """Failures of one gold reference: a quote not found verbatim or a wrong heading."""
    try:
        (span,) = resolve(item.model_copy(update={"gold": [ref]}), corpus)
    except InputError as exc:
        return [str(exc)]
    text = doc_text(ref.path, (corpus / ref.path).read_bytes())[0]  # as ingest reads it
    marks = headings(text)
    if plain(ref.heading) not in {m.title for m in marks}:
        return [f"heading {ref.heading!r} is not a heading of {ref.path}"]
    path = enclosing(marks, span.start)
    if plain(ref.heading) not in path:
        under = path[-1] if path else "no heading"
        return [f"quote {ref.quote[:40]!r} is not under {ref.heading!r} (it is under {under!r})"]
    return []


def check_item(item: GoldItem, corpus: Path) -> list[str]:
    """Failures of one item, each a reason without the id."""
    failures: list[str] = []
    if item.answerable and not item.gold:
        failures.append("answerable but has no gold quote")
    if not item.answerable and item.gold:
        failures.append("unanswerable but has gold quotes")
    unknown = sorted(set(item.claim_types) - _CLAIM_TYPES)
    if unknown:
        failures.append(f"unknown claim types {unknown}")
    for ref in item.gold:
        failures.extend(check_ref(item, ref, corpus))
    return failures


def check_set(items: list[GoldItem], corpus: Path) -> list[str]:
    """Every failure of a gold set as `id: reason` lines, duplicate ids first."""
    counts = Counter(item.id for item in items)
    failures = [f"{i}: id used {n} times" for i, n in counts.items() if n > 1]
    for item in items:
        failures.extend(f"{item.id}: {reason}" for reason in check_item(item, corpus))
    return failures


def summary(items: list[GoldItem]) -> str:
    """One line: how many items, answerable, quotes and files were checked."""
    refs = [ref for item in items for ref in item.gold]
    answerable = sum(item.answerable for item in items)
    files = len({ref.path for ref in refs})
    return (
        f"ok: {len(items)} items ({answerable} answerable, {len(items) - answerable} "
        f"unanswerable), {len(refs)} quotes verbatim in {files} files"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("gold", type=Path, help="the gold set (JSONL)")
    ap.add_argument("--corpus", type=Path, required=True, help="folder the gold paths are in")
    args = ap.parse_args(argv)
    try:
        items = load_gold(args.gold)
    except (InputError, OSError) as exc:
        print(f"load: {exc}")
        return 1
    failures = check_set(items, args.corpus)
    for line in failures:
        print(line)
    if failures:
        return 1
    print(f"{args.gold}: {summary(items)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
