"""`citegate ingest PATH...`: load, chunk, embed and write documents (SPEC 2), locally or
through a running `citegate serve`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from citegate.commands.client import (
    KEY_ENV,
    URL_ENV,
    Client,
    find_server,
    ingest_remote,
    refuse_local_only,
)
from citegate.render import fail
from server.core.contracts import IngestReport
from server.core.errors import CitegateError, InputError, StoreLockedError
from server.core.settings import Settings, load_settings


@contextmanager
def _progress_bar(total: int, enabled: bool) -> Iterator[object]:
    if not enabled:
        yield None
        return
    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("ingesting", total=total)

        def advance(event: str, path: str) -> None:
            if event == "done":
                bar.update(task, advance=1, description=path[-40:])

        yield advance


def _readable(paths: list[Path], settings: Settings, *, note: bool) -> list[tuple[Path, Path]]:
    """The files of `paths` ingest reads (`survey`); InputError naming what the folders
    hold when there is none (a folder of reStructuredText said "fix the files listed above"
    and listed nothing); with `note`, a line on stderr counting the files of other types."""
    from ingest.pipeline import survey

    found, other = survey(paths, settings.ingest.extensions)
    reads = ", ".join(settings.ingest.extensions)
    if not found:
        held = f" (it holds {_types(other)})" if other else " (it is empty)"
        raise InputError(
            f"no file citegate reads in {', '.join(map(str, paths))}{held}: citegate reads "
            f"{reads}; convert the documents to one of these (e.g. Markdown) or pass another "
            "folder"
        )
    if other and note:
        Console(stderr=True).print(f"[yellow]not read[/]: {_types(other)} (citegate reads {reads})")
    return found


def _types(counts: dict[str, int]) -> str:
    """`{".rst": 3, ".png": 1}` as "3 .rst files, 1 .png file"."""
    return ", ".join(f"{n} {ending} file{'s' if n > 1 else ''}" for ending, n in counts.items())


def _summary(report: IngestReport) -> None:
    console = Console()
    table = Table("new", "changed", "unchanged", "failed", "deleted", "chunks", "seconds")
    docs = report.documents
    table.add_row(
        *(str(n) for n in (docs.new, docs.changed, docs.unchanged, docs.failed, docs.deleted)),
        str(report.chunks_written),
        str(report.seconds),
    )
    console.print(table)
    console.print(f"index_hash {report.index_hash}")
    for failure in report.failures:
        console.print(f"[red]skipped[/] {failure.path}: {failure.reason}")


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="files or folders to ingest")],
    tags: Annotated[str, typer.Option(help="comma-separated tags added to every document")] = "",
    source_url_prefix: Annotated[
        str | None, typer.Option(help="prefix of every source_url")
    ] = None,
    rev: Annotated[str | None, typer.Option(help="revision id, e.g. a git commit")] = None,
    prune: Annotated[bool, typer.Option(help="delete indexed documents not found now")] = False,
    rebuild: Annotated[
        bool, typer.Option(help="drop the index first (model/analyzer change)")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the summary as one JSON object")
    ] = False,
) -> None:
    """Ingest Markdown, text, HTML and PDF files; unchanged documents are skipped.

    While `citegate serve` owns the index (or with CITEGATE_SERVER_URL set), the files are
    uploaded to its `POST /v1/ingest` instead, and the summary is the same.
    """
    try:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise InputError(f"no such file or folder: {', '.join(missing)}")
        settings = load_settings()
        found = _readable(paths, settings, note=not as_json)
        server = find_server(settings)
        show = sys.stderr.isatty() and not as_json
        if server is None:
            try:
                report = _local(
                    paths,
                    settings,
                    total=len(found),
                    show=show,
                    tags=tags,
                    source_url_prefix=source_url_prefix,
                    rev=rev,
                    prune=prune,
                    rebuild=rebuild,
                )
            except StoreLockedError as exc:
                server = find_server(settings)  # the server took the index meanwhile
                if server is None:
                    raise StoreLockedError(
                        f"{exc}. To send these files to a running `citegate serve`, set "
                        f"{URL_ENV}=http://HOST:PORT (and {KEY_ENV} to an admin key) and run "
                        "this command again"
                    ) from exc
        if server is not None:
            refuse_local_only(source_url_prefix=source_url_prefix, prune=prune, rebuild=rebuild)
            with Client(server) as client, _progress_bar(len(found), show) as advance:
                report = ingest_remote(
                    client,
                    found,
                    settings=settings,
                    tags=tags,
                    rev=rev,
                    progress=advance,  # type: ignore[arg-type]
                )
    except CitegateError as exc:
        fail(exc, as_json=as_json)
    if as_json:
        typer.echo(json.dumps(report.model_dump(mode="json")))
    else:
        _summary(report)
    docs = report.documents
    if docs.new + docs.changed + docs.unchanged == 0:
        Console(stderr=True).print("[red]nothing could be ingested[/]: fix the files listed above")
        raise typer.Exit(code=1)


def _local(
    paths: list[Path],
    settings: Settings,
    *,
    total: int,
    show: bool,
    tags: str,
    source_url_prefix: str | None,
    rev: str | None,
    prune: bool,
    rebuild: bool,
) -> IngestReport:
    """Ingest into the index this process opens (the embedded one, or a Qdrant server)."""
    from ingest.pipeline import ingest_paths
    from server.query.engine import (
        build_embedder,
        build_judge,
        build_sparse,
        embed_mask,
        open_index,
    )

    embedder, sparse = build_embedder(settings), build_sparse(settings)
    mask = embed_mask(settings, build_judge(settings, embedder))
    store = open_index(settings, embedder, sparse, rebuild=rebuild)
    try:
        with _progress_bar(total, show) as advance:
            return ingest_paths(
                paths,
                settings=settings,
                embedder=embedder,
                sparse=sparse,
                store=store,
                tags=[t for t in tags.split(",") if t],
                source_url_prefix=source_url_prefix,
                rev=rev,
                prune=prune,
                progress=advance,  # type: ignore[arg-type]
                mask=mask,
            )
    finally:
        store.close()


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)
