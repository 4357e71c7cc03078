"""What stands before every page: Host and Origin checked, reads only, the token, the headers that
keep a page to what the viewer serves, and `brain ui`'s refusals in one line."""

from __future__ import annotations

from pathlib import Path

from brain.ui.guard import cookie_name, cookie_value
from tests.conftest import free_port, run_brain
from tests.ui.conftest import viewer_client


def test_a_foreign_host_or_origin_is_refused(example_vault: Path) -> None:
    with viewer_client(example_vault) as client:
        assert client.get("/").status_code == 200
        assert client.get("/", headers={"host": "localhost:8777"}).status_code == 200
        rebound = client.get("/", headers={"host": "evil.example:8777"})
        assert (rebound.status_code, rebound.text) == (421, "Invalid Host header")
        other_port = client.get("/", headers={"host": "127.0.0.1:9999"})
        assert other_port.status_code == 421
        cross = client.get("/.json", headers={"origin": "http://evil.example"})
        assert (cross.status_code, cross.text) == (403, "Invalid Origin header")
        assert client.get("/.json", headers={"origin": "http://127.0.0.1:8777"}).status_code == 200


def test_the_viewer_only_reads(example_vault: Path) -> None:
    with viewer_client(example_vault) as client:
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            answer = client.request(method, "/episodes")
            assert answer.status_code == 405, method
            assert answer.headers["allow"] == "GET, HEAD"


def test_every_answer_keeps_the_page_to_what_the_viewer_serves(example_vault: Path) -> None:
    with viewer_client(example_vault) as client:
        for url in ("/", "/.json", "/static/style.css", "/nowhere"):
            headers = client.get(url).headers
            policy = headers["content-security-policy"]
            assert "default-src 'none'" in policy and "script-src 'self'" in policy and "img-src 'self'" in policy
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["referrer-policy"] == "no-referrer"


def test_with_a_token_nothing_is_shown_without_it(example_vault: Path) -> None:
    with viewer_client(example_vault, token="s3cret") as client:
        refused = client.get("/episodes.json")
        assert refused.status_code == 401 and "needs its token" in refused.text
        assert client.get("/episodes.json?token=wrong").status_code == 401
        assert client.get("/episodes.json", headers={"authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/episodes.json", headers={"authorization": "Bearer s3cret"}).status_code == 200
        assert client.get("/static/style.css").status_code == 401


def test_the_token_in_the_address_becomes_a_cookie_and_leaves_the_address(example_vault: Path) -> None:
    with viewer_client(example_vault, token="s3cret") as client:
        answer = client.get("/episodes?outcome=failure&token=s3cret", follow_redirects=False)
        assert answer.status_code == 303
        assert answer.headers["location"] == "/episodes?outcome=failure"
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith(f"{cookie_name(8777)}={cookie_value('s3cret')};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "s3cret" not in cookie
        assert client.get("/episodes?outcome=failure").status_code == 200  # the client keeps the cookie


def test_brain_ui_refuses_what_would_expose_the_vault(example_vault: Path) -> None:
    vault = str(example_vault)
    elsewhere = run_brain("ui", "--vault", vault, "--host", "0.0.0.0", env={"BRAIN_UI_TOKEN": None})
    assert elsewhere.exit_code == 2
    assert "--host 0.0.0.0 is reachable from other machines: set BRAIN_UI_TOKEN" in elsewhere.output
    empty = run_brain("ui", "--vault", vault, env={"BRAIN_UI_TOKEN": " "})
    assert empty.exit_code == 2 and "BRAIN_UI_TOKEN is set but empty" in empty.output


def test_a_port_in_use_is_one_line(example_vault: Path) -> None:
    import socket

    port = free_port()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        done = run_brain("ui", "--vault", str(example_vault), "--port", str(port), env={"BRAIN_UI_TOKEN": None})
    assert done.exit_code == 2
    assert f"cannot serve on 127.0.0.1:{port}" in done.output and "Traceback" not in done.output
