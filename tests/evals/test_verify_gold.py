"""The gold-set verifier on a hand-made corpus (oracles by hand) and on the real dev sets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
import yaml

from evals.verify_gold import Heading, enclosing, headings, main, plain
from server.core.paths import repo_root, shared_data

DATA = shared_data()
REPO = repo_root()

PAGE = """---
title: The **Guide**
---
Intro text before any heading.

# Guide { #guide }

## Use `Thing` { #use-thing }

Call `thing()` once per request.

```python
# Not a heading
```

### Details

Thing is fast.

## What is "Other" { #what-is-other }

Other is slow.
"""


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "sub" / "page.md").write_text(PAGE, encoding="utf-8")
    return corpus


def _item(id_: str, gold: Sequence[tuple[str, str]], **extra: object) -> dict[str, object]:
    refs = [{"path": "sub/page.md", "heading": h, "quote": q} for h, q in gold]
    item = {
        "id": id_,
        "question": "q?",
        "paraphrases": ["a", "b", "c"],
        "answerable": bool(refs),
        "claim_types": ["fact"] if refs else [],
        "gold": refs,
        "answer_facts": [],
    }
    return {**item, **extra}


def _write(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_plain_drops_markup_links_tags_and_quotes() -> None:
    assert plain("**FastAPI**'s `OAuth2PasswordBearer`") == "FastAPI's OAuth2PasswordBearer"
    assert plain('What is "Dependency  Injection"') == "What is Dependency Injection"
    assert plain('Data <dfn title="x">conversion</dfn> [here](a.md)') == "Data conversion here"


def test_headings_skip_fences_and_read_the_front_matter_title() -> None:
    text = PAGE
    found = headings(text)
    assert [(h.level, h.title) for h in found] == [
        (0, "The Guide"),
        (1, "Guide"),
        (2, "Use Thing"),
        (3, "Details"),
        (2, "What is Other"),
    ]
    assert found[2].pos == text.index("## Use")


def test_enclosing_is_the_heading_path_at_a_position() -> None:
    marks = [Heading(0, 0, "T"), Heading(10, 1, "A"), Heading(20, 2, "B"), Heading(30, 2, "C")]
    assert enclosing(marks, 5) == ["T"]
    assert enclosing(marks, 25) == ["T", "A", "B"]
    assert enclosing(marks, 35) == ["T", "A", "C"]


def test_a_good_set_passes_with_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path)
    gold = _write(
        tmp_path / "good.jsonl",
        [
            _item("g1", [("Use Thing", "Call `thing()` once per request.")]),
            _item("g2", [("Guide", "Thing is fast.")]),  # an ancestor heading is fine
            _item("g3", [("What is Other", "Other is slow.")]),  # quotes dropped on both sides
            _item("g4", [("The Guide", "Intro text before any heading.")]),  # front matter
            _item("g5", []),  # unanswerable, no gold
        ],
    )
    assert main([str(gold), "--corpus", str(corpus)]) == 0
    assert capsys.readouterr().out == (
        f"{gold}: ok: 5 items (4 answerable, 1 unanswerable), 4 quotes verbatim in 1 files\n"
    )


def test_each_bad_item_is_one_line_with_its_id_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path)
    gold = _write(
        tmp_path / "bad.jsonl",
        [
            _item("b1", [("Use Thing", "Call thing() once per request.")]),  # not verbatim
            _item("b2", [("Usage", "Thing is fast.")]),  # no such heading
            _item("b3", [("Not a heading", "Thing is fast.")]),  # a comment in a fence
            _item("b4", [("What is Other", "Thing is fast.")]),  # quote under another section
            _item("b5", [], answerable=True),
            _item("b6", [("Details", "Thing is fast.")], answerable=False),
            _item("b7", [("Details", "Thing is fast.")], claim_types=["opinion"]),
            _item("b8", [("Details", "Thing is fast.")]),
            _item("b8", []),
            {
                **_item("b9", [("Details", "Thing is fast.")]),
                "gold": [{"path": "sub/missing.md", "heading": "Details", "quote": "x"}],
            },
        ],
    )
    assert main([str(gold), "--corpus", str(corpus)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "b8: id used 2 times",
        "b1: gold b1: quote not found verbatim in sub/page.md: 'Call thing() once per request.'",
        "b2: heading 'Usage' is not a heading of sub/page.md",
        "b3: heading 'Not a heading' is not a heading of sub/page.md",
        "b4: quote 'Thing is fast.' is not under 'What is Other' (it is under 'Details')",
        "b5: answerable but has no gold quote",
        "b6: unanswerable but has gold quotes",
        "b7: unknown claim types ['opinion']",
        f"b9: gold b9: sub/missing.md is not in {corpus}",
    ]


def test_a_file_that_is_not_a_gold_set_fails_to_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "broken.jsonl"
    gold.write_text('{"id": "x"}\n', encoding="utf-8")
    assert main([str(gold), "--corpus", str(tmp_path)]) == 1
    assert capsys.readouterr().out.startswith(f"load: {gold}:1: not a gold item")


@pytest.mark.needs_data
@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is not beside this checkout")
@pytest.mark.parametrize(
    ("gold", "corpus", "at_least", "unanswerable"),
    [
        ("fastapi.jsonl", "fastapi-docs/docs", 30, 6),
        ("github_site_policy.jsonl", "github-site-policy/docs", 20, 4),
    ],
)
def test_the_real_dev_sets_are_clean(
    gold: str, corpus: str, at_least: int, unanswerable: int, capsys: pytest.CaptureFixture[str]
) -> None:
    path = REPO / "evals" / "gold" / gold
    assert main([str(path), "--corpus", str(DATA / corpus)]) == 0, capsys.readouterr().out
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= at_least
    assert sum(not r["answerable"] for r in rows) >= unanswerable
    assert all(len(r["paraphrases"]) == 3 for r in rows)


@pytest.mark.needs_data
@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is not beside this checkout")
@pytest.mark.parametrize(
    ("name", "corpus", "split"),
    [
        ("fastapi_blind", "fastapi-docs/docs", (None, "all")),  # report only: never tuned on
        ("github_site_policy_blind", "github-site-policy/docs", (None, "all")),
        ("fastapi_tune2", "fastapi-docs/docs", ("all", None)),
        ("github_site_policy_tune2", "github-site-policy/docs", ("all", None)),
        ("fastapi_tune3", "fastapi-docs/docs", ("all", None)),
        ("github_site_policy_tune3", "github-site-policy/docs", ("all", None)),
    ],
)
def test_the_written_pairs_are_clean_and_in_the_split_registry(
    name: str, corpus: str, split: tuple[str | None, str | None], capsys: pytest.CaptureFixture[str]
) -> None:
    path = REPO / "evals" / "gold" / f"{name}.jsonl"
    assert main([str(path), "--corpus", str(DATA / corpus)]) == 0, capsys.readouterr().out
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    size = (20, 10) if name.endswith("tune3") else (30, 15)
    assert (sum(r["answerable"] for r in rows), sum(not r["answerable"] for r in rows)) == size
    registry = yaml.safe_load((REPO / "evals" / "splits.yaml").read_text(encoding="utf-8"))
    entry = registry["sets"][name]
    assert entry["gold"] == f"evals/gold/{name}.jsonl"
    assert (entry["tune"], entry["report"]) == split
