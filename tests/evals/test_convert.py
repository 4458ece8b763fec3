"""The ClapNQ and SciFact converters on hand-made rows: pages, gold quotes, drops."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from evals.convert import main, page_name
from evals.gold import load_gold, resolve
from server.core.paths import shared_data


def _jsonl(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _clapnq(data: Path) -> None:
    text = "Paris is the capital of France . It lies on the Seine ."
    answerable = {
        "id": "1",
        "input": "what is the capital of france",
        "passages": [{"title": "Paris", "text": text, "sentences": []}],
        "output": [{"answer": "Paris", "selected_sentences": ["Paris is the capital of France ."]}],
    }
    unanswerable = {
        "id": "2",
        "input": "how many bridges cross the seine in paris",
        "passages": [{"title": "Seine", "text": "The Seine is a river .", "sentences": []}],
        "output": [{"answer": "", "selected_sentences": []}],
    }
    broken = {  # the selected sentence is not in the passage: dropped, counted
        "id": "3",
        "input": "q",
        "passages": [{"title": "X", "text": "Some text .", "sentences": []}],
        "output": [{"answer": "a", "selected_sentences": ["Not in the text ."]}],
    }
    _jsonl(data / "clapnq" / "clapnq_dev_answerable.jsonl", [answerable, broken])
    _jsonl(data / "clapnq" / "clapnq_dev_unanswerable.jsonl", [unanswerable])


def test_clapnq_writes_pages_and_verbatim_gold(tmp_path: Path) -> None:
    _clapnq(tmp_path / "data")
    out = tmp_path / "out"
    assert main(["clapnq", "--data", str(tmp_path / "data"), "--out", str(out)]) == 0
    items = {i.id: i for i in load_gold(out / "gold.jsonl")}
    assert set(items) == {"clapnq-1", "clapnq-2"}  # clapnq-3 dropped: quote not verbatim
    yes, no = items["clapnq-1"], items["clapnq-2"]
    assert yes.answerable and yes.gold[0].heading == "Paris"
    assert yes.gold[0].path == page_name(
        "Paris", "Paris is the capital of France . It lies on the Seine ."
    )
    span = resolve(yes, out / "corpus")[0]
    page = (out / "corpus" / yes.gold[0].path).read_text(encoding="utf-8")
    assert page[span.start : span.end] == "Paris is the capital of France ."
    assert page.startswith("# Paris\n\n")
    assert not no.answerable and no.gold == []
    assert (out / "corpus" / page_name("Seine", "The Seine is a river .")).is_file()


def test_clapnq_offset_takes_a_disjoint_slice(tmp_path: Path) -> None:
    _clapnq(tmp_path / "data")
    out = tmp_path / "out"
    args = ["clapnq", "--data", str(tmp_path / "data"), "--out", str(out), "--offset", "1"]
    assert main(args) == 1  # the slice holds only the broken row: nothing kept, exit 1
    assert (out / "gold.jsonl").read_text(encoding="utf-8").strip() == ""


def _scifact(data: Path) -> None:
    sentences = [
        {
            "doc_id": 10,
            "title": "Aspirin trial",
            "abstract": ["Aspirin lowers fever.", "It was tested in 40 adults."],
        },
        {"doc_id": 20, "title": "Unrelated", "abstract": ["Cats sleep a lot."]},
        {"doc_id": 30, "title": "Distractor", "abstract": ["Dogs bark."]},
    ]
    _jsonl(data / "scifact" / "corpus_sentences.jsonl", sentences)
    claims = [
        {
            "id": 1,
            "claim": "Aspirin reduces fever.",
            "evidence": {"10": [{"sentences": [0], "label": "SUPPORT"}]},
            "cited_doc_ids": [10],
        },
        {"id": 2, "claim": "Cats dream.", "evidence": {}, "cited_doc_ids": [20]},
        {
            "id": 3,
            "claim": "Aspirin was tested on adults and lowers fever.",
            "evidence": {
                "10": [
                    {"sentences": [1], "label": "SUPPORT"},
                    {"sentences": [0, 1], "label": "SUPPORT"},
                ]
            },
            "cited_doc_ids": [10],
        },
    ]
    _jsonl(data / "scifact" / "claims_dev.jsonl", claims)


def test_scifact_claims_become_questions_with_rationale_quotes(tmp_path: Path) -> None:
    _scifact(tmp_path / "data")
    out = tmp_path / "out"
    args = ["scifact", "--data", str(tmp_path / "data"), "--out", str(out), "--distractors", "0"]
    assert main(args) == 0
    items = {i.id: i for i in load_gold(out / "gold.jsonl")}
    assert items["scifact-1"].answerable
    assert items["scifact-1"].gold[0].quote == "Aspirin lowers fever."
    assert items["scifact-1"].answer_facts == ["support"]
    assert not items["scifact-2"].answerable  # NEI: its cited abstract is present but silent
    # every rationale sentence of every evidence set is gold, each once
    both = ["Aspirin lowers fever.", "It was tested in 40 adults."]
    assert [g.quote for g in items["scifact-3"].gold] == both
    assert items["scifact-3"].answer_facts == ["support"]
    assert sorted(p.name for p in (out / "corpus").iterdir()) == ["10.md", "20.md"]
    page = (out / "corpus" / "10.md").read_text(encoding="utf-8")
    assert page == "# Aspirin trial\n\nAspirin lowers fever. It was tested in 40 adults.\n"


def test_scifact_distractors_are_added(tmp_path: Path) -> None:
    _scifact(tmp_path / "data")
    out = tmp_path / "out"
    main(["scifact", "--data", str(tmp_path / "data"), "--out", str(out), "--distractors", "5"])
    assert sorted(p.name for p in (out / "corpus").iterdir()) == ["10.md", "20.md", "30.md"]


@pytest.mark.needs_data
@pytest.mark.skipif(
    not (shared_data() / "clapnq").is_dir(),
    reason="needs ../shared/data",
)
def test_real_clapnq_slice_converts_without_drops(tmp_path: Path) -> None:
    assert main(["clapnq", "--out", str(tmp_path), "--limit", "20"]) == 0
    items = load_gold(tmp_path / "gold.jsonl")
    assert len(items) == 40 and sum(i.answerable for i in items) == 20
