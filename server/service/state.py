"""What the app holds for its lifetime: settings, the engine, metrics, the traces store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Histogram

from server.core.ports import Ingestor
from server.core.settings import Settings
from server.core.settings.loader import ApiKey
from server.query.answer import Engine
from server.query.audit import TraceStore


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        # `route` is the matched route template (`/v1/snippets/{snippet_id}`) or "unmatched":
        # a bounded label set, whatever paths callers send.
        self.requests = Counter(
            "citegate_requests_total", "HTTP requests", ["route", "status"], registry=self.registry
        )
        self.stage = Histogram(
            "citegate_stage_seconds", "time per query stage", ["stage"], registry=self.registry
        )
        self.verdicts = Counter(
            "citegate_gate_verdicts_total", "gate verdicts", ["verdict"], registry=self.registry
        )


@dataclass
class AppState:
    settings: Settings
    build_engine: Callable[[Settings], Engine]
    build_ingestor: Callable[[Engine], Ingestor]
    engine: Engine | None = None
    ingestor: Ingestor | None = None
    error: str | None = None
    metrics: Metrics = field(default_factory=Metrics)
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    keys: dict[str, ApiKey] = field(default_factory=dict)

    _traces: TraceStore | None = None
    _traces_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def traces(self) -> TraceStore:
        """Opened on first use (creates the tables once), then reused for every request."""
        with self._traces_lock:
            if self._traces is None:
                self._traces = TraceStore(self.settings.data_dir / self.settings.service.traces_db)
            return self._traces
