"""A sentence-transformers model run by onnxruntime instead of torch: the same numbers, less time.

On this 2-core CPU a MiniLM pass costs torch about 17 ms of fixed overhead, more than the
arithmetic for one short sentence; onnxruntime's graph runs the same layers with about a third of
that (#20, `bench/runtime.py`). The graph is traced from the loaded torch model (about 1.5 s for
MiniLM), stored under `models.onnx_dir` by a fingerprint of the weights, and compared with torch
on probe inputs before it is used. Where onnxruntime is missing, the export fails, the folder is
not writable or the probe disagrees, `accelerate` says why and the caller keeps torch.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from server.core.settings.models import ModelSettings

log = logging.getLogger("citegate.models")

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EXPORT_VERSION = "1"  # bump when the traced wrapper changes, so old graphs are not reused
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


class GraphUnavailable(Exception):
    """Why the ONNX graph cannot stand in for torch; the caller keeps torch."""


HINT = (
    "point CITEGATE_MODELS__ONNX_DIR at a writable folder, or set CITEGATE_MODELS__RUNTIME=torch "
    "to run torch without this warning"
)


class Graph:
    """One exported model: features (the model's own `preprocess` output) -> its output rows.

    The rows are run in passes of similar length: sorted longest first, a pass closes at
    `batch` rows or when the next row is shorter than `slack` times the pass's longest, and
    each pass is cut to its longest row (right padding). A pass costs onnxruntime about 2 ms
    besides its tokens, against torch's 17, so padding, not the number of passes, is the cost.
    """

    def __init__(self, session: Any, names: Sequence[str], batch: int, slack: float) -> None:
        self._session = session
        self._names = tuple(names)
        self._batch = batch
        self._slack = slack

    def __call__(self, features: dict[str, Any]) -> np.ndarray:
        arrays = {k: np.asarray(features[k], dtype=np.int64) for k in self._names}
        lengths = arrays["attention_mask"].sum(axis=1)
        order = [int(i) for i in np.argsort(-lengths, kind="stable")]
        rows: dict[int, np.ndarray] = {}
        start = 0
        while start < len(order):
            longest = int(lengths[order[start]])
            end = start + 1
            while (
                end < len(order)
                and end - start < self._batch
                and lengths[order[end]] >= self._slack * longest
            ):
                end += 1
            batch = order[start:end]
            feed = {k: a[batch, :longest] for k, a in arrays.items()}
            for i, row in zip(batch, self._session.run(None, feed)[0], strict=True):
                rows[i] = row
            start = end
        return np.asarray(np.stack([rows[i] for i in range(len(order))]), dtype=np.float32)


def fingerprint(folder: Path, output: str) -> str:
    """Hash of what the graph is traced from: the weights and every JSON file of the folder and
    its module folders (model config, `modules.json`, pooling and normalisation settings), with
    the torch version, the exported output and this module's export version."""
    import torch

    digest = hashlib.sha256(f"{EXPORT_VERSION}|{torch.__version__}|{output}".encode())
    files = [folder / name for name in _WEIGHTS] + sorted(folder.glob("*.json"))
    files += sorted(folder.glob("*/*.json"))
    for path in dict.fromkeys(files):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode())
            with path.open("rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:24]


def _export(model: Any, names: Sequence[str], output: str, target: Path) -> None:
    """Trace `model` (a SentenceTransformer or CrossEncoder) with its inputs `names` to `target`.

    The example batch is two texts of different lengths, so padding is in it and the traced
    graph applies the attention mask (a batch without padding lets transformers drop it)."""
    import torch

    example = model.preprocess(["alpha beta gamma delta epsilon", "alpha"])

    class Wrapper(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            features: dict[str, Any] = dict(zip(names, tensors, strict=True))
            features["modality"] = "text"
            out: torch.Tensor = self.inner(features)[output]
            return out

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes on transformers' shape checks
            torch.onnx.export(
                Wrapper(model).eval(),
                tuple(example[k] for k in names),
                tmp,
                input_names=list(names),
                output_names=[output],
                dynamic_axes={
                    **{k: {0: "batch", 1: "tokens"} for k in names},
                    output: {0: "batch"},
                },
                opset_version=17,
                dynamo=False,
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)  # atomic: a concurrent loader sees the old file or the new one
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _session(path: Path) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only
    # no busy-waiting between runs: the embedder's and the verifier's pools take turns on the
    # same two cores, and a spinning pool slows the other's next pass
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def accelerate(
    model: Any,
    folder: Path,
    output: str,
    cache: Path,
    probe: Callable[[Callable[[dict[str, Any]], np.ndarray]], float],
    tolerance: float,
    batch: int,
    slack: float,
) -> Graph:
    """The ONNX graph of `model` (loaded from `folder`) for its `output` key ("sentence_embedding",
    "scores"), exported once into `cache`.

    `probe(run)` returns the largest absolute difference between torch and `run` on the caller's
    probe inputs; above `tolerance` the graph is refused. `batch` and `slack` shape its passes
    (`Graph`). Raises GraphUnavailable with the reason.
    """
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise GraphUnavailable("onnxruntime is not installed (`make setup` installs it)") from exc
    names = tuple(k for k in INPUTS if k in model.preprocess(["alpha"]))
    name = f"{folder.name}-{fingerprint(folder, output)}.onnx"
    target = Path(os.path.expanduser(str(cache))) / name
    try:
        try:
            session = _session(target) if target.is_file() else None
        except Exception:  # a damaged file (a disk error, a copy cut short): export it again
            session = None
        if session is None:
            _export(model, names, output, target)
            log.info("exported %s to %s", folder, target)
            session = _session(target)
        graph = Graph(session, names, batch, slack)
        gap = probe(graph)
    except Exception as exc:  # any export, load or probe failure means: keep torch
        raise GraphUnavailable(f"{type(exc).__name__}: {exc}") from exc
    if not gap <= tolerance:
        raise GraphUnavailable(f"ONNX and torch differ by {gap:.2e} (> {tolerance:.0e}) on probes")
    return graph


def graph_or_torch(
    model: Any,
    folder: Path,
    output: str,
    models: ModelSettings,
    probe: Callable[[Callable[[dict[str, Any]], np.ndarray]], float],
    batch: int,
    label: str,
) -> Graph | None:
    """`accelerate` under the settings, for callers that keep torch when it fails: None, with a
    warning that names `label`, the reason and what to do; on success the torch copy of the
    weights is released."""
    try:
        graph = accelerate(
            model,
            folder,
            output,
            Path(models.onnx_dir),
            probe,
            models.onnx_tolerance,
            batch,
            models.onnx_slack,
        )
    except GraphUnavailable as exc:
        log.warning("%s runs on torch (%s); %s", label, exc, HINT)
        return None
    release_torch_weights(model)
    return graph


def release_torch_weights(module: Any) -> None:
    """Drop the torch copy of the weights once the graph runs them (about 90 MB for MiniLM or
    the verifier): parameters move to the `meta` device, which holds shapes, not values. The
    model's tokenizer and configuration stay usable; its forward pass does not."""
    module.to("meta")
