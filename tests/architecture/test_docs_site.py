"""The documentation site builds with `mkdocs build --strict`: a dead link, a
link to a missing heading, or a page left out of the nav is a warning, and
strict mode turns every warning into a failure. The README's links into docs/
are checked too, since GitHub renders the README and MkDocs does not."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed (pip install -e '.[test]')"
)
def test_the_site_builds_strict_without_a_warning(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp_path)},
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert not re.search(r"^(WARNING|ERROR)\b", log, re.M), log
    # the offline plugin writes plain file names (no directory URLs), so the site opens from disk
    assert (tmp_path / "site" / "operations.html").exists()


def test_every_page_in_docs_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    missing = sorted(page for page in pages if not re.search(rf"(^|[\s:]){re.escape(page)}\s*$", nav, re.M))
    assert missing == [], f"add these pages to the nav of mkdocs.yml: {missing}"


def test_the_readme_links_resolve():
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert local, "the README links into docs/"
    dead = [t for t in local if not (ROOT / t).exists()]
    assert dead == [], f"the README links to missing files: {dead}"
