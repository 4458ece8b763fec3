"""Answer-shape checks over eval items built by hand (oracles by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.answer_shape import check_item, claims_of, code_at, main, report
from evals.runner import Corpus, EvalRun, ItemResult

DOC = (
    "# CORS\n\n"
    "Add the middleware to your app:\n\n"
    "```python\n"
    "app.add_middleware(CORSMiddleware, allow_origins=['*'])\n"
    "```\n\n"
    "Import `HTTPException` and raise it:\n\n"
    "{* ../../docs_src/errors/tutorial001.py hl[1] *}\n\n"
    "Browsers block cross-origin calls by default.\n"
)
CODE = "app.add_middleware(CORSMiddleware, allow_origins=['*'])"
LEAD = "Import `HTTPException` and raise it:"
PLAIN = "Browsers block cross-origin calls by default."


def _item(question: str, answer: str, gold: str, *, fallback: bool = False) -> ItemResult:
    start = DOC.index(gold)
    span = {"start": start, "end": start + len(gold)}
    return ItemResult.model_validate(
        {
            "id": "x1",
            "question": question,
            "answerable": True,
            "fallback": fallback,
            "verdict": "PASS",
            "answer": answer,
            "trace_id": "t",
            "latency_ms": 1.0,
            "delta_s": None,
            "citations": [],
            "gold": [{"path": "cors.md", "quote": gold, "span": span, "section": span}],
            "gate_codes": [],
            "repair_codes": [],
            "failures": [],
            "claims": 1,
            "uncited": 0,
            "fabricated": 0,
        }
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    (tmp_path / "cors.md").write_text(DOC, encoding="utf-8")
    return Corpus(tmp_path, {})


def test_claims_are_read_before_their_markers_without_the_code_reference() -> None:
    answer = "First claim. [1] Second [2][3] (code: `a/b.py`)  Third claim. [4]\n\nTrailing"
    assert claims_of(answer) == ["First claim.", "Second", "Third claim."]


def test_code_at_tells_a_code_block_an_include_and_prose() -> None:
    assert code_at(DOC, DOC.index(CODE), DOC.index(CODE) + 10) == "block"
    assert code_at(DOC, DOC.index(LEAD), DOC.index(LEAD) + 10) == "include"
    assert code_at(DOC, DOC.index(PLAIN), DOC.index(PLAIN) + 10) is None


def test_a_how_to_whose_gold_is_code_needs_code_in_the_answer(corpus: Corpus) -> None:
    q = "How do I enable CORS?"
    no_code = _item(q, "Browsers block cross-origin calls by default. [1]", CODE)
    assert [f.check for f in check_item(no_code, corpus)] == ["code"]
    shown = f"Add the middleware to your app:\n```python\n{CODE}\n```\n[1]"
    assert check_item(_item(q, shown, CODE), corpus) == []
    # an include: the answer names the included file
    q2 = "How can I return an error?"
    named = "Import `HTTPException` and raise it. [1] (code: `errors/tutorial001.py`)"
    assert check_item(_item(q2, named, LEAD), corpus) == []
    bare = "Import `HTTPException` and raise it. [1]"
    assert [f.check for f in check_item(_item(q2, bare, LEAD), corpus)] == ["code"]
    # not a how-to question, or prose gold: nothing is asked of the answer
    assert check_item(_item("What does CORS do?", bare, CODE), corpus) == []
    assert check_item(_item(q, bare, PLAIN), corpus) == []


def test_pointer_changelog_and_lead_in_claims_are_found(corpus: Corpus) -> None:
    answer = (
        "Read more about it in the [CORS docs](https://example.org/cors). [1] "
        "📝 Update docs for CORS. PR [#123](https://github.com/x/y/pull/123) by @a. [2] "
        "Add the middleware to your app: [3] "
        "Browsers block cross-origin calls by default. [4]"
    )
    item = _item("What does CORS do?", answer, PLAIN)
    found = check_item(item, corpus)
    assert [(f.check, f.claim[:8]) for f in found] == [
        ("pointer", "Read mor"),
        ("changelog", "📝 Update"),
        ("lead_in", "Add the "),
    ]
    # a question about a link or a version may be answered by one
    asks = _item(
        "Where can I read more about CORS, and in which version did it change?", answer, PLAIN
    )
    assert [f.check for f in check_item(asks, corpus)] == ["lead_in"]


def test_a_code_block_left_open_is_found(corpus: Corpus) -> None:
    """ "``` [1]" is no closing fence (CommonMark): the code runs on over the next claim."""
    q = "How do I enable CORS?"
    closed = f"Add the middleware:\n```python\n{CODE}\n```\n[1]\n\n{PLAIN} [2]"
    assert check_item(_item(q, closed, CODE), corpus) == []
    marked = f"Add the middleware:\n```python\n{CODE}\n``` [1]\n\n{PLAIN} [2]"
    cut = f"Add the middleware:\n```python\n{CODE} [1]\n\n{PLAIN} [2]"
    for answer in (marked, cut):
        assert [f.check for f in check_item(_item(q, answer, CODE), corpus)] == ["open_code"]
    # brackets in code are no markers; a fence inside a longer fence is code
    indexed = "Read the first error:\n```python\nprint(exc.errors()[0]['type'])\n```\n[1]"
    nested = "Write the docs as:\n````md\n```py\nx = 1\n```\n````\n[1]"
    for answer in (indexed, nested):
        assert check_item(_item(q, answer, CODE), corpus) == []


def test_refused_items_are_not_checked_and_the_command_fails_on_findings(
    corpus: Corpus, tmp_path: Path
) -> None:
    refused = _item("How do I enable CORS?", "I don't know.", CODE, fallback=True)
    rep = report("r", [refused], corpus)
    assert rep.answered == 0 and rep.findings == []

    def write(items: list[ItemResult], name: str) -> str:
        run = EvalRun(
            gold="g.jsonl",
            corpus=str(corpus.root),
            index_hash="h",
            metrics={},
            models={},
            items=items,
        )
        (tmp_path / name).write_text(run.model_dump_json(), encoding="utf-8")
        return str(tmp_path / name)

    bad = _item("How do I enable CORS?", f"{PLAIN} [1]", CODE)
    good = _item("How do I enable CORS?", f"```python\n{CODE}\n```\n[1]", CODE)
    out = tmp_path / "shape.json"
    assert main([write([bad, refused], "bad.json"), "--out", str(out)]) == 1
    assert '"code": 1' in out.read_text(encoding="utf-8")
    assert main([write([good, refused], "good.json")]) == 0
