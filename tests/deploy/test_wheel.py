"""The built package is the whole service: a wheel built from the source tree
(as deploy/Dockerfile builds it), installed into a fresh virtualenv outside
the checkout from the runtime lock file plus the wheel alone, runs
`hanamichi serve` with embedded PostgreSQL and Redis, and serves every page
in every language, every asset those pages load (scripts, the modules they
import, glossaries, stylesheets, icons) and the Swagger UI pages, each
byte-for-byte what a server running from the checkout serves. Every source
file, every migration among them, is in the installed package unchanged."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from engines.registry import available
from services.web.i18n import COOKIE, LANGS
from tests.conftest import free_test_port

ROOT = Path(__file__).resolve().parents[2]
# What the wheel is built from: what deploy/Dockerfile's build stage copies.
SOURCES = ["pyproject.toml", "README.md", "engines", "services", "workers"]
PACKAGES = ["engines", "services", "workers"]
# Pages with an id in the path are shells the modules fill; any id renders them.
PAGES = [
    "/",
    "/signup",
    "/signin",
    "/account",
    "/agents",
    "/live",
    "/tournaments",
    "/leaderboards",
    "/games/some-game",
    "/games/some-game/replay",
    "/tournaments/some-tournament",
    "/players/some-player",
    *(f"/how-to-play/{game}" for game in available()),
    *(f"/leaderboards/{game}" for game in available()),
]
SWAGGER_PAGES = ["/schema", "/schema/swagger", "/schema/openapi.json"]


def _run(argv: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert result.returncode == 0, f"{' '.join(argv)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _source_files() -> list[str]:
    """The files of SOURCES git knows of or would add (ignored ones, like
    __pycache__, left out), as they are in the working tree."""
    listed = _run(["git", "ls-files", "--cached", "--others", "--exclude-standard", *SOURCES], 60, cwd=ROOT)
    return sorted(name for name in set(listed.stdout.splitlines()) if (ROOT / name).is_file())


def _clean_env(venv: Path) -> dict[str, str]:
    """The environment of a process of the installed copy: the checkout can
    not be imported (no PYTHONPATH, not on PATH), no servers of this machine."""
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "DATABASE_URL", "REDIS_URL"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    checkout_bin = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != checkout_bin]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    return env


def _wheel_cache() -> Path:
    """Where the locked dependencies' files are kept between runs (they are
    hash-checked on every install, so a stale or foreign file cannot pass)."""
    if "HANAMICHI_WHEEL_CACHE" in os.environ:
        return Path(os.environ["HANAMICHI_WHEEL_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hanamichi" / "locked-wheels"


def _uv() -> str | None:
    """uv, from the checkout's virtualenv (.ci/run installs it there) or PATH."""
    return shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def _install_locked(pip: list[str], env: dict[str, str], cwd: Path) -> None:
    """requirements.lock into the virtualenv (`pip` is its pip, or uv's pip
    interface for it): from the files kept from the last run, without asking
    an index; downloaded first (the checkout's pip download) when some are
    missing, on the first run or after a re-lock."""
    cache = _wheel_cache()
    cache.mkdir(parents=True, exist_ok=True)
    lock = str(ROOT / "requirements.lock")
    offline = [*pip, "install", "--quiet", "--no-compile", "--no-index", "--find-links", str(cache), "-r", lock]
    if subprocess.run(offline, capture_output=True, cwd=cwd, env=env, timeout=600).returncode == 0:
        return
    download = [sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "--quiet", "--no-deps"]
    _run([*download, "-d", str(cache), "-r", lock], 900, cwd=cwd)
    _run(offline, 600, cwd=cwd, env=env)


@dataclass
class Installed:
    """The wheel installed in a virtualenv of its own, and a folder to run in."""

    folder: Path
    venv: Path
    wheel: Path
    sources: list[str]  # the checkout's files the wheel was built from, copied to folder/source
    took: dict[str, float] = field(default_factory=dict)

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def run_python(self, code: str) -> str:
        cwd = self.folder / "cwd"
        return _run([str(self.python), "-c", code], 60, cwd=cwd, env=_clean_env(self.venv)).stdout


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    # Under /tmp and not pytest's folder: the embedded PostgreSQL runs as
    # another user (embedded_postgres), and any pytest session that starts
    # on the machine chmods /tmp/pytest-of-root back to 0700, cutting a
    # running server off from its data folder.
    folder = Path(tempfile.mkdtemp(prefix="hm-wheel-", dir="/tmp"))
    (folder / "cwd").mkdir()
    took: dict[str, float] = {}
    try:
        start = time.monotonic()
        source = folder / "source"
        sources = _source_files()
        for name in sources:
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
        # deploy/Dockerfile's `pip wheel --no-deps .`, with the build backend
        # pyproject.toml names (setuptools) as the test lock installed it here
        # instead of a copy pip would download into an isolated environment.
        _run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet"]
            + ["-w", str(folder / "dist"), "."],
            300,
            cwd=source,
        )
        (wheel,) = (folder / "dist").glob("hanamichi-*.whl")
        took["build the wheel"] = time.monotonic() - start

        start = time.monotonic()
        venv = folder / "venv"
        env = _clean_env(venv)
        uv = _uv()
        if uv is None:
            _run([sys.executable, "-m", "venv", str(venv)], 120)
            pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
        else:
            # uv (what .ci/run installs the locked sets with): the same lock file and
            # wheel, hash-checked, into a virtualenv in a second where pip takes 15.
            _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], 120, env=env)
            pip = [uv, "pip"]
            env = {**env, "VIRTUAL_ENV": str(venv)}  # the environment uv's pip installs into
        _install_locked(pip, env, folder / "cwd")
        _run([*pip, "install", "--quiet", "--no-compile", "--no-deps", str(wheel)], 120, cwd=folder / "cwd", env=env)
        # The lock file alone satisfies everything the wheel declares.
        _run([*pip, "check"], 60, cwd=folder / "cwd", env=env)
        took["install the lock file, then the wheel"] = time.monotonic() - start
        yield Installed(folder, venv, wheel, sources, took)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Serve:
    """A `serve` process; `data` is its embedded servers' folder, if any."""

    def __init__(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        log_path: Path,
        data: Path | None = None,
        extra: tuple[str, ...] | list[str] = (),
    ) -> None:
        port = free_test_port()
        self.data = data
        self.base_url = f"http://127.0.0.1:{port}"
        self.log_path = log_path
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [*argv, "serve", "--host", "127.0.0.1", "--port", str(port), "--processes", "1", *extra],
                cwd=cwd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    @property
    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:]

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"serve exited with {self.proc.returncode}:\n{self.output}"
            try:
                if httpx.get(self.base_url + "/ready", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"serve not ready after {timeout} s:\n{self.output}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.data is None:
            return
        # Servers a killed serve left behind (SIGINT: PostgreSQL's fast shutdown).
        for pid_file, sig in (
            (self.data / "postgres" / "postmaster.pid", signal.SIGINT),
            (self.data / "redis" / "redis.pid", signal.SIGTERM),
        ):
            with contextlib.suppress(OSError, ValueError, IndexError):
                os.kill(int(pid_file.read_text().split()[0]), sig)


@pytest.fixture(scope="module")
def serves(installed: Installed, server_env: dict[str, str]) -> Iterator[tuple[Serve, Serve]]:
    """(the installed copy's serve, the checkout's serve), started at once
    (each takes seconds to come up; neither needs the other)."""
    start = time.monotonic()
    source = installed.folder / "source"
    checkout_env = {**server_env, "PYTHONPATH": str(source)}
    where = _run([sys.executable, "-c", "import services; print(services.__file__)"], 60, cwd=source, env=checkout_env)
    assert where.stdout.startswith(str(source)), where.stdout
    # The installed copy's `hanamichi serve`, as the image runs it, with
    # embedded PostgreSQL and Redis (no DATABASE_URL/REDIS_URL).
    env = _clean_env(installed.venv)
    data = installed.folder / "data"
    env["HANAMICHI_DATA"] = str(data)
    argv = [str(installed.venv / "bin" / "hanamichi")]
    wheel = Serve(argv, installed.folder / "cwd", env, installed.folder / "serve-wheel.log", data)
    try:
        # The same `serve` run from the checkout's sources with the checkout's
        # virtualenv, as developers run it: the sources as they were when the
        # wheel was built (their copy), since others may change the tree meanwhile.
        argv = [sys.executable, "-m", "services.cli"]
        checkout = Serve(argv, source, checkout_env, installed.folder / "serve-checkout.log", extra=["--no-worker"])
        try:
            wheel.wait_ready()
            installed.took["start serve (embedded servers)"] = time.monotonic() - start
            checkout.wait_ready()
            yield wheel, checkout
        finally:
            checkout.stop()
    finally:
        wheel.stop()


@pytest.fixture(scope="module")
def installed_serve(serves: tuple[Serve, Serve]) -> Serve:
    return serves[0]


@pytest.fixture(scope="module")
def checkout_serve(serves: tuple[Serve, Serve]) -> Serve:
    return serves[1]


def test_the_installed_package_is_the_wheel_not_the_checkout(installed):
    places = installed.run_python(
        "import engines, services, workers; print(engines.__file__, services.__file__, workers.__file__)"
    )
    site = installed.run_python("import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    for place in places.split():
        assert place.startswith(site), f"{place} is not from the installed wheel ({site})"
        assert not place.startswith(str(ROOT)), place


def test_every_source_file_and_migration_is_installed_unchanged(installed):
    site = Path(installed.run_python("import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    # The checkout as it was when the wheel was built (its copy): other work
    # in the same tree may add files meanwhile.
    source = installed.folder / "source"
    wanted = [name for name in installed.sources if name.split("/")[0] in PACKAGES]
    missing = [name for name in wanted if not (site / name).is_file()]
    assert not missing, f"not in the installed package: {missing}"
    changed = [name for name in wanted if (site / name).read_bytes() != (source / name).read_bytes()]
    assert not changed, f"installed, but not as in the checkout: {changed}"

    # The migrations as the service finds them at run time (importlib.resources).
    found = installed.run_python(
        "from services.infra.db import migration_files\nfor _, name, _ in migration_files(): print(name)"
    )
    on_disk = sorted(p.name for p in (source / "services" / "infra" / "migrations").glob("*.sql"))
    assert found.split() == on_disk and on_disk


# --- crawling the pages ---------------------------------------------------------------------

_HTML_REF = re.compile(r"""<(?:script|link|img|a|source)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
_JS_STATIC_IMPORT = re.compile(r"""(?:^|[;\n}])\s*(?:import|export)\s+(?:[\w$*{}\s,]+?\s+from\s+)?["']([^"']+)["']""")
_JS_DYNAMIC = re.compile(r"""\bimport\(\s*(["'`])(.+?)\1\s*\)|new\s+URL\(\s*(["'`])(.+?)\3\s*,\s*import\.meta\.url""")
_CSS_REF = re.compile(r"""url\(\s*["']?([^"')]+)["']?\s*\)|@import\s+["']([^"']+)["']""")
# A module's templated import (`./games/${game}.js`) stands for one file per value.
_TEMPLATES = {r"games/\{\}\.js": available(), r"i18n/\{\}\.json": list(LANGS)}


def _expand(spec: str) -> list[str]:
    if "${" not in spec:
        return [spec]
    shape = re.sub(r"\$\{[^}]*\}", "{}", spec)
    for pattern, values in _TEMPLATES.items():
        if re.search(pattern + "$", shape):
            return [shape.replace("{}", value) for value in values]
    raise AssertionError(f"a templated import this test cannot expand: {spec} (add its values to _TEMPLATES)")


def _references(url: str, body: bytes, content_type: str) -> tuple[list[str], list[str]]:
    """(pages, assets) that `body`, served at `url`, refers to on this site."""
    text = body.decode("utf-8", errors="replace")
    pages: list[str] = []
    assets: list[str] = []
    if content_type.startswith("text/html"):
        for ref in _HTML_REF.findall(text):
            ref = ref.replace("&amp;", "&")
            if ref.startswith(("#", "//", "http:", "https:", "mailto:", "data:")):
                continue
            path = urlsplit(urljoin(url, ref)).path
            if path.startswith(("/assets/", "/static/")):
                assets.append(path)
            elif not path.startswith(("/api/", "/lang/")):
                pages.append(path)
    elif "javascript" in content_type:
        specs = _JS_STATIC_IMPORT.findall(text)
        specs += [m[1] or m[3] for m in _JS_DYNAMIC.findall(text)]
        for spec in specs:
            if spec.startswith((".", "/")):
                assets += [urlsplit(urljoin(url, s)).path for s in _expand(spec)]
    elif content_type.startswith("text/css"):
        for ref in (a or b for a, b in _CSS_REF.findall(text)):
            if not ref.startswith(("data:", "#")):
                assets.append(urlsplit(urljoin(url, ref)).path)
    return pages, assets


@dataclass
class Crawl:
    served: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)  # path+lang -> status, type, body
    assets: set[str] = field(default_factory=set)
    pages: set[str] = field(default_factory=set)


def _crawl(base_url: str) -> Crawl:
    """Every page (in every language) and everything it loads, recursively."""
    crawl = Crawl()
    clients = {lang: httpx.Client(base_url=base_url, timeout=30, cookies={COOKIE: lang}) for lang in LANGS}
    try:
        todo = [(path, lang) for path in (*PAGES, *SWAGGER_PAGES) for lang in LANGS]
        todo += [(path, "en") for path in ["/lang/" + lang for lang in LANGS]]
        while todo:
            path, lang = todo.pop()
            key = f"{path} [{lang}]" if path not in crawl.assets else path
            if key in crawl.served:
                continue
            r = clients[lang].get(path)
            kind = r.headers.get("content-type", "")
            crawl.served[key] = (r.status_code, kind, r.content)
            if r.status_code != 200:
                continue
            pages, assets = _references(base_url + path, r.content, kind)
            for page in pages:
                crawl.pages.add(page)
                todo += [(page, code) for code in LANGS]
            for asset in assets:
                crawl.assets.add(asset)
                todo.append((asset, "en"))
    finally:
        for client in clients.values():
            client.close()
    return crawl


def test_every_page_and_asset_is_served_from_the_wheel_as_from_the_checkout(installed, installed_serve, checkout_serve):
    wheel = _crawl(installed_serve.base_url)
    checkout = _crawl(checkout_serve.base_url)
    static = installed.folder / "source" / "services" / "web" / "static"

    # The crawl reached what the pages are made of: modules through their
    # imports (the game boards), the glossaries, styles, the Swagger UI files.
    for name in ("nav.js", "api.js", "table-ui.js", "app.css", "table.css", "icon.svg"):
        assert f"/assets/{name}" in wheel.assets, name
    assert {f"/assets/games/{game}.js" for game in available()} <= wheel.assets
    assert {f"/assets/i18n/{lang}.json" for lang in LANGS} <= wheel.assets
    assert {"/static/swagger-ui/swagger-ui-bundle.js", "/static/swagger-ui/swagger-ui.css"} <= wheel.assets
    # ...and every file of static/ is used by some page.
    shipped = {"/assets/" + p.relative_to(static).as_posix() for p in static.rglob("*") if p.is_file()}
    assert shipped <= wheel.assets, f"never loaded by a page: {sorted(shipped - wheel.assets)}"

    assert wheel.served.keys() == checkout.served.keys()
    for key, (status, kind, body) in wheel.served.items():
        expected = 303 if key.startswith("/lang/") else 200
        assert status == expected, f"{key}: {status} from the installed wheel:\n{body[:500]!r}"
        assert (status, kind) == checkout.served[key][:2], key
        assert body == checkout.served[key][2], f"{key}: the installed wheel serves other bytes than the checkout"
        if key.startswith("/assets/"):
            assert body == (static / key.removeprefix("/assets/")).read_bytes(), key

    seconds = ", ".join(f"{what} {took:.1f} s" for what, took in installed.took.items())
    print(f"\nwheel test: {seconds}; {len(wheel.served)} responses compared")
