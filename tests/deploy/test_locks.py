"""The lock files pin what pyproject.toml declares: every runtime dependency
in requirements.lock and requirements-test.lock, every test extra in
requirements-test.lock, each at a version its range allows, the runtime
part the same in both; and they hold nothing of one machine (index URLs,
local paths). A dependency added without re-locking (`.ci/lock`) fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_LOCK = ROOT / "requirements.lock"
TEST_LOCK = ROOT / "requirements-test.lock"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


def pins(lock: Path) -> dict[str, Version]:
    return {canonicalize_name(name): Version(version) for name, version in _PIN.findall(lock.read_text())}


def declared() -> tuple[list[Requirement], list[Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = [Requirement(r) for r in project["dependencies"]]
    test = [Requirement(r) for r in project["optional-dependencies"]["test"]]
    return runtime, test


def _unpinned(requirements: list[Requirement], pinned: dict[str, Version]) -> list[str]:
    wrong = []
    for req in requirements:
        if req.marker is not None and not req.marker.evaluate():
            continue  # not for this platform, so not in a lock made here
        version = pinned.get(canonicalize_name(req.name))
        if version is None:
            wrong.append(f"{req} is not pinned")
        elif not req.specifier.contains(version, prereleases=True):
            wrong.append(f"{req} is pinned at {version}, outside its range")
    return wrong


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, TEST_LOCK], ids=lambda p: p.name)
def test_every_declared_dependency_is_pinned_within_its_range(lock):
    runtime, test = declared()
    wanted = runtime + (test if lock == TEST_LOCK else [])
    wrong = _unpinned(wanted, pins(lock))
    assert not wrong, f"{lock.name} is out of date with pyproject.toml (run .ci/lock): " + "; ".join(wrong)


def test_the_runtime_pins_are_the_same_in_both_locks():
    runtime, test = pins(RUNTIME_LOCK), pins(TEST_LOCK)
    differ = {name: (v, test.get(name)) for name, v in runtime.items() if test.get(name) != v}
    assert not differ, f"requirements.lock and requirements-test.lock disagree (run .ci/lock): {differ}"
    assert "hanamichi" not in runtime | test  # the project itself is installed on its own (--no-deps)


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, TEST_LOCK], ids=lambda p: p.name)
def test_a_lock_names_no_index_or_path_of_this_machine(lock):
    text = lock.read_text()
    for needle in ("--index-url", "--extra-index-url", "--find-links", "--trusted-host", "file://", "/opt/", "/work/"):
        assert needle not in text, f"{lock.name} holds {needle!r}: made with a machine's pip configuration"
    # Every pin is hash-checked: pip then installs exactly these files.
    pinned = _PIN.findall(text)
    assert pinned and text.count("==") == len(pinned)
    for block in re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 6)[-1]):
        if _PIN.match(block):
            assert "--hash=sha256:" in block, block.splitlines()[0]
