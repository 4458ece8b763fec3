"""docker-compose.yml and the Dockerfile, checked as files (no Docker engine is needed).

`docker compose config` would resolve the same file; where it cannot run, these are the
properties it would show: every service healthchecked, every app waiting for a healthy Qdrant,
the single and cluster apps on separate volumes, no `${VAR:?}` that fails before keys are set,
and an image pinned to an exact Python release that runs as an unprivileged user.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from citegate.cli import app as cli
from server.core.paths import repo_root

ROOT = repo_root()
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
APPS = ("citegate", "citegate-cluster")
QDRANTS = ("qdrant", "qdrant-node1", "qdrant-node2", "qdrant-node3")


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    spec = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    found: dict[str, dict[str, Any]] = spec["services"]
    assert set(found) == {*APPS, *QDRANTS}
    return found


def _test_command(service: dict[str, Any]) -> str:
    test = service["healthcheck"]["test"]
    assert isinstance(test, list) and test[0] in {"CMD", "CMD-SHELL"}, test
    return " ".join(test[1:])


def test_every_service_has_a_healthcheck_on_readiness(services: dict[str, Any]) -> None:
    for name in QDRANTS:
        command = _test_command(services[name])
        assert "/dev/tcp/127.0.0.1/6333" in command and "/readyz" in command, name
        assert "curl" not in command and "wget" not in command  # not in the Qdrant image
    for name in APPS:
        command = _test_command(services[name])
        assert "http://127.0.0.1:8000/readyz" in command, name
        assert services[name]["healthcheck"]["start_period"]  # model loading is slow


def test_apps_wait_for_a_healthy_qdrant(services: dict[str, Any]) -> None:
    assert services["citegate"]["depends_on"] == {"qdrant": {"condition": "service_healthy"}}
    cluster = services["citegate-cluster"]["depends_on"]
    assert set(cluster) == {"qdrant-node1", "qdrant-node2", "qdrant-node3"}
    for name in ("qdrant-node2", "qdrant-node3"):
        assert services[name]["depends_on"] == {"qdrant-node1": {"condition": "service_healthy"}}
    for deps in (cluster, services["citegate"]["depends_on"]):
        assert all(d == {"condition": "service_healthy"} for d in deps.values())


def _volume(service: dict[str, Any], target: str) -> str:
    for mount in service["volumes"]:
        source, _, rest = mount.partition(":")
        if rest.split(":")[0] == target:
            return str(source)
    raise AssertionError(f"no volume on {target}: {service['volumes']}")


def test_apps_have_separate_data_volumes_and_the_corpus_mounted(
    services: dict[str, Any],
) -> None:
    data = {name: _volume(services[name], "/data") for name in APPS}
    assert len(set(data.values())) == len(APPS), data
    spec = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert set(data.values()) <= set(spec["volumes"])
    for name in APPS:
        assert _volume(services[name], "/corpus") == "./corpus"
        assert any(m.startswith("./corpus:/corpus:ro") for m in services[name]["volumes"])
    qdrant = [_volume(services[name], "/qdrant/storage") for name in QDRANTS]
    assert len(set(qdrant)) == len(QDRANTS)


def test_compose_reads_before_keys_are_set(services: dict[str, Any]) -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    assert ":?" not in text  # a required variable fails `config`, `pull` and `down` too
    for name in APPS:
        assert services[name]["environment"]["CITEGATE_API_KEYS"] == "${CITEGATE_API_KEYS:-}"


def test_an_empty_key_variable_gets_the_clear_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    # What compose passes when CITEGATE_API_KEYS is not set: "" (not malformed JSON).
    monkeypatch.setenv("CITEGATE_API_KEYS", "")
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "8000"])
    assert result.exit_code == 2, result.output
    assert "refusing to bind 0.0.0.0 with no API keys configured" in result.output


def _instructions(path: Path) -> list[tuple[str, str]]:
    lines = path.read_text(encoding="utf-8").replace("\\\n", " ").splitlines()
    out = []
    for line in lines:
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_the_image_is_pinned_and_runs_unprivileged() -> None:
    steps = _instructions(DOCKERFILE)
    base = [rest for word, rest in steps if word == "FROM"]
    assert len(base) == 1
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?", base[0]), base
    users = [rest for word, rest in steps if word == "USER"]
    assert users and users[-1] not in {"root", "0", "0:0"}
    last_user = max(i for i, (word, _) in enumerate(steps) if word == "USER")
    assert last_user < max(i for i, (word, _) in enumerate(steps) if word == "CMD")
    assert any(word == "HEALTHCHECK" and "/readyz" in rest for word, rest in steps)


def test_the_image_holds_the_models_the_default_settings_name() -> None:
    from server.core.settings import default_config_dir, load_settings
    from server.query.integrity.support import load_support_model

    settings = load_settings()
    model = load_support_model(default_config_dir() / settings.integrity.support_model_file)
    assert model.verifier_path and not Path(model.verifier_path).is_absolute()
    top = Path(model.verifier_path).parts[0]  # "models"
    steps = _instructions(DOCKERFILE)
    workdir = [rest for word, rest in steps if word == "WORKDIR"][-1]
    assert ("COPY", f"{top} ./{top}") in steps, f"the image lacks {top}/"
    # repo_root() is the folder above server/: only an editable install keeps it at WORKDIR
    installs = [rest for word, rest in steps if word == "RUN" and "-c constraints.txt" in rest]
    assert installs and re.search(r"-c constraints\.txt -e \.$", installs[-1]), installs
    assert workdir == "/app"
