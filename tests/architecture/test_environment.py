"""The environment is read in one place: services/config.py
(`Settings`, and `ProcessSettings` for what is set up before Settings exists).
Every other module is handed its settings by the composition root. The
command-line tools may read (and set) their own process's environment."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engines", "services", "workers")
ALLOWED = {"services/config.py", "services/cli.py"}
ALLOWED_FOLDERS = ("services/tools/",)


def reads_environment(source: str) -> list[int]:
    """Lines that touch the process environment: `os.environ`, `os.getenv`,
    `os.putenv`, or `environ` / `getenv` imported from os."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv", "environb"):
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                lines.append(node.lineno)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in ("environ", "getenv", "putenv", "environb") for alias in node.names)
        ):
            lines.append(node.lineno)
    return lines


def test_the_detector_sees_every_way_in():
    assert reads_environment("import os\nx = os.environ.get('A')\n") == [2]
    assert reads_environment("import os\n\ndef f():\n    return os.getenv('A')\n") == [4]
    assert reads_environment("from os import environ\n") == [1]
    assert reads_environment("import os\nos.path.join('a')\nenviron = {}\n") == []


def test_only_settings_read_the_environment():
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in ALLOWED or name.startswith(ALLOWED_FOLDERS):
                continue
            offenders += [f"{name}:{line}" for line in reads_environment(path.read_text())]
    assert offenders == [], "read the environment in services/config.py and pass the value in: " + ", ".join(offenders)


def test_settings_carry_what_modules_used_to_read(monkeypatch):
    from services.config import ProcessSettings, Settings

    for name, value in {
        "HANAMICHI_SSE_SPECTATOR_BUFFER_BYTES": "1024",
        "HANAMICHI_SSE_SPECTATOR_SNDBUF": "4096",
        "HANAMICHI_LOG_SUMMARY_S": "1",
        "HANAMICHI_METRICS_PORT": "9109",
        "HANAMICHI_ACCESS_LOG": "1",
        "HANAMICHI_ALLOW_HTTP_AGENTS": "1",
        "HANAMICHI_AGENT_RATE_LIMIT": "7",
        "HANAMICHI_LOG_LEVEL": "debug",
        "HANAMICHI_LOG_FORMAT": "text",
        "HANAMICHI_TRUSTED_PROXIES": "10.0.0.0/8",
    }.items():
        monkeypatch.setenv(name, value)
    settings, process = Settings.from_env(), ProcessSettings.from_env()
    assert (settings.spectator_buffer_bytes, settings.spectator_sndbuf_bytes) == (1024, 4096)
    assert (settings.log_summary_s, settings.metrics_port, settings.access_log) == (1.0, 9109, True)
    assert settings.agents.allow_http and settings.agents.rate_limit == 7
    assert (process.log_level, process.log_text, process.trusted_proxies) == ("DEBUG", True, "10.0.0.0/8")
    monkeypatch.delenv("HANAMICHI_METRICS_PORT")
    monkeypatch.delenv("HANAMICHI_ACCESS_LOG")
    assert Settings.from_env().metrics_port is None and not Settings.from_env().access_log
