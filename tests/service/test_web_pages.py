"""The web app's pages and assets over HTTP: served by the API
process, HTML shells with a CSP that allows only this site, assets from the
package, "How to play" with the rulings."""

from __future__ import annotations

import re

import httpx
import pytest


@pytest.mark.parametrize(
    "path, heading",
    [
        ("/", "Lobby"),
        ("/signup", "Sign up"),
        ("/signin", "Sign in"),
        ("/account", "Account"),
        ("/how-to-play/kabuki-masks", "How to play Kabuki, the mask memory game"),
    ],
)
def test_pages_are_html_shells_that_load_only_our_files(server, path, heading):
    r = httpx.get(server.base_url + path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert f"<h1>{heading}</h1>" in r.text
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    # Every script and stylesheet is ours, from /assets/.
    for src in re.findall(r'(?:src|href)="([^"]+)"', r.text):
        assert src.startswith(("/", "#")) and not src.startswith("//"), src
    for src in re.findall(r'<script[^>]*src="([^"]+)"', r.text):
        asset = httpx.get(server.base_url + src)
        assert asset.status_code == 200 and "javascript" in asset.headers["content-type"], src


def test_how_to_play_lists_the_rulings(server):
    for game, rulings in {
        "kabuki-tricks": ("KT-5", "KT-13"),
        "cahoots": ("CH-5",),
        "tezuma-trick": ("TT-10",),
        "kabuki-masks": ("KM-2", "KM-5a"),
    }.items():
        r = httpx.get(f"{server.base_url}/how-to-play/{game}")
        assert r.status_code == 200
        assert all(f"<strong>{ruling}</strong>" in r.text for ruling in rulings), game
    missing = httpx.get(server.base_url + "/how-to-play/chess")
    assert missing.status_code == 404 and "/how-to-play/cahoots" in missing.text


def test_the_table_page_names_its_game(server):
    r = httpx.get(server.base_url + "/games/some-id")
    assert r.status_code == 200 and 'data-game-id="some-id"' in r.text
    assert "/assets/table.js" in r.text and "/assets/api.js" not in r.text  # modules import api.js themselves
    hostile = httpx.get(server.base_url + '/games/"><script>x</script>')
    assert "<script>x</script>" not in hostile.text


def test_shared_assets_ship_in_the_package(server):
    for name in ("app.css", "api.js", "nav.js", "lobby.js", "forms.js", "account.js", "icon.svg"):
        assert httpx.get(f"{server.base_url}/assets/{name}").status_code == 200, name
