"""`citegate eval GOLD.jsonl --corpus DIR`: the evaluators' harness (SPEC 7)."""

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
        Path, typer.Option(help="run file to write (a .md report goes beside it)")
    ] = Path("runs/run.json"),
    baseline: Annotated[
        Path | None, typer.Option(help="an earlier run file to compare against")
    ] = None,
    paraphrases: Annotated[
        bool, typer.Option(help="also answer paraphrases for convergence")
    ] = False,
    seeds: Annotated[
        int | None, typer.Option(help="seeds per paraphrase (evals.paraphrase_seeds)")
    ] = None,
) -> None:
    """Answer a gold set, write metrics and a report; exit 1 when a metric regressed."""
    from evals.runner import load_tolerances, regressions, run_eval, write_run

    try:
        for path in (gold, corpus):
            if not path.exists():
                raise InputError(f"{path} does not exist")
        settings = load_settings()
        old = json.loads(baseline.read_text(encoding="utf-8")) if baseline else None
        run = run_eval(
            gold,
            corpus,
            settings,
            paraphrases=paraphrases,
            seeds=seeds or settings.evals.paraphrase_seeds,
        )
        tol_file = Path(settings.evals.tolerances_file)
        tol_file = tol_file if tol_file.is_absolute() else default_config_dir().parent / tol_file
        tolerances = load_tolerances(tol_file)
        regressed = regressions(old["metrics"], run["metrics"], tolerances) if old else []
        report = write_run(run, out, old, regressed)
    except CitegateError as exc:
        fail(exc, as_json=False)
    console = Console()
    console.print(report.read_text(encoding="utf-8"), highlight=False)
    console.print(f"run file: {out}  report: {report}")
    if regressed:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_)
