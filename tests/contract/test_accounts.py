"""One contract for the accounts' store (the `AccountStore` port): the
memory store and PostgreSQL's, driven through the use cases that own the
rules (services/app/players.py's one insert of a name, sign-in sessions,
passwords, tokens, the scrub of a deleted account), answer the same.

The PostgreSQL variant shares the session database: every name here is
drawn (uuid), so no test meets another's rows."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from services.app import upcast
from services.app.errors import Conflict
from services.app.names import name_key, name_skeleton
from services.app.players import Players, token_hash
from services.app.ports import PlayerRecord, ScrubbedPlayer
from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_tx import MemoryTransactions
from services.infra.pg import PgTransactions
from services.infra.pg_accounts import PgAccounts


def _name() -> str:
    return f"acct{uuid.uuid4().hex[:12]}"


class AccountStoreContract:
    """A subclass provides `store` and `transactions` fixtures."""

    @pytest.fixture
    def players(self, store: Any, transactions: Any) -> Players:
        return Players(store, transactions)

    async def test_a_registered_player_is_found_by_its_token_and_its_name(self, players: Players, store: Any) -> None:
        name = _name()
        player, token = await players.register(name, password_hash="hash-1")
        assert await store.player_by_token(token_hash(token)) == PlayerRecord(player.player_id, name, "human")
        found = await store.credentials_by_name(name_key(name.upper()), name.upper())
        assert found is not None and (found.player_id, found.password_hash) == (player.player_id, "hash-1")
        assert await store.player_by_token(token_hash("hm_nobody")) is None
        assert await store.credentials_by_name(name_key(_name()), _name()) is None

    async def test_a_name_taken_ignoring_case_or_one_that_looks_like_it_is_refused(self, players: Players) -> None:
        name = _name()
        await players.register(name)
        with pytest.raises(Conflict) as same:
            await players.register(name.upper())
        assert same.value.code == "name_taken"
        # The Cyrillic "а" looks like the Latin "a": the same skeleton.
        with pytest.raises(Conflict) as looks_like:
            await players.register("\u0430" + name[1:])
        assert looks_like.value.code == "name_confusable"

    async def test_passwords_and_tokens_change_what_finds_the_player(self, players: Players, store: Any) -> None:
        player, token = await players.register(_name())
        assert not await store.has_password(player.player_id)
        assert await store.password_hash(player.player_id) is None
        await store.set_password(player.player_id, "hash-2")
        assert await store.has_password(player.player_id)
        assert await store.password_hash(player.player_id) == "hash-2"
        await store.set_token(player.player_id, token_hash("hm_new"))
        assert await store.player_by_token(token_hash(token)) is None
        assert (await store.player_by_token(token_hash("hm_new"))).player_id == player.player_id

    async def test_sessions_open_end_and_expire(self, players: Players, store: Any, transactions: Any) -> None:
        player, _ = await players.register(_name())
        later = datetime.now(UTC) + timedelta(hours=1)
        for digest in (b"s1", b"s2", b"s3"):
            await store.open_session(digest + player.player_id.encode(), player.player_id, later)
        mine = [d + player.player_id.encode() for d in (b"s1", b"s2", b"s3")]
        await store.open_session(
            b"old" + player.player_id.encode(), player.player_id, datetime.now(UTC) - timedelta(seconds=1)
        )
        assert (await store.player_by_session(mine[0])).player_id == player.player_id
        assert await store.player_by_session(b"old" + player.player_id.encode()) is None  # expired
        assert len(await store.sessions_of(player.player_id)) == 4
        assert await store.end_session(mine[0]) == player.player_id
        assert await store.end_session(mine[0]) is None  # ended already
        async with transactions.transaction() as tx:
            await store.end_other_sessions(player.player_id, mine[1], tx)
        assert await store.player_by_session(mine[1]) is not None
        assert await store.player_by_session(mine[2]) is None
        await store.end_sessions([player.player_id])
        assert await store.sessions_of(player.player_id) == []

    async def test_the_first_shared_secret_kept_is_everyones(self, store: Any) -> None:
        name = f"contract-{uuid.uuid4().hex[:8]}"
        assert await store.shared_secret(name, b"first") == b"first"
        assert await store.shared_secret(name, b"second") == b"first"

    async def test_a_scrubbed_player_keeps_no_name_password_or_token(self, players: Players, store: Any) -> None:
        name = _name()
        player, token = await players.register(name, password_hash="hash-3")
        pseudonym = f"deleted player {uuid.uuid4().hex[:8]}"
        scrubbed = ScrubbedPlayer(player.player_id, pseudonym, name_key(pseudonym), name_skeleton(pseudonym), b"x" * 32)
        await store.scrub_player(scrubbed)
        assert await store.player_by_token(token_hash(token)) is None
        assert await store.credentials_by_name(name_key(name), name) is None
        assert await store.password_hash(player.player_id) is None
        account = await store.account(player.player_id)
        assert account is not None and not account.has_password
        await players.register(name)  # the name is free again

    async def test_reads_name_players_as_their_rows_do_now(self, players: Players, store: Any) -> None:
        """The `PlayerNames` port, through services/app/upcast.py's join."""
        (alice, _), (bob, _) = await players.register(_name()), await players.register(_name())
        nobody = str(uuid.uuid4())
        pseudonym = upcast.pseudonym(alice.player_id)
        scrubbed = ScrubbedPlayer(alice.player_id, pseudonym, name_key(pseudonym), name_skeleton(pseudonym), b"y" * 32)
        await store.scrub_player(scrubbed)
        assert await upcast.current_names(store, [alice.player_id, bob.player_id, nobody, bob.player_id]) == {
            alice.player_id: pseudonym,
            bob.player_id: bob.name,
        }
        assert await upcast.current_names(store, []) == {}
        old = {"entrants": [{"id": alice.player_id, "name": "her name then"}, {"id": nobody, "name": "kept"}]}
        assert await upcast.with_current_names(store, old) == {
            "entrants": [{"id": alice.player_id, "name": pseudonym}, {"id": nobody, "name": "kept"}]
        }


class TestMemoryAccounts(AccountStoreContract):
    @pytest.fixture
    def store(self) -> MemoryAccounts:
        return MemoryAccounts()

    @pytest.fixture
    def transactions(self) -> MemoryTransactions:
        return MemoryTransactions()


class TestPostgresAccounts(AccountStoreContract):
    @pytest.fixture
    def store(self, pool: asyncpg.Pool) -> PgAccounts:
        return PgAccounts(pool)

    @pytest.fixture
    def transactions(self, pool: asyncpg.Pool) -> PgTransactions:
        return PgTransactions(pool)
