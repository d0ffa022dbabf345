"""A person's own account as a whole: delete it (leave and be forgotten,
services/app/deletion.py) or download everything it holds
(services/app/personal_data.py). docs/privacy.md."""

from __future__ import annotations

import msgspec
from litestar import Request, Response, delete, get
from litestar.datastructures import State

from services.app.deletion import AccountDeletion
from services.app.personal_data import personal_data
from services.app.players import Player
from services.http.httpserver import client_address
from services.http.routes.accounts import _cookies


class ConfirmDeletion(msgspec.Struct, forbid_unknown_fields=True):
    password: str


def _deletion(state: State) -> AccountDeletion:
    runtime = state.runtime
    return AccountDeletion(
        state.accounts, runtime.players, runtime.agents, runtime.games, runtime.tournaments, runtime.quick_play
    )


@delete("/api/v1/players/me", status_code=204)
async def delete_account(request: Request, state: State, data: ConfirmDeletion, caller: Player) -> Response[None]:
    """Delete the caller's account for good (the password again: 403 `wrong_password`)."""
    await _deletion(state).delete(caller, data.password, client_address(request.scope))
    return Response(None, status_code=204, cookies=_cookies(request, None))


@get("/api/v1/players/me/data")
async def my_data(state: State, caller: Player) -> Response[bytes]:
    """Everything the service holds about the caller, as a JSON file."""
    data = await personal_data(state.ratings, state.players.store, state.runtime.games, state.runtime.agents, caller)
    return Response(
        msgspec.json.encode(data),
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="hanamichi-{caller.player_id}.json"',
            "Cache-Control": "no-store",
        },
    )


ROUTES = [delete_account, my_data]
