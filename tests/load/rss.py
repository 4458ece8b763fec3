"""Resident memory of a process and whether it grew over a soak.

Read from /proc (Linux, where the service runs): psutil is in the environment only as a
dependency of a dependency and has no type stubs, and VmRSS is what it would read anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from statistics import median

WINDOW_S = 60.0  # the baseline is the median over the first minute after the warm-up


@dataclass(frozen=True)
class Sample:
    t_s: float  # seconds since the load started
    rss_kib: int


def rss_kib(pid: int) -> int:
    """VmRSS of `pid` in KiB; OSError when the process is gone."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise OSError(f"no VmRSS line for process {pid} (a kernel thread or a zombie)")


@dataclass(frozen=True)
class Growth:
    baseline_kib: float  # median over [warmup_s, warmup_s + WINDOW_S)
    tail_kib: float  # median over the last quarter of the run
    ratio: float


def growth(samples: list[Sample], duration_s: float, warmup_s: float) -> Growth:
    """The last quarter's median RSS over the median of the first minute after `warmup_s`.

    ValueError when either window holds no sample (the run is too short for the warm-up).
    """
    base = [s.rss_kib for s in samples if warmup_s <= s.t_s < warmup_s + WINDOW_S]
    tail = [s.rss_kib for s in samples if s.t_s >= 0.75 * duration_s]
    if not base or not tail:
        raise ValueError(
            f"no samples in the baseline ({len(base)}) or last-quarter ({len(tail)}) window: "
            f"run the soak for at least {warmup_s + 2 * WINDOW_S:.0f} s"
        )
    b, t = float(median(base)), float(median(tail))
    return Growth(baseline_kib=b, tail_kib=t, ratio=t / b)
