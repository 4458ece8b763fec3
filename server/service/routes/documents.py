"""`GET /v1/documents`, `DELETE /v1/documents/{doc_id}`, `POST /v1/ingest` (admin).

A scoped admin key sees and deletes only documents with a tag in its scope, and may only
ingest documents tagged within it.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi.concurrency import run_in_threadpool

from server.core.contracts import IngestReport
from server.core.errors import ForbiddenError, NotFoundError, StoreError
from server.core.ports import Ingestor
from server.service.auth import Caller, in_scope
from server.service.deps import AuthFirstRoute, State, engine_of, require
from server.service.schemas import DeletedOut, DocumentOut
from server.service.state import AppState

router = APIRouter(
    route_class=AuthFirstRoute, dependencies=[Depends(require("admin"))], tags=["documents"]
)
Admin = Annotated[Caller, Depends(require("admin"))]


def _ingestor(state: AppState) -> Ingestor:
    engine_of(state)
    if state.ingestor is None:  # set with the engine in the lifespan
        raise StoreError("not ready: the ingestor is still loading")
    return state.ingestor


@router.get("/v1/documents", response_model=list[DocumentOut])
def documents(state: State, caller: Admin) -> list[DocumentOut]:
    return [
        DocumentOut(
            doc_id=d.doc_id,
            rev=d.rev,
            source_url=d.source_url,
            title=d.title,
            chunks=d.chunks,
            tags=list(d.tags),
            updated_at=d.updated_at.isoformat(),
            ingested_at=d.ingested_at.isoformat(),
        )
        for d in engine_of(state).store.docs()
        if in_scope(caller, d.tags)
    ]


@router.delete("/v1/documents/{doc_id:path}", response_model=DeletedOut)
def delete_document(doc_id: str, state: State, caller: Admin) -> DeletedOut:
    ingestor = _ingestor(state)
    if caller.scope is not None:
        doc = engine_of(state).store.get_doc(doc_id)
        if doc is None or not in_scope(caller, doc.tags):
            raise NotFoundError(f"no document {doc_id!r} (unknown or outside your scope)")
    with state.write_lock:
        removed = ingestor.delete(doc_id)
    return DeletedOut(doc_id=doc_id, chunks_removed=removed)


@router.post("/v1/ingest", response_model=list[IngestReport])
async def ingest(
    files: Annotated[list[UploadFile], File(description="documents to ingest")],
    state: State,
    caller: Admin,
    tags: Annotated[str, Form()] = "",
    rev: Annotated[str | None, Form()] = None,
) -> list[IngestReport]:
    tag_list = [t for t in tags.split(",") if t]
    if caller.scope is not None and (not tag_list or not set(tag_list) <= set(caller.scope)):
        raise ForbiddenError(
            f"this key may only ingest documents tagged within its scope "
            f"({', '.join(caller.scope)}); send `tags` from it"
        )
    ingestor = _ingestor(state)
    uploads = [
        (upload.filename or f"upload-{uuid.uuid4().hex[:8]}.txt", await upload.read())
        for upload in files
    ]
    return await run_in_threadpool(_locked_upload, state, ingestor, uploads, tag_list, rev)


def _locked_upload(
    state: AppState,
    ingestor: Ingestor,
    uploads: list[tuple[str, bytes]],
    tags: list[str],
    rev: str | None,
) -> list[IngestReport]:
    """A report per file (the route's contract); one writer at a time, the lock taken in the
    worker thread and never held across an await."""
    with state.write_lock:
        return [ingestor.upload([upload], tags=tags, rev=rev) for upload in uploads]
