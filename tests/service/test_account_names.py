"""Names of people and agents: one spelling rule (NFKC + casefold) and no
look-alikes (the TR39 skeleton), against a real server and on a database
migrated from before migration 011."""

from __future__ import annotations

import uuid

import asyncpg
import httpx

from services.app.names import name_key, name_skeleton
from services.app.players import fill_name_columns
from services.infra.db import migrate, migration_files
from services.infra.pg_accounts import PgAccounts
from tests.conftest import _with_database


def _suffix() -> str:
    return uuid.uuid4().hex[:6]


def _register(server, name: str, password: str | None = None) -> httpx.Response:
    body: dict = {"name": name}
    if password:
        body["password"] = password
    return httpx.post(server.base_url + "/api/v1/players", json=body, timeout=30)


def test_look_alike_names_are_refused_with_a_stable_code(server):
    tail = _suffix()
    assert _register(server, f"alice{tail}").status_code == 201
    cyrillic = f"\u0430lice{tail}"  # Cyrillic a
    marks = f"ali\u0301ce{tail}"  # a combining acute accent over the i
    one_for_l = f"a1ice{tail}"
    for name in (cyrillic, marks, one_for_l):
        r = _register(server, name)
        assert r.status_code == 409, (name, r.text)
        assert r.json()["code"] == "name_confusable", r.text
        assert f"alice{tail}" in r.json()["message"], r.text
    # Fullwidth letters are the same name spelled otherwise (NFKC).
    r = _register(server, "".join(chr(ord(c) + 0xFEE0) for c in "alice") + tail)
    assert r.status_code == 409 and r.json()["code"] == "name_taken", r.text
    # Agents share the name space, and the rule.
    owner = _register(server, f"owner{_suffix()}").json()
    r = httpx.post(
        server.base_url + "/api/v1/agents",
        json={"name": cyrillic, "games": ["kabuki-tricks"], "mode": "pull"},
        headers={"Authorization": f"Bearer {owner['token']}"},
        timeout=30,
    )
    assert r.status_code == 409 and r.json()["code"] == "name_confusable", r.text
    # A name that only shares letters is fine.
    assert _register(server, f"alicia{tail}").status_code == 201


def test_sign_in_finds_the_account_by_the_one_key(server):
    tail = _suffix()
    name = f"strasse{tail}"
    assert _register(server, name, "correct horse").status_code == 201
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        for spelling in (
            f"STRASSE{tail}",
            f"stra\u00dfe{tail}",
            "".join(chr(ord(ch) + 0xFEE0) for ch in "strasse") + tail,
        ):
            r = c.post("/api/v1/session", json={"name": spelling, "password": "correct horse"})
            assert r.status_code == 200 and r.json()["name"] == name, (spelling, r.text)


def test_a_spelling_only_the_database_locale_folds_is_another_name(server):
    # PostgreSQL's lower() maps "İ" to "i" in this database's locale: sign-in
    # found "ivo" by "İvo" while the limit counted "i̇vo", a counter of its own.
    name = f"ivo{_suffix()}"
    assert _register(server, name, "correct horse").status_code == 201
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        r = c.post("/api/v1/session", json={"name": "\u0130" + name[1:], "password": "correct horse"})
        assert r.status_code == 401, r.text


def test_the_key_is_pythons_not_the_database_locales():
    assert name_key("\u0130stanbul") != name_key("istanbul")  # PostgreSQL's lower() may fold both to "istanbul"
    assert name_key("  Stra\u00dfe ") == name_key("STRASSE")
    assert name_skeleton("\u0130stanbul") == name_skeleton("Istanbul")
    assert name_skeleton("paypal") == name_skeleton("p\u0430yp\u0430l")


async def test_rows_from_before_migration_011_are_filled_and_still_sign_in(servers):
    admin_url, _ = servers
    database = f"hanamichi_names_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'CREATE DATABASE "{database}"')
    try:
        conn = await asyncpg.connect(_with_database(admin_url, database))
        try:
            await conn.execute(
                "CREATE TABLE schema_migrations (version int PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            for version, file, sql in migration_files():
                if version < 11:
                    await conn.execute(sql)
                    await conn.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, file)
            old = uuid.uuid4()
            await conn.execute(
                "INSERT INTO players (player_id, name, token_hash) VALUES ($1, $2, $3)", old, "\u0410nna", b"t"
            )
            assert "011_name_keys.sql" in await migrate(conn)
        finally:
            await conn.close()
        pool = await asyncpg.create_pool(_with_database(admin_url, database), min_size=1, max_size=2)
        try:
            assert await fill_name_columns(PgAccounts(pool)) == 1
            row = await pool.fetchrow("SELECT name_key, name_skeleton FROM players WHERE player_id = $1", old)
            assert (row["name_key"], row["name_skeleton"]) == (name_key("\u0410nna"), name_skeleton("Anna"))
            assert await fill_name_columns(PgAccounts(pool)) == 0
        finally:
            await pool.close()
    finally:
        await admin.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        await admin.close()
