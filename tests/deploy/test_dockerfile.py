"""deploy/Dockerfile installs exactly the wheel tests/deploy/test_wheel.py
checks: a build stage builds it from the same sources, and the image
installs the runtime lock file's pinned, hash-checked dependencies and then
that wheel with --no-deps, and nothing else. Read statically: no Docker
daemon is needed."""

from __future__ import annotations

import fnmatch
import shlex
from pathlib import Path

from tests.deploy.test_wheel import SOURCES

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    joined: list[str] = []
    current = ""
    for line in DOCKERFILE.read_text().splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip().removesuffix("\\") + " " if line.rstrip().endswith("\\") else line.strip()
        if not line.rstrip().endswith("\\"):
            joined.append(current)
            current = ""
    return [(text.split(None, 1)[0].upper(), text.split(None, 1)[1]) for text in joined]


def stages() -> list[list[tuple[str, str]]]:
    found: list[list[tuple[str, str]]] = []
    for op, args in instructions():
        if op == "FROM":
            found.append([])
        found[-1].append((op, args))
    return found


def _pip_installs(stage: list[tuple[str, str]]) -> list[list[str]]:
    runs = [shlex.split(args) for op, args in stage if op == "RUN"]
    commands = [cmd for run in runs for cmd in _split_commands(run)]
    return [cmd for cmd in commands if cmd[:2] == ["pip", "install"] or cmd[:4] == ["python", "-m", "pip", "install"]]


def _split_commands(words: list[str]) -> list[list[str]]:
    commands: list[list[str]] = []
    current: list[str] = []
    for word in words:
        if word in ("&&", ";", "||"):
            commands.append(current)
            current = []
        else:
            current.append(word)
    return [*commands, current]


def test_a_build_stage_makes_the_wheel_from_the_sources_the_wheel_test_builds():
    build, final = stages()
    assert build[0][1].split()[-2:] == ["AS", "build"], build[0]
    copied = [word for op, args in build if op == "COPY" for word in shlex.split(args)[:-1]]
    assert sorted(copied) == sorted(SOURCES)
    runs = [shlex.split(args) for op, args in build if op == "RUN"]
    assert any(run[:2] == ["pip", "wheel"] and "--no-deps" in run for run in runs), runs


def test_the_image_installs_the_lock_file_then_the_wheel_alone():
    _, final = stages()
    installs = _pip_installs(final)
    assert len(installs) == 2, installs
    lock, wheel = installs
    # First the pinned dependencies, every file hash-checked...
    assert "-r" in lock and "--require-hashes" in lock
    lock_path = lock[lock.index("-r") + 1]
    copies = [shlex.split(args) for op, args in final if op == "COPY"]
    assert ["requirements.lock", lock_path] in copies, copies
    # ...then the build stage's wheel with nothing resolved (no `pip install .`).
    assert "--no-deps" in wheel
    (target,) = [word for word in wheel[2:] if not word.startswith("-")]
    assert target.endswith(".whl")
    assert any(c[0] == "--from=build" and target.startswith(c[-1].rstrip("/") + "/") for c in copies), copies
    assert final[-1] == ("CMD", '["hanamichi", "serve", "--host", "0.0.0.0", "--port", "8000"]')


def test_the_build_context_keeps_what_the_dockerfile_copies():
    ignored = [
        line.strip()
        for line in (ROOT / "deploy" / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for name in [*SOURCES, "requirements.lock"]:
        assert (ROOT / name).exists(), name
        hits = [pattern for pattern in ignored if fnmatch.fnmatch(name, pattern)]
        assert not hits, f"{name} is left out of the build context by {hits}"
