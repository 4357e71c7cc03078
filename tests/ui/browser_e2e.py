"""The viewer in a real browser: Debian's Chromium, headless, driven by Playwright, against `brain ui`
run as a user runs it (a subprocess on 127.0.0.1), on vault-example and on a vault filled from real
transcripts by the real hooks (tests/ui/conftest.py).

Every page reachable by links loads without a console error and fetches nothing from anywhere but
the viewer; every link between pages leads to a page; the failure -> fix and the causal graph show
what the vault holds; search finds a note; the token holds.

Run by `.ci/run` when Chromium is present (`python -m pytest tests/ui/browser_e2e.py`), never by
the default pytest run; without Chromium (or Playwright) every test here is skipped, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import free_port
from tests.ui.conftest import SIGNATURE

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on this machine (Debian: apt-get install chromium); the browser tests need it"
)
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install '.[test]')")
BRAIN = Path(sys.executable).parent / "brain"
MOST_PAGES = 120  # a crawl visits at most this many addresses
# every link's address (an SVG link's `href` is no string: its attribute, resolved against the page)
HREFS = "links => links.map(a => new URL(a.getAttribute('href'), document.baseURI).href)"


@contextmanager
def served(root: Path, token: str | None = None) -> Iterator[str]:
    """`brain ui` on a free port of 127.0.0.1 until the block ends; yields its address."""
    port = free_port()
    env = (
        {**os.environ, "BRAIN_UI_TOKEN": token}
        if token
        else {k: v for k, v in os.environ.items() if k != "BRAIN_UI_TOKEN"}
    )
    process = subprocess.Popen(
        [str(BRAIN), "ui", "--vault", str(root), "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/static/favicon.svg", timeout=2)
                break
            except urllib.error.HTTPError:
                break  # it answers (401 with a token)
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    output = process.stdout.read().decode(errors="replace") if process.stdout else ""
                    pytest.fail(f"brain ui did not start: {output[-2000:]}")
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def example(example_vault: Path) -> Iterator[str]:
    """`brain ui` on vault-example, for the module."""
    with served(example_vault) as base:
        yield base


@pytest.fixture(scope="module")
def lived(lived_vault: Path) -> Iterator[str]:
    with served(lived_vault) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


class Watched:
    """A page that records its console errors, its uncaught exceptions and every request it makes."""

    def __init__(self, browser: object, base: str) -> None:
        self.context = browser.new_context()  # type: ignore[attr-defined]
        self.page = self.context.new_page()
        self.base = base
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on(
            "response", lambda answer: answer.status >= 400 and self.errors.append(f"{answer.status} {answer.url}")
        )

    def open(self, address: str) -> int:
        answer = self.page.goto(self.base + address if address.startswith("/") else address)
        assert answer is not None
        return answer.status

    def foreign(self) -> list[str]:
        """The requests made to anywhere but the viewer."""
        own = urlsplit(self.base).netloc
        return [url for url in self.requests if urlsplit(url).netloc != own]


def crawl(watched: Watched, start: str = "/") -> dict[str, int]:
    """Every address of the viewer reachable by links from `start` (at most MOST_PAGES), with its status."""
    seen: dict[str, int] = {}
    queue = [start]
    own = urlsplit(watched.base).netloc
    while queue and len(seen) < MOST_PAGES:
        address = queue.pop(0)
        if address in seen:
            continue
        seen[address] = watched.open(address)
        for href in watched.page.eval_on_selector_all("a[href]", HREFS):
            parts = urlsplit(href)
            if parts.netloc != own or parts.scheme != "http":
                continue
            found = parts.path + (f"?{parts.query}" if parts.query else "")
            if found not in seen and found not in queue:
                queue.append(found)
    return seen


def test_every_page_of_the_example_loads_clean_and_fetches_nothing_from_elsewhere(example, browser) -> None:
    watched = Watched(browser, example)
    visited = crawl(watched)
    broken = {address: status for address, status in visited.items() if status != 200}
    assert broken == {}
    kinds = {address.split("?")[0].split("/")[1] for address in visited}
    assert {"", "episodes", "failures", "patterns", "graph", "path", "why", "facts", "runs", "tips", "handed"} <= kinds
    assert {"search", "notes"} <= kinds
    assert len(visited) == MOST_PAGES  # the crawl stopped at its bound: more pages are linked
    assert watched.errors == []
    assert watched.foreign() == []


def test_every_page_of_the_lived_vault_loads_clean(lived, browser) -> None:
    watched = Watched(browser, lived)
    visited = crawl(watched)
    assert {address: status for address, status in visited.items() if status != 200} == {}
    assert "/failures" in visited and "/handed" in visited
    assert watched.errors == [] and watched.foreign() == []


def test_a_failure_leads_to_what_fixed_it(lived, browser) -> None:
    watched = Watched(browser, lived)
    watched.open("/failures?seen=2")
    section = watched.page.locator("section.failure").first
    assert section.locator("h2 code").inner_text() == SIGNATURE.split("|", 2)[2]
    assert "Handed to an agent 1 time: then 1 not recovered" in section.inner_text()
    assert (
        section.locator("p.fix a").inner_text() == "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0"
    )  # where it was fixed
    section.locator("table a", has_text="EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0").click()
    watched.page.wait_for_url("**/episodes/EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0#e001")
    error = watched.page.locator("li#e001")
    assert "fatal: Unable to create '.git/index.lock': File exists." in error.inner_text()
    assert (
        error.locator(".failure-fix")
        .inner_text()
        .startswith("what fixed it: `git checkout main && git pull` succeeded")
    )
    error.get_by_role("link", name="e003").click()
    watched.page.wait_for_url("**#e003")
    assert "`git checkout main && git pull` succeeded" in watched.page.locator("li#e003").inner_text()
    assert watched.errors == []


def test_the_causal_graph_is_drawn_and_navigable(example, browser) -> None:
    watched = Watched(browser, example)
    watched.open("/graph")
    assert watched.page.locator("svg.graph a.node").count() == 29
    assert watched.page.locator("svg.graph path.edge").count() == 35
    assert watched.page.locator("svg.graph path.edge.correlates").count() >= 1
    watched.page.locator("svg.graph a.node", has_text="PATTERN-safe-client-retries").click()
    watched.page.wait_for_url("**/graph?focus=patterns%2FPATTERN-safe-client-retries.md")
    drawn = watched.page.eval_on_selector_all("svg.graph a.node > title", "titles => titles.map(t => t.textContent)")
    with urllib.request.urlopen(example + "/graph.json?focus=patterns%2FPATTERN-safe-client-retries.md") as answer:
        twin = json.load(answer)
    assert drawn == [node["title"] for node in twin["nodes"]]  # the page shows what its JSON twin holds
    assert len(drawn) == 8 and "PATTERN-idempotency-keys-on-writes" in drawn  # within two links
    assert watched.page.locator("svg.graph a.node.focus > title").text_content() == "PATTERN-safe-client-retries"
    watched.open("/path?from=PATTERN-idempotency-keys-on-writes&to=PATTERN-canary-with-auto-rollback")
    assert watched.page.locator("ol.hops li").count() == 5
    assert "4 hops, reliability 0.03" in watched.page.inner_text("main")
    assert watched.errors == []


def test_search_finds_a_note(example, browser) -> None:
    watched = Watched(browser, example)
    watched.open("/")
    box = watched.page.get_by_role("searchbox", name="Search the vault")
    box.fill("idempotency key retention")
    box.press("Enter")
    watched.page.wait_for_url("**/search?q=idempotency+key+retention")
    watched.page.locator("ol.hits a", has_text="FACT-idempotency-key-retention").click()
    watched.page.wait_for_url("**/notes/facts/FACT-idempotency-key-retention.md")
    assert watched.page.locator("h1").inner_text().startswith("FACT-idempotency-key-retention")
    assert watched.errors == [] and watched.foreign() == []


def test_the_token_holds_in_the_browser(example_vault, browser) -> None:
    with served(example_vault, token="s3cret-token") as base:
        stranger = Watched(browser, base)
        assert stranger.open("/") == 401
        assert stranger.open("/episodes.json") == 401
        owner = Watched(browser, base)
        assert owner.open("/?token=s3cret-token") == 200
        assert owner.page.url == base + "/"  # the token left the address
        assert owner.open("/episodes") == 200 and owner.open("/graph") == 200
        assert stranger.open("/episodes") == 401  # another browser has no cookie
