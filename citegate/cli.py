"""The `citegate` command line: ingest, ask, eval, serve, trace.

Every command that writes data uses `CITEGATE_DATA_DIR` (default `./data`). Errors print
one message that says what to do and exit with status 2; `--json` commands print a JSON
error object on stdout instead, so tools never parse a traceback.
"""

from __future__ import annotations

import logging
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from citegate.commands import eval_cmd, ingest_cmd, serve_cmd, trace_cmd
from citegate.render import fail, render_answer
from server.core.contracts import Answer
from server.core.errors import CitegateError, StoreLockedError
from server.core.settings import Settings, load_settings

if TYPE_CHECKING:
    from server.query.answer import GateMode

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
    mode: Annotated[GateChoice | None, typer.Option(case_sensitive=False, help="gate mode")] = None,
    scope: Annotated[str | None, typer.Option(help="comma-separated tags to read")] = None,
    seed: Annotated[int, typer.Option(help="generation seed")] = 0,
) -> None:
    """Answer QUESTION from the ingested corpus, with verified citations.

    While `citegate serve` owns the index (or with CITEGATE_SERVER_URL set), the question is
    sent to its `POST /v1/ask` and the answer printed the same way.
    """
    from citegate.commands.client import Client, ServerError, find_server

    gate_mode: GateMode | None = "strict" if mode is GateChoice.STRICT else None
    gate_mode = "lenient" if mode is GateChoice.LENIENT else gate_mode
    try:
        settings = load_settings()
        server = find_server(settings)
        if server is None:
            try:
                result = _ask_locally(settings, question, gate_mode, scope, seed)
            except StoreLockedError:
                server = find_server(settings)  # the server took the index meanwhile
                if server is None:
                    raise
        if server is not None:
            if scope:
                raise ServerError(
                    "--scope cannot be sent to a running server: the server reads the scope "
                    "of your API key (CITEGATE_API_KEY); leave --scope out, or use a key "
                    "scoped to those tags",
                    code="bad_input",
                    status=422,
                )
            with Client(server) as client:
                result = client.ask(question, mode=gate_mode, seed=seed)
    except CitegateError as exc:
        fail(exc, as_json=as_json)
        return
    if as_json:
        typer.echo(result.model_dump_json())
    else:
        render_answer(result, Console())


def _ask_locally(
    settings: Settings, question: str, mode: GateMode | None, scope: str | None, seed: int
) -> Answer:
    """Answer in this process: open the index, answer, record the trace, close."""
    from server.query.answer import answer
    from server.query.engine import build_engine, record_answer

    engine = build_engine(settings)
    try:
        scope_tags = tuple(t for t in scope.split(",") if t) if scope else None
        result = answer(question, engine, scope_tags=scope_tags, mode=mode, seed=seed)
        record_answer(settings, engine, result)
    finally:
        engine.store.close()
    return result


for _module in (ingest_cmd, eval_cmd, serve_cmd, trace_cmd):
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    app()
