"""The README path end to end on the embedded store with the real MiniLM embedder.

`citegate ingest samples/corpus` then `citegate ask --json`: the answer's citations carry
real offsets, `doc_text[start:end] == text` and `doc_text[span] == quote`, checked against
the files on disk (Markdown's normalised text is the file's own text, SPEC 2.1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.core.paths import repo_root

REPO = repo_root()
pytestmark = pytest.mark.model  # the CLI loads the real MiniLM weights
SAMPLES = REPO / "samples" / "corpus"


def _citegate(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITEGATE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "citegate", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("e2e") / "data"
    done = _citegate(data_dir, "ingest", str(SAMPLES), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["documents"]["new"] == len(list(SAMPLES.glob("*.md")))
    assert report["documents"]["failed"] == 0
    assert report["chunks_written"] > 0
    return data_dir


def test_ask_json_citations_resolve_to_exact_spans(ingested: Path) -> None:
    done = _citegate(
        ingested, "ask", "What happens to a citation whose snippet was never retrieved?", "--json"
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["fallback"] is False
    assert answer["citations"], answer
    assert answer["gate"]["verdict"] in {"PASS", "WARN"}
    for cite in answer["citations"]:
        doc_text = (SAMPLES / cite["source_url"]).read_text(encoding="utf-8")
        start, end = cite["offsets"]["start"], cite["offsets"]["end"]
        assert doc_text[start:end] == cite["text"]
        assert doc_text[cite["span"]["start"] : cite["span"]["end"]] == cite["quote"]
        assert f"[{cite['n']}]" in answer["answer"]
        for key in (
            "doc_id",
            "section_id",
            "snippet_id",
            "tokens",
            "index_hash",
            "embed_model",
            "analyzer",
            "rev",
        ):
            assert cite[key] not in (None, ""), key
    assert any("fabricated" in c["text"] for c in answer["citations"])


def test_reingest_unchanged_is_a_no_op(ingested: Path) -> None:
    done = _citegate(ingested, "ingest", str(SAMPLES), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["documents"]["unchanged"] == len(list(SAMPLES.glob("*.md")))
    assert report["chunks_written"] == 0


def test_unanswerable_question_says_i_dont_know(ingested: Path) -> None:
    done = _citegate(ingested, "ask", "What is the boiling point of tungsten in kelvin?", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["fallback"] is True
    assert answer["citations"] == []
    assert answer["missing_evidence"]["summary"]


def test_empty_question_is_a_clear_error(ingested: Path) -> None:
    done = _citegate(ingested, "ask", "   ", "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"] == "bad_input"


def test_a_sphinx_folder_is_ingested_and_cited_in_its_markdown_text(tmp_path: Path) -> None:
    """reStructuredText is cited in the Markdown text it is written out as (`ingest.rst`):
    the span is exact in `doc_text`, and the answer cites the config key's own section."""
    from ingest.loaders import doc_text

    docs = tmp_path / "docs"
    docs.mkdir()
    page = (
        "Configuration\n=============\n\nFlask reads its settings from ``app.config``.\n\n"
        ".. py:data:: PERMANENT_SESSION_LIFETIME\n\n"
        "   A permanent session's cookie expires after this span of time.\n\n"
        "   Default: ``timedelta(days=31)`` (``2678400`` seconds)\n\n"
        ".. toctree::\n\n   quickstart\n"
    )
    (docs / "config.rst").write_text(page)
    (docs / "logo.png").write_bytes(b"\x89PNG")
    data_dir = tmp_path / "data"
    done = _citegate(data_dir, "ingest", str(docs), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["documents"]["new"] == 1
    done = _citegate(
        data_dir, "ask", "How long does a permanent session last before it expires?", "--json"
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["fallback"] is False and answer["citations"], answer
    text = doc_text("config.rst", (docs / "config.rst").read_bytes())[0]
    for cite in answer["citations"]:
        assert text[cite["span"]["start"] : cite["span"]["end"]] == cite["quote"]
    assert any("31" in c["quote"] for c in answer["citations"])
    assert "py:data" not in answer["answer"] and "toctree" not in answer["answer"]
