"""Load and soak runs against a real `citegate serve` (marker `load`; `make load`).

test_load: 16 askers while an admin uploads two revisions of one document and deletes it
and another fires two uploads at the same moment, for CITEGATE_LOAD_SECONDS (600): no
failed request and no answer that mixes revisions (bench/load/revisions.py says what that
means); latency percentiles and counts go to runs/load.json.

test_soak: the same workload for CITEGATE_SOAK_SECONDS (1800) with the server's resident
memory sampled every CITEGATE_SOAK_INTERVAL_S (10) seconds: the last quarter's median is at
most 1.10x the median of the first minute after CITEGATE_SOAK_WARMUP_S (60) seconds of
load. The warm-up is the first minute because memory grows while it fills for reasons that
are not a leak: all 18 users arrive at once and the server's worker threads each get their
own malloc arena and torch scratch buffers, and the first answers load the tokenizer's and
the checker's caches. Samples go to runs/soak.json.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.load.rss import Sample, growth, rss_kib
from tests.load.served import REPO, LocustRun, finish_locust, served, start_locust

pytestmark = pytest.mark.load
RUNS = REPO / "runs"
MAX_GROWTH = 1.10


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def _figures(run: LocustRun) -> dict[str, dict[str, Any]]:
    """Per request name (and "Aggregated"): count, failures, p50/p95/p99 in ms, requests/s."""
    return {
        row["Name"]: {
            "requests": int(row["Request Count"]),
            "failures": int(row["Failure Count"]),
            "p50_ms": float(row["50%"]),
            "p95_ms": float(row["95%"]),
            "p99_ms": float(row["99%"]),
            "rps": round(float(row["Requests/s"]), 3),
        }
        for row in run.stats
    }


def _write(name: str, data: dict[str, Any]) -> None:
    RUNS.mkdir(exist_ok=True)
    (RUNS / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _summary(run: LocustRun, seconds: int) -> dict[str, Any]:
    return {
        "seconds": seconds,
        "locust_exit": run.returncode,
        "requests": _figures(run),
        "revisions": run.report,
        "failures": run.failures[:20],
    }


def _assert_clean(run: LocustRun, summary: dict[str, Any]) -> None:
    total = summary["requests"].get("Aggregated")
    assert total is not None, f"locust wrote no stats: see {run.log}"
    assert summary["revisions"].get("tally", {}).get("answers", 0) > 0, f"no answers: {run.log}"
    tally = summary["revisions"]["tally"]
    mixed = sum(tally.get(kind, 0) for kind in ("mixed", "stale", "unknown_index_hash"))
    assert total["failures"] == 0, run.failures[:5]
    assert mixed == 0, summary["revisions"]["examples"][:5]
    assert run.returncode == 0, f"locust exited {run.returncode}: see {run.log}"


def test_load(tmp_path: Path) -> None:
    seconds = _env_int("CITEGATE_LOAD_SECONDS", 600)
    with served(tmp_path) as server:
        run = finish_locust(start_locust(server, seconds, tmp_path), seconds, tmp_path)
    summary = _summary(run, seconds)
    _write("load.json", summary)
    _assert_clean(run, summary)


def _sample_until_done(pid: int, done: Callable[[], bool], interval_s: float) -> list[Sample]:
    """RSS every `interval_s` from now until `done()` is true (the load finished)."""
    start, samples = time.monotonic(), []
    while not done():
        samples.append(Sample(t_s=round(time.monotonic() - start, 1), rss_kib=rss_kib(pid)))
        time.sleep(interval_s)
    return samples


def test_soak(tmp_path: Path) -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("RSS is read from /proc (Linux)")
    seconds = _env_int("CITEGATE_SOAK_SECONDS", 1800)
    warmup = _env_int("CITEGATE_SOAK_WARMUP_S", 60)
    interval = _env_int("CITEGATE_SOAK_INTERVAL_S", 10)
    with served(tmp_path) as server:
        proc = start_locust(server, seconds, tmp_path)
        samples = _sample_until_done(server.pid, lambda: proc.poll() is not None, interval)
        run = finish_locust(proc, seconds, tmp_path)
    grew = growth(samples, seconds, warmup)
    summary = {
        **_summary(run, seconds),
        "warmup_s": warmup,
        "baseline_kib": grew.baseline_kib,
        "tail_kib": grew.tail_kib,
        "ratio": round(grew.ratio, 4),
        "samples": [[s.t_s, s.rss_kib] for s in samples],
    }
    _write("soak.json", summary)
    assert grew.ratio <= MAX_GROWTH, (
        f"RSS grew {grew.ratio:.3f}x ({grew.baseline_kib:.0f} -> {grew.tail_kib:.0f} KiB)"
    )
