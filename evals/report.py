"""Reports beside run.json: run.md and a self-contained run.html, and their PNG plots.

run.html needs no network: CSS and the few lines of filter script are inline, the plots are
base64 PNGs (also written beside it as `<stem>.<plot>.png`). Plots use matplotlib's Agg
backend; without matplotlib the reports say so and carry no plots.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evals.runner import CitationResult, Corpus, EvalRun, GoldQuote, ItemResult, Tolerance

CONTEXT = 400  # characters of the section shown either side of a span


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def fmt_interval(run: EvalRun, key: str) -> str:
    iv = run.intervals.get(key)
    return "" if iv is None else f"[{iv[0]:.3g}, {iv[1]:.3g}]"


def load_peer(path: Path | None) -> dict[str, float | None] | None:
    """The peer row bench/peer.py writes (`rows`: {system: metrics}); None if absent.

    The row named by the file's `peer` key, else the first row not named `citegate...`;
    a value that is not a number (null: not measured) reads as None.
    """
    if path is None or not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data.get("rows", {}) if isinstance(data, dict) else {}
    shown = data.get("peer") if isinstance(data, dict) else None
    for name, row in rows.items():
        wanted = name == shown if shown in rows else not name.startswith("citegate")
        if wanted and isinstance(row, dict):
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


def failing(run: EvalRun) -> list[ItemResult]:
    """Items with a failure kind, worst first (sum of the kinds' weights, then id)."""
    from evals.runner import FAILURE_WEIGHTS

    return sorted(
        (r for r in run.items if r.failures),
        key=lambda r: (-sum(FAILURE_WEIGHTS[f] for f in r.failures), r.id),
    )


def failing_markdown(run: EvalRun) -> str:
    rows = failing(run)
    if not rows:
        return "## failing items\n\nnone\n"
    lines = [
        "## failing items (worst first; run.html shows each cited span beside its gold quote)",
        "",
        "| id | failures | question | gate codes |",
        "|---|---|---|---|",
    ]
    for r in rows:
        q = r.question.replace("|", "\\|")
        lines.append(
            f"| {r.id} | {', '.join(r.failures)} | {q} | {', '.join(r.gate_codes) or '—'} |"
        )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- plots


def _png(plt: Any, fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _bars(plt: Any, run: EvalRun, baseline: EvalRun | None) -> bytes | None:
    from evals.runner import RATES

    keys = [k for k in RATES if run.metrics.get(k) is not None]
    if not keys:
        return None
    series: list[tuple[str, dict[str, float | None], dict[str, tuple[float, float]]]] = [
        ("new", run.metrics, run.intervals)
    ]
    if baseline is not None:
        series.insert(0, ("old", baseline.metrics, baseline.intervals))
    if run.peer:
        series.append(("peer", run.peer, {}))
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(series)
    for i, (name, values, ivs) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(keys))]
        ys = [values.get(k) or 0.0 for k in keys]
        err = [
            [max(0.0, y - ivs[k][0]) if k in ivs else 0 for k, y in zip(keys, ys, strict=True)],
            [max(0.0, ivs[k][1] - y) if k in ivs else 0 for k, y in zip(keys, ys, strict=True)],
        ]
        ax.bar(xs, ys, width, label=name, yerr=err if ivs else None, capsize=2)
    ax.set_xticks(range(len(keys)), keys, rotation=30, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_title("rates (bars: value; whiskers: bootstrap 95% interval)")
    ax.legend()
    return _png(plt, fig)


def _latency(plt: Any, run: EvalRun) -> bytes | None:
    lat = [r.latency_ms for r in run.items]
    if not lat:
        return None
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.hist(lat, bins=min(30, max(5, len(lat) // 2)))
    ax.set_xlabel("answer latency (ms)")
    ax.set_ylabel("items")
    ax.set_title("latency")
    return _png(plt, fig)


def _rerank(plt: Any, run: EvalRun) -> bytes | None:
    groups = {
        name: [
            r.best_rerank_score
            for r in run.items
            if r.answerable is want and r.best_rerank_score is not None
        ]
        for name, want in (("answerable", True), ("unanswerable", False))
    }
    if not any(groups.values()):
        return None
    fig, ax = plt.subplots(figsize=(6, 3))
    bins = [i / 20 for i in range(21)]
    for name, vals in groups.items():
        if vals:
            ax.hist(vals, bins=bins, alpha=0.6, label=f"{name} (n={len(vals)})")
    if run.refusal_threshold is not None:
        ax.axvline(run.refusal_threshold, color="red", linestyle="--", label="min_rerank_score")
    ax.set_xlabel("best hit's rerank score (Answer.decision.signals.best_score)")
    ax.set_ylabel("items")
    ax.legend()
    return _png(plt, fig)


def plots(run: EvalRun, baseline: EvalRun | None) -> dict[str, bytes]:
    """name -> PNG: metric bars (old, new, peer), latency histogram, rerank distributions.

    Empty when matplotlib is not installed; the rerank plot is skipped when no item carries
    a best rerank score.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {}
    made = {
        "metrics": _bars(plt, run, baseline),
        "latency": _latency(plt, run),
        "rerank": _rerank(plt, run),
    }
    return {k: v for k, v in made.items() if v is not None}


# ---------------------------------------------------------------- html

CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;
text-align:left;vertical-align:top}th{background:#f3f3f3}.bad{color:#b00;font-weight:bold}
.item{border:1px solid #ddd;border-radius:6px;padding:.8em;margin:1em 0}
.kind{display:inline-block;background:#fde2e2;border-radius:4px;padding:0 .4em;margin-right:.3em}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}.ctx{white-space:pre-wrap;
font-family:ui-monospace,monospace;font-size:12px;background:#fafafa;padding:.5em;
max-height:20em;overflow:auto}mark{background:#ffe680}mark.hit{background:#9be59b}
.muted{color:#777}img{max-width:100%}
"""
JS = """
function filt(){const k=document.getElementById('kind').value;
for(const e of document.querySelectorAll('.item')){
e.style.display=(!k||e.dataset.kinds.split(' ').includes(k))?'':'none';}}
"""


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def in_context(
    text: str | None,
    section: tuple[int, int] | None,
    span: tuple[int, int],
    others: Sequence[tuple[int, int]],
) -> str:
    """The section around `span` (trimmed to CONTEXT chars either side) with `span` marked;
    the part of it that overlaps any of `others` is marked as the match."""
    if text is None or section is None:
        return '<span class="muted">(document not in the corpus folder)</span>'
    lo = max(section[0], span[0] - CONTEXT)
    hi = min(section[1], span[1] + CONTEXT)
    s0, s1 = max(span[0], lo), min(span[1], hi)
    hit = [(max(a, s0), min(b, s1)) for a, b in others if a < s1 and s0 < b]
    parts = ["…" if lo > section[0] else "", _esc(text[lo:s0]), "<mark>"]
    pos = s0
    for a, b in sorted(hit):
        if a < pos:
            continue
        parts += [_esc(text[pos:a]), '<mark class="hit">', _esc(text[a:b]), "</mark>"]
        pos = b
    parts += [_esc(text[pos:s1]), "</mark>", _esc(text[s1:hi]), "…" if hi < section[1] else ""]
    return "".join(parts)


def _pair(c: CitationResult | None, g: GoldQuote | None, corpus: Corpus) -> str:
    left = right = '<span class="muted">—</span>'
    if c is not None:
        golds = [(x.span.start, x.span.end) for x in ([g] if g else []) if x.path == c.path]
        sec = (c.section.start, c.section.end) if c.section else None
        left = (
            f"<div><b>cited</b> {_esc(c.path)} [{c.span.start}, {c.span.end})"
            f"{'' if c.supported else ' <span class=bad>unsupported</span>'}</div>"
            '<div class="ctx">'
            + in_context(corpus.text(c.path), sec, (c.span.start, c.span.end), golds)
            + "</div>"
        )
    if g is not None:
        cited = [
            (p0, p1) for x in ([c] if c else []) for p, p0, p1 in x.cited().places() if p == g.path
        ]
        right = (
            f"<div><b>gold</b> {_esc(g.path)} [{g.span.start}, {g.span.end})"
            f' {_esc(g.heading)}</div><div class="ctx">'
            + in_context(
                corpus.text(g.path),
                (g.section.start, g.section.end),
                (g.span.start, g.span.end),
                cited,
            )
            + "</div>"
        )
    return f'<div class="pair"><div>{left}</div><div>{right}</div></div>'


def item_html(r: ItemResult, corpus: Corpus) -> str:
    kinds = "".join(f'<span class="kind">{_esc(k)}</span>' for k in r.failures)
    head = (
        f'<div class="item" data-kinds="{_esc(" ".join(r.failures))}">'
        f"<div>{kinds} <b>{_esc(r.id)}</b> · verdict {_esc(r.verdict)}"
        f"{' · refused' if r.fallback else ''} · gate codes: "
        f"{_esc(', '.join(r.gate_codes) or '—')} · repairs: "
        f"{_esc(', '.join(r.repair_codes) or '—')}"
        f" · trace <code>{_esc(r.trace_id)}</code></div>"
        f"<p><b>Q:</b> {_esc(r.question)}</p><p><b>A:</b> {_esc(r.answer)}</p>"
    )
    n = max(len(r.citations), len(r.gold))
    pairs = [
        _pair(
            r.citations[i] if i < len(r.citations) else None,
            r.gold[i] if i < len(r.gold) else None,
            corpus,
        )
        for i in range(n)
    ]
    return head + "".join(pairs) + "</div>"


def metric_table_html(
    run: EvalRun, baseline: EvalRun | None, regressed: list[str], tolerances: dict[str, Tolerance]
) -> str:
    flagged = {r.split(":")[0] for r in regressed}
    cols = ["metric", *(["old"] if baseline else []), "new", "95% interval"]
    cols += [*(["change"] if baseline else []), *(["peer"] if run.peer else []), "tolerance", ""]
    rows = ["<table><tr>" + "".join(f"<th>{c}</th>" for c in cols) + "</tr>"]
    for key, value in run.metrics.items():
        tol = tolerances.get(key)
        cells = [f"<code>{key}</code>"]
        if baseline:
            cells.append(fmt(baseline.metrics.get(key)))
        cells += [fmt(value), fmt_interval(run, key)]
        if baseline:
            was = baseline.metrics.get(key)
            cells.append("" if value is None or was is None else f"{value - was:+.4g}")
        if run.peer:
            cells.append(fmt(run.peer.get(key)))
        cells.append(
            f'<span title="{_esc(tol.comment)}">{tol.better} ±{tol.tolerance:g}</span>'
            if tol
            else "info"
        )
        cells.append('<span class="bad">REGRESSED</span>' if key in flagged else "")
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "\n".join([*rows, "</table>"])


def html_report(
    run: EvalRun,
    baseline: EvalRun | None,
    regressed: list[str],
    tolerances: dict[str, Tolerance],
    pngs: dict[str, bytes],
) -> str:
    from evals.runner import FAILURE_WEIGHTS, Corpus

    corpus = Corpus(Path(run.corpus), {})
    rows = failing(run)
    verdict = (
        '<p class="bad">release blocked: ' + _esc("; ".join(regressed)) + "</p>"
        if regressed
        else ("<p>no regression beyond tolerance</p>" if baseline else "")
    )
    options = "".join(
        f'<option value="{k}">{k} ({sum(k in r.failures for r in rows)})</option>'
        for k in FAILURE_WEIGHTS
    )
    imgs = "".join(
        f'<figure><img alt="{k}" src="data:image/png;base64,{base64.b64encode(v).decode()}">'
        f"</figure>"
        for k, v in pngs.items()
    )
    body = [
        f"<h1>citegate eval: {_esc(run.gold)}</h1>",
        f"<p>corpus <code>{_esc(run.corpus)}</code> · index <code>{_esc(run.index_hash)}</code> · "
        f"target <code>{_esc(run.target)}</code> · schema v{run.schema_version}</p>",
        verdict,
        metric_table_html(run, baseline, regressed, tolerances),
        f'<p class="muted">{_esc(run.latency_reference)}. Null (—): not measured, never compared.'
        + (f" Ignored gold keys: {_esc(', '.join(run.ignored_keys))}." if run.ignored_keys else "")
        + "</p>",
        "<p>models: "
        + ", ".join(f"{k}=<code>{_esc(v)}</code>" for k, v in run.models.items())
        + "</p>",
        imgs or '<p class="muted">(no plots: matplotlib is not installed)</p>',
        f"<h2>failing items ({len(rows)} of {len(run.items)}), worst first</h2>",
        f'<label>failure kind <select id="kind" onchange="filt()"><option value="">all</option>'
        f"{options}</select></label>",
        *(item_html(r, corpus) for r in rows),
    ]
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>citegate eval</title>'
        f"<style>{CSS}</style><script>{JS}</script></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )


def write_reports(
    run: EvalRun,
    out: Path,
    baseline: EvalRun | None,
    regressed: list[str],
    tolerances: dict[str, Tolerance],
) -> Path:
    """run.md, run.html and `<stem>.<plot>.png` beside run.json; returns the .md path."""
    pngs = plots(run, baseline)
    for name, data in pngs.items():
        out.with_name(f"{out.stem}.{name}.png").write_bytes(data)
    text = markdown(run)
    if baseline is not None:
        text += "\n" + comparison(baseline.metrics, run.metrics, regressed, run.peer)
    elif run.peer:
        text += "\n" + peer_markdown(run)
    text += "\n" + failing_markdown(run)
    if pngs:
        text += "\n" + "".join(f"![{k}]({out.stem}.{k}.png)\n" for k in pngs)
    report = out.with_suffix(".md")
    report.write_text(text, encoding="utf-8")
    out.with_suffix(".html").write_text(
        html_report(run, baseline, regressed, tolerances, pngs), encoding="utf-8"
    )
    return report


def peer_markdown(run: EvalRun) -> str:
    peer = run.peer or {}
    lines = ["## citegate vs peer", "", "| metric | citegate | peer |", "|---|---|---|"]
    lines += [
        f"| {k} | {fmt(v)} | {fmt(peer.get(k))} |" for k, v in run.metrics.items() if k in peer
    ]
    return "\n".join(lines) + "\n"
