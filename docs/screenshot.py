"""Take the viewer's screenshot shown in the docs: `brain ui` on a copy of vault-example, its causal
graph in headless Chromium (Debian's `chromium`, driven by Playwright).

    python docs/screenshot.py [--page /graph] [--out docs/images/viewer.png]
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
BRAIN = Path(sys.executable).parent / "brain"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", default="/graph")
    parser.add_argument("--out", type=Path, default=DOCS / "images" / "viewer.png")
    parser.add_argument("--width", type=int, default=1480)
    parser.add_argument("--height", type=int, default=880)
    options = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no Chromium here (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        vault = Path(folder) / "vault-example"
        shutil.copytree(REPO / "vault-example", vault, ignore=shutil.ignore_patterns("index"))
        subprocess.run([str(BRAIN), "index", "--vault", str(vault)], check=True, capture_output=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([str(BRAIN), "ui", "--vault", str(vault), "--port", str(port)])
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/static/favicon.svg", timeout=1)
                    break
                except OSError:
                    time.sleep(0.2)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium)
                page = browser.new_page(viewport={"width": options.width, "height": options.height})
                page.goto(base + options.page)
                options.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(options.out))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
