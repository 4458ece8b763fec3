"""Routes, one APIRouter per resource: each translates HTTP to a call and back (STYLE habit 7).

Every router but health declares `require(action)`; `AuthFirstRoute` runs it before the body
is read. Paths are written in full (no router prefix) so the matched route's `path` is the
template the metrics label with.
"""

from __future__ import annotations

from fastapi import FastAPI

from server.service.routes import ask, documents, health, snippets, traces


def install(app: FastAPI) -> None:
    """Register every router on `app`."""
    for module in (health, ask, snippets, traces, documents):
        app.include_router(module.router)
