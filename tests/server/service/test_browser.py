"""The web page in headless Chromium: ask, see the checked answer, click [1], see the span.

Opt-in tier (`pytest -m browser`, `make browser`). It needs Debian's `chromium` and
`chromium-driver`, which `make browser-deps` installs; the test itself installs nothing and
skips with that instruction when they are missing. The app is served by uvicorn on a free
loopback port with the offline engine over the sample corpus and no API keys (loopback only).
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from citegate.commands.serve_cmd import build_ingestor
from server.core.settings import load_settings
from server.service.app import create_app
from tests.engine import offline_engine

pytestmark = pytest.mark.browser
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
QUESTION = "What does the gate do with a fabricated citation?"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    # The hash embedder's scores are low: 0.05 lets it answer; a test may ask for another.
    floor = getattr(request, "param", 0.05)
    settings = load_settings(data_dir=tmp_path / "data", retrieval={"min_rerank_score": floor})
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start within 60 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    if not (CHROMIUM and DRIVER):
        pytest.skip("headless Chromium is not installed: run `make browser-deps` (Debian)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_ask_and_click_a_citation_to_its_highlighted_span(
    served: str, browser: webdriver.Chrome
) -> None:
    browser.get(served)
    browser.find_element(By.ID, "q").send_keys(QUESTION)
    browser.find_element(By.ID, "go").click()
    wait = WebDriverWait(browser, 30)
    wait.until(ec.visibility_of_element_located((By.ID, "result")))
    verdict = browser.find_element(By.ID, "verdict").text
    assert verdict in {"PASS", "WARN"}
    answer = browser.find_element(By.ID, "answer").text
    assert "[1]" in answer and "fabricated" in answer.lower()
    browser.find_element(By.ID, "cite-1").click()
    mark = wait.until(ec.visibility_of_element_located((By.ID, "highlight")))
    meta = browser.find_element(By.ID, "source-meta").text
    assert meta.startswith("[1] ") and "integrity-gate.md" in meta and "rev " in meta
    claim_text = browser.find_element(By.CSS_SELECTOR, "#claims li").text
    assert mark.text.strip() and mark.text.strip() in claim_text
    # The mark sits inside its section's text, not alone: the reader sees the context.
    source = browser.find_element(By.ID, "source").text
    assert len(source) > len(mark.text) and mark.text in source


@pytest.mark.parametrize("served", [0.99], indirect=True)  # nothing clears this: refusal
def test_an_unanswerable_question_shows_what_source_is_missing(
    served: str, browser: webdriver.Chrome
) -> None:
    browser.get(served)
    browser.find_element(By.ID, "q").send_keys("What is the boiling point of liquid nitrogen?")
    browser.find_element(By.ID, "go").click()
    wait = WebDriverWait(browser, 30)
    missing = wait.until(ec.visibility_of_element_located((By.ID, "missing")))
    assert "What would answer this" in missing.text
    assert browser.find_element(By.ID, "answer").text.startswith("I don't know")
    assert not browser.find_elements(By.CSS_SELECTOR, "#answer a.cite")
