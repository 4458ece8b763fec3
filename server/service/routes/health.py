"""`GET /` (web page), `/healthz`, `/readyz`, `/metrics`: open to anyone, no data behind them."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, PlainTextResponse
from prometheus_client import generate_latest

from server.service.deps import State, engine_of
from server.service.schemas import Health, Ready

router = APIRouter(tags=["health"])
WEB_DIR = Path(__file__).resolve().parents[1] / "web"


@router.get("/", include_in_schema=False, response_class=FileResponse)
def index() -> FileResponse:
    return FileResponse(WEB_DIR / "index.html")


@router.get("/healthz", response_model=Health)
def healthz() -> Health:
    return Health()


@router.get("/readyz", response_model=Ready)
def readyz(state: State) -> Ready:
    """Ready once the engine loaded (503 naming what is missing before); `llm` is
    "degraded" while the LLM endpoint does not answer a cheap probe (answers then come
    from the extractive generator)."""
    engine = engine_of(state)
    meta = engine.store.meta()
    probe = getattr(engine.generator, "reachable", None)
    llm = None if probe is None else ("ok" if probe() else "degraded")
    live = sum(d.chunks for d in engine.store.docs())
    return Ready(
        store=engine.store.kind,
        chunks=live,
        unretired_chunks=max(0, engine.store.count() - live),
        index_hash=meta.index_hash if meta else None,
        embed_model=engine.embedder.model_id,
        generator=engine.generator.name,
        llm=llm,
    )


@router.get("/metrics", include_in_schema=False, response_class=PlainTextResponse)
def metrics(state: State) -> PlainTextResponse:
    return PlainTextResponse(
        generate_latest(state.metrics.registry).decode(), media_type="text/plain"
    )
