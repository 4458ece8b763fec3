"""`GET /v1/traces/{trace_id}`: the stored Answer and its rows, when the caller may read
every chunk it cites (otherwise 404, as for an unknown id)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from server.core.contracts import Answer, TraceRow
from server.core.errors import NotFoundError
from server.service.auth import Caller, in_scope
from server.service.deps import AuthFirstRoute, State, engine_of, require
from server.service.schemas import TraceOut
from server.service.state import AppState

router = APIRouter(
    route_class=AuthFirstRoute, dependencies=[Depends(require("traces"))], tags=["traces"]
)


def readable(state: AppState, caller: Caller, answer: Answer, rows: list[TraceRow]) -> bool:
    """Every chunk the answer cites (citations, claim slots, trace rows) is in scope.

    Citations carry the tags they had when cited; other ids are looked up in the store,
    and one it no longer holds counts as outside any scope.
    """
    if caller.scope is None:
        return True
    tags = {c.snippet_id: c.tags for c in answer.citations}
    ids = {s.snippet_id for claim in answer.claims for s in claim.citations}
    ids |= {sid for row in rows for sid in row.citations}
    for sid in ids - set(tags):
        chunk = engine_of(state).store.get_chunk(sid)
        tags[sid] = chunk.tags if chunk is not None else ()
    return all(in_scope(caller, t) for t in tags.values())


@router.get("/v1/traces/{trace_id}", response_model=TraceOut)
def trace(
    trace_id: str, state: State, caller: Annotated[Caller, Depends(require("traces"))]
) -> TraceOut:
    answer = state.traces.answer(trace_id)
    rows = state.traces.rows(trace_id)
    if not readable(state, caller, answer, rows):
        raise NotFoundError(f"no trace {trace_id!r}: trace ids are printed with every answer")
    return TraceOut(answer=answer, rows=rows)
