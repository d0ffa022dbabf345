"""The account page's "Download my data" and "Delete my account" in a real
browser (docs/privacy.md): the download is the JSON file of the account,
and deleting asks for the password and a confirmation, then the account
is gone (its token no longer works)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.web.conftest import sign_up, unique_name

PASSWORD = "correct horse battery"


def test_download_my_data_then_delete_my_account(page, live):
    name = unique_name("Dora")
    sign_up(page, name, PASSWORD)
    page.get_by_role("link", name=f"Account: {name}").click()
    page.get_by_role("heading", name="Account", exact=True).wait_for()

    with page.expect_download() as download:
        page.get_by_role("link", name="Download my data").click()
    data = json.loads(Path(download.value.path()).read_text())
    assert data["account"]["name"] == name
    player_id = data["account"]["player_id"]

    page.get_by_role("button", name="New API token").click()
    page.get_by_label("Your new token").wait_for()
    token = page.get_by_label("Your new token").input_value()

    # Cancelling the confirmation keeps the account.
    page.get_by_label("Your password, to confirm").fill(PASSWORD)
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Delete my account").click()
    with httpx.Client(base_url=live.base_url) as http:
        assert http.get("/api/v1/session", headers={"Authorization": f"Bearer {token}"}).status_code == 200

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete my account").click()
    page.get_by_text("Your account is deleted.").wait_for()
    with httpx.Client(base_url=live.base_url) as http:
        assert http.get("/api/v1/session", headers={"Authorization": f"Bearer {token}"}).status_code == 401
        assert http.post("/api/v1/session", json={"name": name, "password": PASSWORD}).status_code == 401
        history = http.get(f"/api/v1/players/{player_id}/games").json()
        assert name not in json.dumps(history)
