"""A real `citegate serve` on loopback over the ingested sample corpus, and locust against it.

Both run as their own processes: the server so its resident memory is its own, locust
because importing it patches the process with gevent.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from server.core.paths import repo_root

REPO = repo_root()
SAMPLES = REPO / "samples" / "corpus"
LOCUSTFILE = REPO / "bench" / "load" / "locustfile.py"
USER_KEY, ADMIN_KEY = "load-user-key", "load-admin-key"
USERS = 18  # 16 askers, the churning admin, the pair uploader (the locustfile's fixed counts)
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
READY_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Server:
    url: str
    pid: int
    log: Path


@dataclass(frozen=True)
class LocustRun:
    """A finished locust run: its exit code, the CSV stats rows and the locustfile's report."""

    returncode: int
    stats: list[dict[str, str]]
    failures: list[dict[str, str]]
    report: dict[str, object]
    log: Path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_ready(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"citegate serve exited {proc.returncode}: see {log}")
        try:
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(1)
    raise RuntimeError(f"citegate serve not ready after {READY_TIMEOUT_S:.0f} s: see {log}")


@contextmanager
def served(workdir: Path) -> Iterator[Server]:
    """Ingest the sample corpus into a fresh data dir, then serve it with a user and an admin
    key; the server is stopped (SIGTERM, then SIGKILL after 30 s) on the way out."""
    keys = {USER_KEY: {"role": "user"}, ADMIN_KEY: {"role": "admin"}}
    env = {
        **os.environ,
        **OFFLINE,
        "CITEGATE_DATA_DIR": str(workdir / "data"),
        "CITEGATE_API_KEYS": json.dumps(keys),
    }
    ingest = [sys.executable, "-m", "citegate", "ingest", str(SAMPLES), "--json"]
    done = subprocess.run(ingest, env=env, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"citegate ingest failed: {done.stderr[-2000:]}")
    port, log = _free_port(), workdir / "serve.log"
    serve = [sys.executable, "-m", "citegate", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(serve, env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, proc, log)
        yield Server(url=url, pid=proc.pid, log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def start_locust(server: Server, seconds: int, workdir: Path) -> subprocess.Popen[bytes]:
    """locust headless for `seconds` (in-flight tasks get 60 s to finish) writing its CSVs and
    the revision report under `workdir`."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "CITEGATE_LOAD_USER_KEY": USER_KEY,
        "CITEGATE_LOAD_ADMIN_KEY": ADMIN_KEY,
        "CITEGATE_LOAD_REPORT": str(workdir / "report.json"),
    }
    cmd = [
        *(sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless"),
        *("-u", str(USERS), "-r", str(USERS), "--run-time", f"{seconds}s"),
        *("--stop-timeout", "60", "--host", server.url, "--csv", str(workdir / "locust")),
        "--only-summary",
    ]
    with (workdir / "locust.log").open("wb") as out:
        return subprocess.Popen(cmd, env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)


def finish_locust(proc: subprocess.Popen[bytes], seconds: int, workdir: Path) -> LocustRun:
    """Wait for the run (its time plus five minutes at most) and read what it wrote."""
    returncode = proc.wait(timeout=seconds + 300)
    report_path = workdir / "report.json"
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else {}
    return LocustRun(
        returncode=returncode,
        stats=_rows(workdir / "locust_stats.csv"),
        failures=_rows(workdir / "locust_failures.csv"),
        report=report,
        log=workdir / "locust.log",
    )


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))
