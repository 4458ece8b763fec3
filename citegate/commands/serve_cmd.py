"""`citegate serve`: the HTTP API, the web page and the OpenAI-compatible endpoint."""

from __future__ import annotations

import ipaddress
from typing import Annotated

import typer
from fastapi import FastAPI

from citegate.render import fail
from server.core.errors import ConfigError
from server.core.ports import Ingestor
from server.core.settings import Settings, load_settings
from server.query.answer import Engine


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_ingestor(engine: Engine) -> Ingestor:
    """The pipeline over the engine's store and models: how the service reaches `ingest`."""
    from ingest.pipeline import StoreIngestor

    return StoreIngestor(engine.settings, engine.embedder, engine.sparse, engine.store)


def build_app(settings: Settings) -> FastAPI:
    """The app wired with the real engine and the admin functions (used by tests too)."""
    from server.query.engine import build_engine
    from server.service.app import create_app

    return create_app(settings, build_engine=build_engine, build_ingestor=build_ingestor)


def serve(
    host: Annotated[
        str | None, typer.Option(help="bind address (default: service.host, loopback)")
    ] = None,
    port: Annotated[int | None, typer.Option(help="TCP port (default: service.port)")] = None,
) -> None:
    """Serve the API and the web page; binds loopback unless API keys are configured."""
    import uvicorn

    from server.service.auth import load_keys

    settings = load_settings()
    host = host or settings.service.host
    try:
        if not _loopback(host) and not load_keys(settings):
            raise ConfigError(
                f"refusing to bind {host} with no API keys configured: set CITEGATE_API_KEYS "
                "or CITEGATE_API_KEYS_FILE, or bind 127.0.0.1"
            )
    except ConfigError as exc:
        fail(exc, as_json=False)
    uvicorn.run(
        build_app(settings), host=host, port=port or settings.service.port, log_level="info"
    )


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
