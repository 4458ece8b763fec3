"""Answer shape over `citegate eval` run files: claims that do not answer, and code for how-tos.

    python -m evals.answer_shape RUN.json [RUN.json ...] [--out FILE]

Exit 1 when any check fails on any run. Each claim is read from the item's answer text as the
user sees it (the text before each group of [n] markers), so the checks hold for every
generator. Per answered item (issue #19), with the evidence-unit rules of
`server.query.evidence`:

- `pointer`: a claim that sends the reader elsewhere ("Read more about it in ...") when the
  question asks for no link or document;
- `changelog`: a claim that is an entry of a list of changes ("📝 Update docs for ...",
  "... PR #123") when the question asks about no version;
- `lead_in`: a claim that ends in ":", a lead-in shown without what it introduces;
- `open_code`: the answer, read as CommonMark, has a code block left open (a closing fence
  with a marker after it, "``` [1]", or code cut short without one), which runs on over the
  claims after it;
- `code`: a "how do I / how can I ..." question whose gold evidence is code gets an answer
  with code: a gold quote inside a fenced code block of its document needs a code block in the
  answer; a gold sentence whose paragraph is followed by a code-include directive
  (`{* ../docs_src/... *}`, a file the corpus lacks) needs the included file named
  (`(code: path)`), as the extractive generator shows it.

The documents are read from the run's corpus (`--corpus` when the run was written elsewhere).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from markdown_it import MarkdownIt
from pydantic import BaseModel, ConfigDict

from evals.runner import Corpus, ItemResult, load_run
from server.core import markdown
from server.query.answer_types import asks_how_to
from server.query.evidence import asks_for_pointer, asks_for_version, is_changelog, is_pointer

CHECKS = ("pointer", "changelog", "lead_in", "open_code", "code")
_MARKERS = re.compile(r"(?:\s*\[\d+\])+")
_REFERENCE = re.compile(r"^\s*\(code: `[^`]*`\)")


class Finding(BaseModel):
    """One failed check of one item."""

    model_config = ConfigDict(frozen=True)

    id: str
    check: str
    question: str
    claim: str  # the offending claim, or "" for a missing code unit


class ShapeReport(BaseModel):
    """Answered items checked, failures per check and each finding."""

    model_config = ConfigDict(frozen=True)

    run: str
    answered: int
    how_to_with_code_gold: int
    failures: dict[str, int]
    findings: list[Finding]


def claims_of(answer: str) -> list[str]:
    """The claim texts of a rendered answer: what stands before each group of [n] markers,
    without the `(code: path)` reference that trails the previous claim."""
    out = []
    pieces = _MARKERS.split(answer)
    for piece in pieces[:-1]:  # the text after the last markers cites nothing
        text = _REFERENCE.sub("", piece).strip()
        if text:
            out.append(text)
    return out


def open_code(answer: str) -> bool:
    """Whether a CommonMark reader finds a code block of `answer` left open: one that holds a
    line of its own fence with text after it (a closing fence spoilt by a marker, "``` [1]")
    or that runs to the end of the answer without a closing fence (code cut short)."""
    lines = answer.splitlines()
    for token in MarkdownIt("commonmark").parse(answer):
        if token.type != "fence" or token.map is None:
            continue
        rests = [markdown.after_fence(line, token.markup) for line in token.content.splitlines()]
        if any(rest is not None and rest.strip() for rest in rests):
            return True
        last = token.map[1] - 1  # the block's closing line, when it has one
        rest = markdown.after_fence(lines[last], token.markup) if last < len(lines) else None
        if rest is None or rest.strip() or last == token.map[0]:
            return True
    return False


def code_at(text: str, start: int, end: int) -> str | None:
    """'block' when [start, end) lies in a fenced code block of `text`, 'include' when the
    block holding it is followed by a code-include directive, else None."""
    found = markdown.blocks(text)
    for i, block in enumerate(found):
        if block.start <= start < block.end:
            if block.kind == "code":
                return "block"
            nxt = found[i + 1] if i + 1 < len(found) else None
            if nxt is not None and markdown.INCLUDE.match(text, nxt.start):
                return "include"
            return None
    return None


def _code_wanted(item: ItemResult, corpus: Corpus) -> str | None:
    """'block' or 'include' when a how-to question's gold evidence is code, else None."""
    if not asks_how_to(item.question):
        return None
    kinds = set()
    for g in item.gold:
        text = corpus.text(g.path)
        if text is not None:
            kinds.add(code_at(text, g.span.start, g.span.end))
    return "block" if "block" in kinds else "include" if "include" in kinds else None


def check_item(item: ItemResult, corpus: Corpus) -> list[Finding]:
    """The failed checks of one answered item (a refused item shows no claim to check)."""
    out = []
    claims = claims_of(item.answer)
    for claim in claims:
        first_line = claim.splitlines()[0]
        if is_pointer(first_line) and not asks_for_pointer(item.question):
            out.append(Finding(id=item.id, check="pointer", question=item.question, claim=claim))
        if is_changelog(first_line) and not asks_for_version(item.question):
            out.append(Finding(id=item.id, check="changelog", question=item.question, claim=claim))
        if claim.rstrip().endswith(":"):
            out.append(Finding(id=item.id, check="lead_in", question=item.question, claim=claim))
    if open_code(item.answer):
        out.append(Finding(id=item.id, check="open_code", question=item.question, claim=""))
    wanted = _code_wanted(item, corpus)
    shown = (wanted == "block" and markdown.has_fence(item.answer)) or (
        wanted == "include" and "(code: `" in item.answer
    )
    if item.answerable and wanted and not shown:
        out.append(Finding(id=item.id, check="code", question=item.question, claim=""))
    return out


def report(name: str, items: Sequence[ItemResult], corpus: Corpus) -> ShapeReport:
    answered = [i for i in items if not i.fallback]
    findings = [f for i in answered for f in check_item(i, corpus)]
    return ShapeReport(
        run=name,
        answered=len(answered),
        how_to_with_code_gold=sum(1 for i in answered if i.answerable and _code_wanted(i, corpus)),
        failures={c: sum(1 for f in findings if f.check == c) for c in CHECKS},
        findings=findings,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("runs", nargs="+", type=Path, help="run files written by `citegate eval`")
    ap.add_argument("--out", type=Path, help="write the reports here as JSON")
    ap.add_argument("--corpus", type=Path, help="the runs' corpus folder, if not where they say")
    args = ap.parse_args(argv)
    reports = []
    for path in args.runs:
        run = load_run(path)
        corpus = Corpus(args.corpus or Path(run.corpus), {})
        reports.append(report(str(path), run.items, corpus))
    for r in reports:
        sys.stdout.write(
            f"{r.run}: {r.answered} answered, {r.how_to_with_code_gold} how-to with code gold; "
            + ", ".join(f"{k} {v}" for k, v in r.failures.items())
            + "\n"
        )
        for f in r.findings:
            sys.stdout.write(f"  {f.id} {f.check}: {f.question} | {f.claim[:120]!r}\n")
    if args.out:
        args.out.write_text(
            json.dumps([r.model_dump() for r in reports], indent=2) + "\n", encoding="utf-8"
        )
    return 1 if any(f for r in reports for f in r.findings) else 0


if __name__ == "__main__":
    sys.exit(main())
