"""The settings table of docs/operations.md against the code that reads the
environment: services/config.py (`Settings`, `ProcessSettings`) and the few
variables `hanamichi serve` reads itself (services/cli.py, services/tools/serve.py).

A variable the code reads and the table lacks fails, and so does a row nothing
reads, a row whose field does not follow its variable, and a default that is
not what an unset variable gives."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from services import config
from services.config import ProcessSettings, Settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"
SERVE_SOURCES = (ROOT / "services" / "cli.py", ROOT / "services" / "tools" / "serve.py")
SERVE = "hanamichi serve"
# Values tried for a variable until its field changes (types differ: a flag, a
# format name, a number within the time-control bounds, free text).
PROBES = ("1", "text", "7777", "x")


def settings_table() -> dict[str, tuple[str, str]]:
    """variable -> (read into, default) from the table under "## Settings"."""
    text = DOC.read_text()
    section = text[text.index("\n## Settings\n") :]
    section = section[: section.index("\n## ", 1)]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`"):
            continue
        name = cells[0].strip("`")
        assert name not in rows, f"{name} is listed twice"
        rows[name] = (cells[1].strip("`"), cells[2])
    return rows


class RecordingEnvironment(dict):
    """An empty environment that remembers which names were asked for."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        super().__init__(values or {})
        self.asked: set[str] = set()

    def get(self, key, default=None):
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        self.asked.add(key)
        return super().__contains__(key)


def from_env(monkeypatch, values: dict[str, str] | None = None) -> tuple[Settings, ProcessSettings, set[str]]:
    env = RecordingEnvironment(values)
    monkeypatch.setattr(config.os, "environ", env)
    settings, process = Settings.from_env(), ProcessSettings.from_env()
    return settings, process, env.asked


def resolve(path: str, settings: object, process: object) -> object:
    root, *names = path.split(".")
    value = {"Settings": settings, "ProcessSettings": process}[root]
    for name in names:
        value = getattr(value, name)
    return value


def shown(value: object) -> str:
    """A default as the table writes it."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if value == "":
        return "none"
    return str(value)


def serve_reads() -> dict[str, str | None]:
    """Variables `hanamichi serve` reads with `os.environ.get(NAME[, DEFAULT])`, and their defaults."""
    found: dict[str, str | None] = {}
    for path in SERVE_SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"):
                continue
            target = node.func.value
            if not (isinstance(target, ast.Attribute) and target.attr == "environ"):
                continue
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                default = node.args[1] if len(node.args) > 1 else None
                value = default.value if isinstance(default, ast.Constant) else None
                found[node.args[0].value] = value if isinstance(value, str) else None
    return found


def test_every_variable_the_settings_read_is_in_the_table_and_nothing_else(monkeypatch):
    table = settings_table()
    _, _, asked = from_env(monkeypatch)
    documented = {name for name, (into, _) in table.items() if into != SERVE}
    assert asked - documented == set(), "add these to the settings table of docs/operations.md"
    assert documented - asked == set(), "the settings table lists variables Settings/ProcessSettings never read"


def test_each_row_names_the_field_its_variable_sets(monkeypatch):
    base_settings, base_process, _ = from_env(monkeypatch)
    for name, (into, _) in settings_table().items():
        if into == SERVE:
            continue
        before = resolve(into, base_settings, base_process)
        for probe in PROBES:
            try:
                settings, process, _ = from_env(monkeypatch, {name: probe})
            except ValueError:
                continue
            if resolve(into, settings, process) != before:
                break
        else:
            pytest.fail(f"{name}: setting it does not change {into}")


def test_the_defaults_shown_are_what_an_unset_variable_gives(monkeypatch):
    settings, process, _ = from_env(monkeypatch)
    assert settings == Settings() and process == ProcessSettings(), "from_env with no variables must give the defaults"
    for name, (into, default) in settings_table().items():
        if into == SERVE:
            continue
        expected = shown(resolve(into, settings, process))
        assert re.match(rf"`{re.escape(expected)}`", default), f"{name}: the table shows {default}, the code {expected}"


def test_the_variables_serve_reads_itself_are_in_the_table():
    table = settings_table()
    reads = serve_reads()
    assert {"HANAMICHI_PROCESSES", "HANAMICHI_KEEPALIVE_S"} <= reads.keys()  # the detector finds what is there
    for name in reads:
        assert name in table, f"`hanamichi serve` reads {name}: add it to the settings table"
    for name, (into, shown_default) in table.items():
        if into != SERVE:
            continue
        assert name in reads, f"{name} is listed as read by `hanamichi serve`, which never reads it"
        assert shown_default.startswith(f"`{shown(reads[name])}`"), f"{name}: shown {shown_default}, read {reads[name]}"
