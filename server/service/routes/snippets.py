"""`GET /v1/snippets/{snippet_id}`: a chunk and a window of its section, within scope."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from server.core.errors import NotFoundError
from server.service.auth import Caller, in_scope
from server.service.deps import AuthFirstRoute, State, engine_of, require
from server.service.schemas import SnippetOut

router = APIRouter(
    route_class=AuthFirstRoute, dependencies=[Depends(require("ask"))], tags=["snippets"]
)
_WINDOW = 400  # characters of context around a snippet in its section view


@router.get("/v1/snippets/{snippet_id}", response_model=SnippetOut)
def snippet(
    snippet_id: str, state: State, caller: Annotated[Caller, Depends(require("ask"))]
) -> SnippetOut:
    engine = engine_of(state)
    chunk = engine.store.get_chunk(snippet_id)
    if chunk is None or not in_scope(caller, chunk.tags):
        raise NotFoundError(f"no snippet {snippet_id!r} (unknown, retired, or outside your scope)")
    visible = engine.policy.snippet_visible
    doc = engine.store.get_doc(chunk.doc_id)
    lo = max(0, chunk.offsets.start - _WINDOW)
    window = doc.text[lo : chunk.offsets.end + _WINDOW] if doc and visible else None
    return SnippetOut(
        snippet_id=chunk.snippet_id,
        doc_id=chunk.doc_id,
        section_id=chunk.section_id,
        source_url=chunk.source_url,
        title=chunk.title,
        rev=chunk.rev,
        offsets=chunk.offsets.model_dump(),
        text=chunk.text if visible else None,
        section_text=window,
        section_start=lo if window is not None else None,
        visible=visible,
    )
