"""`citegate eval GOLD.jsonl --corpus DIR`: the evaluators' harness (SPEC 7, docs/EVALUATING.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from citegate.render import fail
from server.core.errors import CitegateError, InputError
from server.core.settings import default_config_dir, load_settings


def eval_(
    gold: Annotated[Path, typer.Argument(help="gold set (JSONL)")],
    corpus: Annotated[Path, typer.Option(help="corpus folder the gold paths are relative to")],
    out: Annotated[
        Path, typer.Option(help="run file to write (run.md and run.html go beside it)")
    ] = Path("runs/run.json"),
    baseline: Annotated[
        Path | None, typer.Option(help="an earlier run file (schema v2) to compare against")
    ] = None,
    peer: Annotated[
        Path | None, typer.Option(help="the peer row bench/peer.py wrote (shown if present)")
    ] = None,
    paraphrases: Annotated[
        bool, typer.Option(help="also answer paraphrases for convergence")
    ] = False,
    seeds: Annotated[
        int | None, typer.Option(help="seeds per paraphrase (evals.paraphrase_seeds)")
    ] = None,
    url: Annotated[
        str | None, typer.Option(help="answer through a deployed server's POST /v1/ask")
    ] = None,
    api_key: Annotated[
        str | None, typer.Option(help="bearer key for --url", envvar="CITEGATE_API_KEY")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print a JSON summary (and JSON errors)")
    ] = False,
) -> None:
    """Answer a gold set, write metrics and reports; exit 1 when a metric regressed."""
    from evals.report import load_peer
    from evals.runner import (
        load_run,
        load_tolerances,
        regressions,
        run_eval,
        run_eval_http,
        write_run,
    )

    try:
        for path in (gold, corpus):
            if not path.exists():
                raise InputError(f"{path} does not exist")
        settings = load_settings()
        old = load_run(baseline) if baseline else None
        if url:
            run = run_eval_http(
                gold,
                corpus,
                url,
                api_key,
                settings,
                paraphrases=paraphrases,
                seeds=seeds or settings.evals.paraphrase_seeds,
            )
        else:
            run = run_eval(
                gold,
                corpus,
                settings,
                paraphrases=paraphrases,
                seeds=seeds or settings.evals.paraphrase_seeds,
            )
        run = run.model_copy(update={"peer": load_peer(peer)})
        tol_file = Path(settings.evals.tolerances_file)
        tol_file = tol_file if tol_file.is_absolute() else default_config_dir().parent / tol_file
        tolerances = load_tolerances(tol_file)
        regressed = regressions(old.metrics, run.metrics, tolerances) if old else []
        report = write_run(run, out, old, regressed, tolerances)
    except CitegateError as exc:
        fail(exc, as_json=as_json)
    if as_json:
        summary = {
            "run": str(out),
            "report": str(report),
            "metrics": run.metrics,
            "intervals": run.intervals,
            "regressions": regressed,
        }
        typer.echo(json.dumps(summary))
    else:
        console = Console()
        console.print(report.read_text(encoding="utf-8"), highlight=False, markup=False)
        console.print(f"run file: {out}  report: {report}", highlight=False, markup=False)
    if regressed:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_)
