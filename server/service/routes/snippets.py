"""`GET /v1/snippets/{snippet_id}`: a chunk and a window of its section, within scope.

`?start=&end=` (a citation's span, inside the chunk) picks the span the rendered section
highlights; without them it highlights the whole chunk.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from server.core.contracts import Chunk
from server.core.errors import InputError, NotFoundError
from server.service.auth import Caller, in_scope
from server.service.deps import AuthFirstRoute, State, engine_of, require
from server.service.render import RenderedSnippetOut, render_section, source_link

router = APIRouter(
    route_class=AuthFirstRoute, dependencies=[Depends(require("ask"))], tags=["snippets"]
)
_WINDOW = 400  # characters of context around a snippet in its section view
Offset = Annotated[int | None, Query(ge=0, description="a citation span's character offset")]


def _span(chunk: Chunk, start: int | None, end: int | None) -> tuple[int, int]:
    """The span to highlight: the caller's, which must lie inside the chunk, or the chunk."""
    lo = chunk.offsets.start if start is None else start
    hi = chunk.offsets.end if end is None else end
    if not chunk.offsets.start <= lo < hi <= chunk.offsets.end:
        raise InputError(
            f"span [{lo}, {hi}) is not inside snippet {chunk.snippet_id!r} "
            f"[{chunk.offsets.start}, {chunk.offsets.end}): pass a citation's span"
        )
    return lo, hi


@router.get("/v1/snippets/{snippet_id}", response_model=RenderedSnippetOut)
def snippet(
    snippet_id: str,
    state: State,
    caller: Annotated[Caller, Depends(require("ask"))],
    start: Offset = None,
    end: Offset = None,
) -> RenderedSnippetOut:
    engine = engine_of(state)
    chunk = engine.store.get_chunk(snippet_id)
    if chunk is None or not in_scope(caller, chunk.tags):
        raise NotFoundError(f"no snippet {snippet_id!r} (unknown, retired, or outside your scope)")
    span = _span(chunk, start, end)
    visible = engine.policy.snippet_visible
    doc = engine.store.get_doc(chunk.doc_id)
    lo = max(0, chunk.offsets.start - _WINDOW)
    window = doc.text[lo : chunk.offsets.end + _WINDOW] if doc and visible else None
    return RenderedSnippetOut(
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
        path=doc.path if doc else None,
        link=source_link(chunk.source_url),
        rendered=render_section(doc.text, *span) if doc and visible else None,
    )
