"""Markdown reports: one run, and the seed 003 old-vs-new regression table."""

from __future__ import annotations

from typing import Any


def markdown(run: dict[str, Any]) -> str:
    lines = [
        f"# citegate eval: {run['gold']}",
        "",
        f"corpus `{run['corpus']}` · index `{run['index_hash']}`",
        "",
        "| metric | value |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v:.4g} |" for k, v in run["metrics"].items()]
    lines += ["", "models: " + ", ".join(f"{k}=`{v}`" for k, v in run["models"].items()), ""]
    return "\n".join(lines) + "\n"


def comparison(old: dict[str, float], new: dict[str, float], regressed: list[str]) -> str:
    """The per-release table of seed 003: metric, old, new, change, verdict."""
    flagged = {r.split(":")[0] for r in regressed}
    lines = ["## old vs new", "", "| metric | old | new | change | |", "|---|---|---|---|---|"]
    for key, value in new.items():
        if key in old:
            mark = "REGRESSED" if key in flagged else ""
            lines.append(
                f"| {key} | {old[key]:.4g} | {value:.4g} | {value - old[key]:+.4g} | {mark} |"
            )
    verdict = (
        "**release blocked**: " + "; ".join(regressed)
        if regressed
        else "**no regression beyond tolerance**"
    )
    return "\n".join([*lines, "", verdict]) + "\n"
