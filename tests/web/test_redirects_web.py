"""What a browser does with a hostile `next=` and with the Swagger page's
policy: Chromium, not a parser of ours, says where a target leads. The
guard fails a test on any request to another host and on any console error
(a script the policy refuses is one)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.conftest import sign_up, unique_name

HOSTILE = ["/%09/evil.example/x", "/%5Cevil.example/x", "//evil.example/x", "/%0d%0a/evil.example"]


@pytest.mark.parametrize("target", HOSTILE)
def test_the_language_switch_lands_on_this_site(page, live, target):
    page.goto(f"/lang/en?next={target}")
    assert page.url == live.base_url + "/", page.url


def test_signing_in_goes_back_only_to_a_path_on_this_site(page, live):
    name = unique_name("Next")
    sign_up(page, name)
    page.get_by_role("button", name="Sign out").click()
    page.locator("#who").get_by_role("link", name="Sign in").wait_for()
    for target in ("/%5Cevil.example/x", "/%09/evil.example/x"):
        page.goto(f"/signin?next={target}")
        page.get_by_label("Name").fill(name)
        page.get_by_label("Password").fill("correct horse battery")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("link", name=f"Account: {name}").wait_for()
        assert page.url == live.base_url + "/", (target, page.url)
        page.get_by_role("button", name="Sign out").click()
        page.locator("#who").get_by_role("link", name="Sign in").wait_for()
    page.goto("/signin?next=/how-to-play/cahoots")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r".*/how-to-play/cahoots$"))


def test_the_swagger_page_runs_under_its_policy(page, live):
    page.goto("/schema")
    # Swagger UI builds the page from the inline script's document: the
    # operations are there only if the policy let that script run.
    expect(page.get_by_text("/api/v1/games", exact=True).first).to_be_visible()
