"""`citegate trace ID`: print one audit trace (SPEC 6.3)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from citegate.render import fail, render_answer
from server.core.errors import CitegateError
from server.core.settings import load_settings
from server.query.audit import format_log_line


def trace(
    trace_id: Annotated[str, typer.Argument(help="the trace id printed with an answer")],
    as_json: Annotated[bool, typer.Option("--json", help="print the stored Answer JSON")] = False,
) -> None:
    """Print the stored answer and its seed 002 trace lines."""
    from server.query.engine import trace_store

    try:
        store = trace_store(load_settings())
        answer, rows = store.answer(trace_id), store.rows(trace_id)
    except CitegateError as exc:
        fail(exc, as_json=as_json)
    if as_json:
        typer.echo(answer.model_dump_json())
        return
    console = Console()
    render_answer(answer, console)
    for row in rows:
        console.print(format_log_line(row), highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("trace")(trace)
