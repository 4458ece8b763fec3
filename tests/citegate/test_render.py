"""The terminal rendering prints answer and evidence text as written, never as Rich markup."""

from __future__ import annotations

from rich.console import Console

from citegate.render import render_answer
from server.core.contracts import Answer, GateResult, MissingEvidence, Timings, Verdict


def test_labels_and_markup_in_data_print_verbatim() -> None:
    result = Answer(
        question="q",
        answer="[foundational knowledge] The gate checks citations. [1] See [link=http://x]here[/link].",
        fallback=False,
        gate=GateResult(verdict=Verdict.PASS, mode="strict"),
        missing_evidence=MissingEvidence(summary="a page on [bold]limits[/bold]"),
        trace_id="t",
        index_hash="ih",
        generator="extractive",
        timings=Timings(),
    )
    console = Console(record=True, width=300, color_system=None)
    render_answer(result, console)
    out = console.export_text()
    assert "[foundational knowledge] The gate checks citations. [1]" in out
    assert "[link=http://x]here[/link]" in out
    assert "a page on [bold]limits[/bold]" in out
