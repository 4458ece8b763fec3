"""The web page in headless Chromium: ask, see the checked answer, click [1], see the span.

Opt-in tier (`pytest -m browser`, `make browser`). It needs Debian's `chromium` and
`chromium-driver`, which `make browser-deps` installs; the test itself installs nothing and
skips with that instruction when they are missing. The app is served by uvicorn on a free
loopback port with the offline engine over the sample corpus and no API keys (loopback only).
Each test keeps a screenshot under $CITEGATE_ARTEFACTS (default runs/screenshots/, ignored).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from citegate.commands.serve_cmd import build_ingestor
from server.core.paths import repo_root
from server.core.settings import load_settings
from server.service.app import create_app
from tests.engine import offline_engine

pytestmark = pytest.mark.browser
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
QUESTION = "What does the gate do with a fabricated citation?"
NARROW = (390, 844)  # an iPhone-sized window, CSS pixels
HOSTILE = b"""---
title: Widgets
source_url: https://example.com/widgets
---
# Widgets { #widgets }

The widget frobnicator emits `<script>window.__pwned=1</script>` and \
<img src=x onerror="window.__pwned=2"> when the frobnicator is enabled.

{* ../../docs_src/widgets/tutorial001.py hl[3] *}

::: widgets.Frobnicator
    options:
        members: true

- first item about the frobnicator
- second item
"""


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


def _shot(browser: webdriver.Chrome, name: str) -> None:
    folder = Path(os.environ.get("CITEGATE_ARTEFACTS") or repo_root() / "runs" / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(folder / f"{name}.png"))


def _ask(browser: webdriver.Chrome, question: str) -> WebDriverWait[webdriver.Chrome]:
    """Type `question`, submit, and wait until its answer (a new status line) is shown."""
    before = browser.find_element(By.ID, "status").text
    q = browser.find_element(By.ID, "q")
    q.clear()
    q.send_keys(question)
    browser.find_element(By.ID, "go").click()
    wait = WebDriverWait(browser, 30)
    wait.until(lambda b: b.find_element(By.ID, "status").text.startswith("trace "))
    wait.until(lambda b: b.find_element(By.ID, "status").text != before)
    wait.until(ec.visibility_of_element_located((By.ID, "result")))
    return wait


def _show(browser: webdriver.Chrome, answer: dict[str, Any]) -> None:
    """Render a hand-made /v1/ask body through the page's own `render`."""
    body = {
        "question": "q",
        "citations": [],
        "claims": [],
        "gate": {"verdict": "PASS", "claims": []},
        "repairs": [],
        "missing_evidence": None,
        "fallback": False,
        **answer,
    }
    browser.execute_script("render(arguments[0]);", body)


def _pwned(browser: webdriver.Chrome) -> object:
    return browser.execute_script("return window.__pwned;")


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
    # The section is rendered Markdown: a heading element, no `#` line, no `{ #anchor }`.
    assert browser.find_elements(By.CSS_SELECTOR, "#source h2, #source h1")
    assert "{ #" not in source and not source.lstrip().startswith("#")
    _shot(browser, "cited_span")


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
    badge = browser.find_element(By.ID, "verdict")
    assert badge.text == "I don't know" and "PASS" not in (badge.get_attribute("class") or "")
    _shot(browser, "i_dont_know")


def test_answer_markdown_is_rendered_and_raw_html_in_it_is_inert(
    served: str, browser: webdriver.Chrome
) -> None:
    browser.get(served)
    answer = (
        'Use `app.get` like this [1]:\n\n```python\n@app.get("/")\ndef root(): ...\n```\n\n'
        "- first **step**\n- second step\n\n1. one\n2. two\n\n"
        "See [the docs](https://fastapi.tiangolo.com/tutorial/) and [bad](javascript:alert(1)). "
        '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    )
    _show(browser, {"answer": answer})
    code = browser.find_element(By.CSS_SELECTOR, "#answer pre code").text
    assert code == '@app.get("/")\ndef root(): ...'
    assert browser.find_element(By.CSS_SELECTOR, "#answer p code").text == "app.get"
    items = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#answer ul li")]
    assert items == ["first step", "second step"]
    assert browser.find_element(By.CSS_SELECTOR, "#answer ul strong").text == "step"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#answer ol li")) == 2
    links = browser.find_elements(By.CSS_SELECTOR, "#answer a[href]")
    assert [a.get_attribute("href") for a in links] == ["https://fastapi.tiangolo.com/tutorial/"]
    assert browser.find_element(By.ID, "cite-1").text == "[1]"
    text = browser.find_element(By.ID, "answer").text
    assert "<script>window.__pwned=1</script>" in text and "onerror" in text and "```" not in text
    assert not browser.find_elements(By.CSS_SELECTOR, "#answer script, #answer img")
    assert _pwned(browser) is None
    _shot(browser, "answer_markdown")


def test_hostile_source_is_inert_cleaned_and_linked(served: str, browser: webdriver.Chrome) -> None:
    files = {"files": ("widgets.md", HOSTILE, "text/markdown")}
    assert httpx.post(served + "v1/ingest", files=files, timeout=60).status_code == 200
    browser.get(served)
    wait = _ask(browser, "What does the widget frobnicator emit when enabled?")
    assert "onerror" in browser.find_element(By.ID, "answer").text
    browser.find_element(By.ID, "cite-1").click()
    wait.until(ec.visibility_of_element_located((By.ID, "highlight")))
    source = browser.find_element(By.ID, "source")
    assert "<script>window.__pwned=1</script>" in source.text and "onerror" in source.text
    assert not browser.find_elements(By.CSS_SELECTOR, "#source script, #source img")
    assert _pwned(browser) is None
    # Doc-generator noise is gone; the include is a small code reference.
    for noise in ("{ #", "{*", "hl[3]", ":::", "options:"):
        assert noise not in source.text, noise
    ref = browser.find_element(By.CSS_SELECTOR, "#source .code-ref").text
    assert ref == "code: ../../docs_src/widgets/tutorial001.py"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#source ul li")) == 2
    link = browser.find_element(By.CSS_SELECTOR, "#source-meta a")
    assert link.get_attribute("href") == "https://example.com/widgets"
    _shot(browser, "hostile_source")


def test_a_new_question_clears_the_source_panel(served: str, browser: webdriver.Chrome) -> None:
    browser.get(served)
    wait = _ask(browser, QUESTION)
    browser.find_element(By.ID, "cite-1").click()
    wait.until(ec.visibility_of_element_located((By.ID, "highlight")))
    meta = browser.find_element(By.ID, "source-meta")
    assert meta.text.startswith("[1] ")
    _ask(browser, "How are documents ingested and chunked?")
    assert browser.find_element(By.ID, "source").text == ""
    assert not browser.find_elements(By.CSS_SELECTOR, "#source mark")
    assert browser.find_element(By.ID, "source-meta").text.startswith("Click a [n] marker")
    _shot(browser, "source_cleared")


def test_fallback_never_wears_a_pass_badge(served: str, browser: webdriver.Chrome) -> None:
    browser.get(served)
    _show(browser, {"answer": "I don't know.", "fallback": True})
    badge = browser.find_element(By.ID, "verdict")
    assert badge.text == "I don't know" and badge.get_attribute("class") == "verdict IDK"
    green = browser.execute_script("return getComputedStyle(arguments[0]).backgroundColor;", badge)
    assert green != "rgb(215, 245, 221)"  # .PASS's #d7f5dd
    _show(browser, {"answer": "It blocks it [1].", "gate": {"verdict": "WARN", "claims": []}})
    assert browser.find_element(By.ID, "verdict").text == "WARN"
    _shot(browser, "fallback_badge")


def test_usable_at_390_px_without_horizontal_scroll(served: str, browser: webdriver.Chrome) -> None:
    browser.set_window_size(*NARROW)
    browser.get(served)
    wait = _ask(browser, QUESTION)
    browser.find_element(By.ID, "cite-1").click()
    wait.until(ec.visibility_of_element_located((By.ID, "highlight")))
    long = "x" * 300
    script = "document.getElementById('answer').insertAdjacentHTML('beforeend', arguments[0]);"
    browser.execute_script(script, f"<pre><code>{long}</code></pre><p>https://e.org/{long}</p>")
    width = browser.execute_script("return [document.documentElement.scrollWidth, innerWidth];")
    assert width[0] <= NARROW[0] and width[0] <= width[1], width
    for element_id in ("q", "key", "go", "answer", "verdict"):
        element = browser.find_element(By.ID, element_id)
        assert element.is_displayed(), element_id
        right = browser.execute_script(
            "return arguments[0].getBoundingClientRect().right;", element
        )
        assert right <= width[1], (element_id, right)
    browser.execute_script("window.scrollTo(0, 0);")
    _shot(browser, "narrow_390")
