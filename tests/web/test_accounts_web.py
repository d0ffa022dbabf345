"""Accounts in a real browser: sign up, sign in, sign out, the
account page's password change and token rotation."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.web.conftest import sign_up, unique_name


def test_sign_up_sign_out_sign_in(page, live):
    name = unique_name("Ana")
    sign_up(page, name)
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["hm_session"]["httpOnly"] and cookies["hm_session"]["sameSite"] == "Lax"
    page.get_by_role("button", name="Sign out").click()
    page.locator("#who").get_by_role("link", name="Sign in").wait_for()
    assert "hm_session" not in {c["name"] for c in page.context.cookies()}
    page.locator("#who").get_by_role("link", name="Sign in").click()
    page.get_by_label("Name").fill(name.upper())  # names match whatever their case
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name=f"Account: {name}").wait_for()
    # The name in the header is the person's public profile.
    page.get_by_role("link", name=f"Profile: {name}").click()
    page.wait_for_url("**/players/*")
    page.get_by_role("heading", name=name).first.wait_for()


def test_account_page_changes_password_and_rotates_token(page, live):
    name = unique_name("Ben")
    sign_up(page, name)
    page.get_by_role("link", name=f"Account: {name}").click()
    page.get_by_role("heading", name="Account", exact=True).wait_for()
    # Changing it asks for the current one (a wrong one is 403 wrong_password:
    # tests/service/test_accounts.py; here the guard counts a 403 as a console error).
    page.get_by_label("Current password").fill("correct horse battery")
    page.get_by_label("New password").fill("another long secret")
    page.get_by_role("button", name="Save password").click()
    page.get_by_text("Password saved").wait_for()
    # The new password signs in; the old one no longer does.
    with httpx.Client(base_url=live.base_url) as http:
        assert http.post("/api/v1/session", json={"name": name, "password": "another long secret"}).status_code == 200
        assert http.post("/api/v1/session", json={"name": name, "password": "correct horse battery"}).status_code == 401
    page.get_by_role("button", name="New API token").click()
    expect(page.get_by_label("Your new token")).not_to_have_value("")  # the answer came (no eval: the CSP forbids it)
    token = page.get_by_label("Your new token").input_value()
    assert token.startswith("hm_")
    me = httpx.get(live.base_url + "/api/v1/session", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["name"] == name
    page.get_by_role("button", name="New API token").click()
    expect(page.get_by_label("Your new token")).not_to_have_value(token)  # (no eval: the CSP forbids it)
    assert httpx.get(live.base_url + "/api/v1/session", headers={"Authorization": f"Bearer {token}"}).status_code == 401


def test_a_short_password_at_sign_up_says_the_rule(page, live):
    page.goto("/signup")
    page.get_by_label("Name").fill(unique_name("Short"))
    page.get_by_label("Password").fill("short")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("alert")).to_have_text("A password is 8 characters or more.")
    assert page.url.endswith("/signup")
