"""Idempotent, atomic re-ingest (SPEC 2.3, 2.4, 2.6).

Per changed document: embed and write the new revision's chunks (batched across documents),
then flip the registry's live revision (`put_doc`, one point write: readers switch here),
then retire the old revision's chunks. A crash before the flip leaves the previous revision
live; the orphaned new chunks are invisible and are retired by the next successful run of
that document.

Only embedded inputs the live revision lacks are embedded: a chunk whose text, title and
heading path are unchanged keeps its stored vector (found by `embed_key`), and identical
inputs in one batch are embedded once.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from ingest.chunks import build_chunks, content_hash, spans_of
from ingest.loaders import SUPPORTED, LoadError, build_doc, load_file
from server.core.contracts import (
    Chunk,
    ChunkRecord,
    DocCounts,
    DocRecord,
    Failure,
    Frozen,
    IndexIdentity,
    IndexMeta,
    IngestReport,
    SourceDoc,
)
from server.core.identity import index_hash
from server.core.ports import ChunkStore, Embedder, EmbedMask, SparseEncoder
from server.core.settings import Settings
from server.core.text import embed_input, embed_key

log = logging.getLogger(__name__)
Progress = Callable[[str, str], None]  # (event, path): "upserted" then "done" per document


def survey(
    paths: Sequence[Path], extensions: Sequence[str]
) -> tuple[list[tuple[Path, Path]], dict[str, int]]:
    """The (file, root) pairs ingest reads, and how many files of each other ending the folders
    hold ("(none)" for a file with no ending), most first, in one walk. A folder contributes
    its files with a known ending, sorted; a file named on its own is read whatever its type
    (an unknown one is then a listed failure with the reason)."""
    found: list[tuple[Path, Path]] = []
    other: Counter[str] = Counter()
    for path in paths:
        if not path.is_dir():
            found.append((path, path.parent))
            continue
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            ending = f.suffix.lower()
            if ending in extensions:
                found.append((f, path))
            else:
                other[ending or "(none)"] += 1
    return found, dict(sorted(other.items(), key=lambda kv: (-kv[1], kv[0])))


def discover(paths: Sequence[Path], extensions: Sequence[str]) -> list[tuple[Path, Path]]:
    """(file, root) pairs: a folder contributes its files with a known ending, sorted."""
    return survey(paths, extensions)[0]


def _identity_of(store: ChunkStore) -> IndexMeta:
    meta = store.meta()
    if meta is None:  # open_store always records one; a bare store is a programming error
        raise LoadError(
            "the store has no index identity: open it with server.index.store.open_store"
        )
    return meta


def _chunks_of(
    doc: SourceDoc,
    pages: list[int],
    *,
    settings: Settings,
    embedder: Embedder,
    identity: IndexIdentity,
    planned: dict[str, str],
) -> list[Chunk]:
    """The new revision's chunks, stamped with the index hash they are written under."""
    spans = spans_of(
        doc,
        embedder,
        settings.ingest.chunk_max_tokens,
        settings.ingest.chunk_overlap_sentences,
        pages,
        settings.ingest.heading_only_max_chars,
    )
    planned[doc.doc_id] = doc.rev
    write_hash = index_hash(identity, planned.items())
    return build_chunks(doc, spans, embedder, identity, write_hash)


def _record(doc: SourceDoc, chunks: int) -> DocRecord:
    return DocRecord(
        doc_id=doc.doc_id,
        rev=doc.rev,
        source_url=doc.source_url,
        path=doc.path,
        title=doc.title,
        content_hash=doc.content_hash,
        chunks=chunks,
        tags=doc.tags,
        updated_at=doc.updated_at,
        ingested_at=datetime.now(UTC),
        text=doc.text,
    )


class Written(Frozen):
    chunks: int = 0
    embedded: int = 0  # the rest kept the vector of an identical embedded input


def _vectors(
    pending: list[tuple[SourceDoc, list[Chunk]]],
    read: Sequence[str],
    read_hashes: Sequence[str | None],
    *,
    embedder: Embedder,
    store: ChunkStore,
    live: dict[str, str],
) -> tuple[list[list[float]], int]:
    """Every pending chunk's dense vector, and how many texts the model had to embed.

    A chunk whose embedded input (`server.core.text.embed_input`: title, heading path, text)
    the document's live revision already holds keeps that vector (same store, so same model:
    the index identity pins it), and each distinct remaining input is embedded once. Chunks
    never cross sections, so an edit re-embeds only its own section:
    over 40 consecutive real commits of 10 FastAPI pages, 91 % of a changed page's chunks
    kept their text. `read` is each chunk's text as the vectors read it (`EmbedMask`: without
    the spans the injection guard withholds), `read_hashes` its content hash where the mask
    changed it (None elsewhere). The key is made of what was read, here and in
    the store (`ChunkRecord.read_hash`), so a vector is never reused between a masked and a
    raw text: a chunk the guard stops masking is embedded again.
    """
    known: dict[str, list[float]] = {}
    for doc, _ in pending:
        if doc.doc_id in live:
            known.update(store.revision_vectors(doc.doc_id, live[doc.doc_id]))
    chunks = [c for _, cs in pending for c in cs]
    keys = [
        embed_key(c.title, c.heading, h or c.content_hash)
        for c, h in zip(chunks, read_hashes, strict=True)
    ]
    todo = {
        k: embed_input(c.title, c.heading, t)
        for k, c, t in zip(keys, chunks, read, strict=True)
        if k not in known
    }
    if todo:
        known.update(zip(todo, embedder.embed_documents(list(todo.values())), strict=True))
    return [known[k] for k in keys], len(todo)


def _flush(
    pending: list[tuple[SourceDoc, list[Chunk]]],
    *,
    embedder: Embedder,
    sparse: SparseEncoder,
    store: ChunkStore,
    live: dict[str, str],
    identity: IndexIdentity,
    progress: Progress | None,
    mask: EmbedMask | None,
) -> Written:
    """Embed and write the chunks of several documents in one batch, then flip each one.

    Batching across documents keeps the model's batches full (a SciFact abstract is one or
    two chunks); each document still flips only after all of its chunks are written.
    """
    chunks = [c for _, cs in pending for c in cs]
    read = [mask(c.text) if mask else c.text for c in chunks]
    # the content hash of what the vectors read, where the mask changed the text
    hashes = [None if t == c.text else content_hash(t) for c, t in zip(chunks, read, strict=True)]
    dense, embedded = _vectors(pending, read, hashes, embedder=embedder, store=store, live=live)
    if chunks:
        store.upsert(
            [
                ChunkRecord(
                    chunk=c,
                    dense=tuple(v),
                    sparse=sparse.encode_document(t),
                    read_hash=h,
                )
                for c, v, t, h in zip(chunks, dense, read, hashes, strict=True)
            ]
        )
    for doc, cs in pending:
        if progress:
            progress("upserted", doc.path)
        store.put_doc(_record(doc, len(cs)))
        if doc.doc_id in live:  # a new document has no older revision to retire
            store.retire(doc.doc_id, keep_rev=doc.rev)
        live[doc.doc_id] = doc.rev
        # The index hash follows every flip, so a run killed half-way leaves it true.
        store.put_meta(
            IndexMeta(
                identity=identity,
                index_hash=index_hash(identity, live.items()),
                updated_at=datetime.now(UTC),
            )
        )
        if progress:
            progress("done", doc.path)
    pending.clear()
    return Written(chunks=len(chunks), embedded=embedded)


def refresh_meta(store: ChunkStore) -> str:
    """Recompute and record the index hash over the live documents; log it (SPEC 2.3)."""
    meta = _identity_of(store)
    new_hash = index_hash(meta.identity, ((d.doc_id, d.rev) for d in store.docs()))
    store.put_meta(
        IndexMeta(identity=meta.identity, index_hash=new_hash, updated_at=datetime.now(UTC))
    )
    log.info("index_hash=%s store=%s", new_hash, store.kind)
    return new_hash


def change_of(doc: SourceDoc, known: DocRecord | None) -> str:
    """ "new", "changed" or "unchanged" against the live record of the same doc_id.

    Unchanged means the same content, tags and source_url, whatever rev the caller passes
    (the live rev, the one that content was ingested at, is kept). A caller-given rev that is
    already live with other content is refused: it would make one rev name two texts.
    """
    if known is None:
        return "new"
    same = (known.content_hash, known.tags, known.source_url) == (
        doc.content_hash,
        doc.tags,
        doc.source_url,
    )
    if same:
        return "unchanged"
    if known.rev == doc.rev and known.content_hash != doc.content_hash:
        raise LoadError(
            f"revision {doc.rev!r} of {doc.doc_id} is already ingested with other content: "
            "pass a new --rev (e.g. the commit that changed it) or omit --rev"
        )
    return "changed"


Load = Callable[[], tuple[SourceDoc, list[int]]]  # reads one file; LoadError when it cannot


def _path_loads(
    paths: Iterable[Path],
    settings: Settings,
    *,
    tags: Sequence[str],
    source_url_prefix: str | None,
    rev: str | None,
) -> Iterator[tuple[str, Load]]:
    for path, root in discover(list(paths), settings.ingest.extensions):
        yield (
            str(path),
            partial(
                load_file,
                path,
                root,
                max_bytes=settings.ingest.max_file_bytes,
                tags=tuple(tags),
                source_url_prefix=source_url_prefix,
                rev=rev,
            ),
        )


def ingest_paths(
    paths: Iterable[Path],
    *,
    settings: Settings,
    embedder: Embedder,
    sparse: SparseEncoder,
    store: ChunkStore,
    tags: Sequence[str] = (),
    source_url_prefix: str | None = None,
    rev: str | None = None,
    prune: bool = False,
    progress: Progress | None = None,
    mask: EmbedMask | None = None,
) -> IngestReport:
    """Ingest files and folders; bad files are reported and skipped, never fatal. `mask`:
    what the vectors read of each chunk (`EmbedMask`; None: the text as it is)."""
    loads = _path_loads(paths, settings, tags=tags, source_url_prefix=source_url_prefix, rev=rev)
    return ingest_loads(
        loads,
        settings=settings,
        embedder=embedder,
        sparse=sparse,
        store=store,
        prune=prune,
        progress=progress,
        mask=mask,
    )


def _load_one(load: Load) -> tuple[SourceDoc, list[int]]:
    try:
        return load()
    except (LoadError, OSError):
        raise
    except Exception as exc:  # a parser's own failure on a malformed file costs that file only
        raise LoadError(f"could not be read ({type(exc).__name__}: {exc})") from exc


def ingest_loads(
    loads: Iterable[tuple[str, Load]],
    *,
    settings: Settings,
    embedder: Embedder,
    sparse: SparseEncoder,
    store: ChunkStore,
    prune: bool = False,
    progress: Progress | None = None,
    mask: EmbedMask | None = None,
) -> IngestReport:
    """Ingest documents given as (name, loader) pairs; a loader that fails costs its file only."""
    started = time.perf_counter()
    counts = {"new": 0, "changed": 0, "unchanged": 0, "failed": 0, "deleted": 0}
    failures: list[Failure] = []
    known = {d.doc_id: d for d in store.docs()}
    live = {doc_id: d.rev for doc_id, d in known.items()}
    planned = dict(live)
    identity = _identity_of(store).identity
    pending: list[tuple[SourceDoc, list[Chunk]]] = []
    flush = partial(
        _flush,
        embedder=embedder,
        sparse=sparse,
        store=store,
        live=live,
        identity=identity,
        progress=progress,
        mask=mask,
    )
    seen: set[str] = set()
    written: list[Written] = []
    for name, load in loads:
        try:
            doc, pages = _load_one(load)
            seen.add(doc.doc_id)
            change = change_of(doc, known.get(doc.doc_id))
        except (LoadError, OSError) as exc:
            failures.append(Failure(path=name, reason=str(exc)))
            counts["failed"] += 1
            continue
        counts[change] += 1
        if change == "unchanged":
            continue
        chunks = _chunks_of(
            doc, pages, settings=settings, embedder=embedder, identity=identity, planned=planned
        )
        pending.append((doc, chunks))
        if sum(len(cs) for _, cs in pending) >= settings.ingest.write_batch:
            written.append(flush(pending))
    written.append(flush(pending))
    chunks_written = sum(w.chunks for w in written)
    log.info(
        "chunks written=%d embedded=%d (the rest kept their vectors)",
        chunks_written,
        sum(w.embedded for w in written),
    )
    if prune:
        for doc_id in sorted(set(live) - seen):
            store.delete_doc(doc_id)
            counts["deleted"] += 1
    if chunks_written or counts["deleted"]:
        store.optimize()  # search indexes once per run, not per batch
    return IngestReport(
        documents=DocCounts(**counts),
        chunks_written=chunks_written,
        seconds=round(time.perf_counter() - started, 3),
        index_hash=refresh_meta(store),
        failures=tuple(failures),
    )


def upload_path(name: str) -> str:
    """The document path an upload's name gives: its relative path as the client sent it
    (a folder upload sends `guide/setup.md`), with `\\` read as `/`, empty and `.` parts,
    a leading `/` and a drive (`C:`) dropped, so `doc_id` matches what `citegate ingest`
    of the same folder gives. LoadError for `..`, a hidden part or no file name."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in {"", "."}]
    if parts and len(parts[0]) == 2 and parts[0][1] == ":":  # a Windows drive
        parts = parts[1:]
    if not parts or not Path(parts[-1]).stem or any(p == ".." or p.startswith(".") for p in parts):
        raise LoadError(
            f"upload name {name[:80]!r} is not a file name (empty, hidden or climbing with "
            f"`..`): send a name such as guide/setup.md; citegate reads {', '.join(SUPPORTED)}"
        )
    return "/".join(parts)


def _upload_load(
    name: str, data: bytes, settings: Settings, tags: Sequence[str], rev: str | None
) -> tuple[SourceDoc, list[int]]:
    """An uploaded file read from memory: its name is its path, never a path on this server."""
    safe = upload_path(name)
    if len(data) > settings.ingest.max_file_bytes:
        raise LoadError(
            f"{len(data)} bytes is over the {settings.ingest.max_file_bytes}-byte limit "
            "(ingest.max_file_bytes): split the file"
        )
    return build_doc(safe, data, mtime=datetime.now(UTC), tags=tuple(tags), rev=rev)


def ingest_uploads(
    files: Sequence[tuple[str, bytes]],
    *,
    settings: Settings,
    embedder: Embedder,
    sparse: SparseEncoder,
    store: ChunkStore,
    tags: Sequence[str] = (),
    rev: str | None = None,
    mask: EmbedMask | None = None,
) -> IngestReport:
    """Uploaded files in one run: each bad file is listed in `failures`, the rest go in."""
    loads = [
        (name[:200], partial(_upload_load, name, data, settings, tags, rev)) for name, data in files
    ]
    return ingest_loads(
        loads, settings=settings, embedder=embedder, sparse=sparse, store=store, mask=mask
    )


@dataclass(frozen=True)
class StoreIngestor:
    """The `Ingestor` the service is handed: the pipeline over one engine's store and models."""

    settings: Settings
    embedder: Embedder
    sparse: SparseEncoder
    store: ChunkStore
    mask: EmbedMask | None = None  # what the vectors read of a chunk (`EmbedMask`)

    def upload(
        self, files: Sequence[tuple[str, bytes]], *, tags: Sequence[str], rev: str | None
    ) -> IngestReport:
        return ingest_uploads(
            files,
            settings=self.settings,
            embedder=self.embedder,
            sparse=self.sparse,
            store=self.store,
            tags=tags,
            rev=rev,
            mask=self.mask,
        )

    def delete(self, doc_id: str) -> int:
        return delete_document(self.store, doc_id)


def delete_document(store: ChunkStore, doc_id: str) -> int:
    """Remove a document and its chunks and refresh the index hash; returns chunks removed."""
    if store.get_doc(doc_id) is None:
        from server.core.errors import NotFoundError

        raise NotFoundError(f"no document {doc_id!r}: list them with GET /v1/documents")
    removed = store.delete_doc(doc_id)
    refresh_meta(store)
    return removed
