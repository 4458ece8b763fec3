"""The `citegate` command line: ingest, ask, eval, serve, trace.

Every command that writes data uses `CITEGATE_DATA_DIR` (default `./data`). Errors print
one message that says what to do and exit with status 2; `--json` commands print a JSON
error object on stdout instead, so tools never parse a traceback.
"""

from __future__ import annotations

import logging
import sys
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from citegate.commands import eval_cmd, ingest_cmd, serve_cmd, trace_cmd
from citegate.render import fail, render_answer
from server.core.errors import CitegateError
from server.core.settings import load_settings

app = typer.Typer(
    name="citegate",
    help="RAG answers whose every citation is verified before you see it.",
    no_args_is_help=True,
    add_completion=False,
)


class GateChoice(StrEnum):
    """`--mode`: a choice, so a misspelt mode is an error, never the lenient gate."""

    STRICT = "strict"
    LENIENT = "lenient"


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="the question to answer")],
    as_json: Annotated[bool, typer.Option("--json", help="print the SPEC 1.3 Answer JSON")] = False,
    mode: Annotated[
        GateChoice | None, typer.Option(case_sensitive=False, help="gate mode")
    ] = None,
    scope: Annotated[str | None, typer.Option(help="comma-separated tags to read")] = None,
    seed: Annotated[int, typer.Option(help="generation seed")] = 0,
) -> None:
    """Answer QUESTION from the ingested corpus, with verified citations."""
    from server.query.answer import GateMode, answer
    from server.query.engine import build_engine, record_answer

    try:
        settings = load_settings()
        engine = build_engine(settings)
        try:
            gate_mode: GateMode | None = "strict" if mode is GateChoice.STRICT else None
            gate_mode = "lenient" if mode is GateChoice.LENIENT else gate_mode
            scope_tags = tuple(t for t in scope.split(",") if t) if scope else None
            result = answer(question, engine, scope_tags=scope_tags, mode=gate_mode, seed=seed)
            record_answer(settings, engine, result)
        finally:
            engine.store.close()
    except CitegateError as exc:
        fail(exc, as_json=as_json)
        return
    if as_json:
        typer.echo(result.model_dump_json())
    else:
        render_answer(result, Console())


for _module in (ingest_cmd, eval_cmd, serve_cmd, trace_cmd):
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    app()
