"""Reports beside run.json: run.md (metric table, old vs new, failing items)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evals.runner import EvalRun, Tolerance


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def fmt_interval(run: EvalRun, key: str) -> str:
    iv = run.intervals.get(key)
    return "" if iv is None else f"[{iv[0]:.3g}, {iv[1]:.3g}]"


def load_peer(path: Path | None) -> dict[str, float | None] | None:
    """The LlamaIndex row bench/peer.py writes (`rows`: {system: metrics}); None if absent."""
    if path is None or not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data.get("rows", {}) if isinstance(data, dict) else {}
    for name, row in rows.items():
        if not name.startswith("citegate") and isinstance(row, dict):
            return {k: (float(v) if isinstance(v, int | float) else None) for k, v in row.items()}
    return None


def markdown(run: EvalRun) -> str:
    lines = [
        f"# citegate eval: {run.gold}",
        "",
        f"corpus `{run.corpus}` · index `{run.index_hash}` · target `{run.target}` · "
        f"schema v{run.schema_version}",
        "",
        "| metric | value | 95% interval |",
        "|---|---|---|",
    ]
    lines += [f"| {k} | {fmt(v)} | {fmt_interval(run, k)} |" for k, v in run.metrics.items()]
    lines += ["", "models: " + ", ".join(f"{k}=`{v}`" for k, v in run.models.items())]
    lines += ["", f"latency: {run.latency_reference}"]
    if run.ignored_keys:
        lines += ["", "ignored gold keys: " + ", ".join(f"`{k}`" for k in run.ignored_keys)]
    return "\n".join(lines) + "\n"


def comparison(
    old: dict[str, float | None],
    new: dict[str, float | None],
    regressed: list[str],
    peer: dict[str, float | None] | None = None,
) -> str:
    """Metric, old, new, change, verdict (and the peer's value when given)."""
    flagged = {r.split(":")[0] for r in regressed}
    head = "| metric | old | new | change | |" + (" peer |" if peer else "")
    lines = ["## old vs new", "", head, "|---|---|---|---|---|" + ("---|" if peer else "")]
    for key, value in new.items():
        if key not in old:
            continue
        was = old[key]
        change = "" if value is None or was is None else f"{value - was:+.4g}"
        mark = "REGRESSED" if key in flagged else ""
        row = f"| {key} | {fmt(was)} | {fmt(value)} | {change} | {mark} |"
        lines.append(row + (f" {fmt(peer.get(key))} |" if peer else ""))
    verdict = (
        "**release blocked**: " + "; ".join(regressed)
        if regressed
        else "**no regression beyond tolerance**"
    )
    return "\n".join([*lines, "", verdict]) + "\n"


def failing_markdown(run: EvalRun) -> str:
    from evals.runner import FAILURE_WEIGHTS

    failing = sorted(
        (r for r in run.items if r.failures),
        key=lambda r: (-sum(FAILURE_WEIGHTS[f] for f in r.failures), r.id),
    )
    if not failing:
        return "## failing items\n\nnone\n"
    lines = [
        "## failing items",
        "",
        "| id | failures | question | gate codes |",
        "|---|---|---|---|",
    ]
    for r in failing:
        q = r.question.replace("|", "\\|")
        lines.append(
            f"| {r.id} | {', '.join(r.failures)} | {q} | {', '.join(r.gate_codes) or '—'} |"
        )
    return "\n".join(lines) + "\n"


def write_reports(
    run: EvalRun,
    out: Path,
    baseline: EvalRun | None,
    regressed: list[str],
    tolerances: dict[str, Tolerance],
) -> Path:
    """run.md beside run.json; returns its path."""
    text = markdown(run)
    if baseline is not None:
        text += "\n" + comparison(baseline.metrics, run.metrics, regressed, run.peer)
    text += "\n" + failing_markdown(run)
    report = out.with_suffix(".md")
    report.write_text(text, encoding="utf-8")
    return report
