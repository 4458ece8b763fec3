"""Human-readable output for the CLI, and the one way commands report errors."""

from __future__ import annotations

import json
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from server.core.contracts import Answer, Verdict
from server.core.errors import CitegateError

_VERDICT_STYLE = {Verdict.PASS: "green", Verdict.WARN: "yellow", Verdict.BLOCK: "red"}


def fail(exc: CitegateError, *, as_json: bool) -> NoReturn:
    """Report a CitegateError the way the command's output mode promises, then exit 2."""
    if as_json:
        typer.echo(json.dumps({"error": exc.code, "message": str(exc)}))
    else:
        Console(stderr=True).print(f"[bold red]error[/] ({exc.code}): {exc}", highlight=False)
    raise typer.Exit(code=2)


def render_answer(result: Answer, console: Console) -> None:
    """The answer, its citations with their exact quotes, the gate verdict and repairs."""
    style = _VERDICT_STYLE[result.gate.verdict]
    title = f"gate: [{style}]{result.gate.verdict.value}[/] ({result.gate.mode})"
    # Answer and evidence are data, never Rich markup: "[foundational knowledge]" and any
    # "[link=...]" inside a document must print as written.
    console.print(Panel(Text(result.answer), title=title, title_align="left"))
    if result.citations:
        table = Table("n", "source", "section", "rev", "chars", "verified")
        for c in result.citations:
            score = c.verification.support_score
            ok = ("yes" if c.verification.supported else "no") + (
                f" ({score:.2f})" if score is not None else ""
            )
            table.add_row(
                str(c.n),
                Text(c.source_url),
                Text(c.section_id),
                c.rev[:10],
                f"{c.span.start}-{c.span.end}",
                ok,
            )
        console.print(table)
        for c in result.citations:
            console.print(f"[bold]\\[{c.n}][/] \u201c{escape(c.quote)}\u201d", highlight=False)
    for repair in result.repairs:
        console.print(f"[yellow]repair[/] {repair.action.value}: {escape(repair.reason)}")
    for finding in result.gate.codes:
        console.print(
            f"[dim]code {finding.code.value} (claim {finding.claim_id}) {escape(finding.detail)}[/]"
        )
    if result.missing_evidence is not None:
        console.print(f"[bold]missing evidence:[/] {escape(result.missing_evidence.summary)}")
        for source in result.missing_evidence.suggested_sources:
            console.print(f"  - {escape(source)}")
    delta = "n/a" if result.delta_s is None else f"{result.delta_s:.2f}"
    console.print(
        f"[dim]trace {result.trace_id} · index {result.index_hash} · deltaS {delta} · "
        f"{result.timings.total_ms:.0f} ms · {result.generator}[/]"
    )
