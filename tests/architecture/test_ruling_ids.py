"""Every ruling id cited anywhere (code, tests, pages, their JavaScript and
glossaries, the documents) is defined in docs/rules/, once: a citation of a
ruling that does not exist points a reader nowhere."""

from __future__ import annotations

import re
from collections import Counter

from tests.rules_docs import ID, PAGES, PREFIX_PAGE, ROOT, RULES_DIR, definitions, page_text

# Where citations live: the tree's own text files, not environments or caches.
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "site"}
TEXT_SUFFIXES = {".py", ".js", ".mjs", ".json", ".md", ".html", ".css", ".txt", ".toml", ".yaml", ".yml", ".sql"}
CITATION = re.compile(rf"\b({ID})\b")
# Shorthand after an id: "KT-5/12", "KM-1..7" (the bare number keeps the prefix).
SHORTHAND = re.compile(rf"\b({ID})((?:\s*(?:/|\.\.)\s*\d+[a-z]?\b)+)")


def text_files():
    for path in sorted(ROOT.rglob("*")):
        relative = path.relative_to(ROOT)
        if any(part in SKIP_DIRS or part.endswith(".egg-info") for part in relative.parts):
            continue
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            yield path


def citations(text: str) -> list[str]:
    cited = CITATION.findall(text)
    for first, rest in SHORTHAND.findall(text):
        prefix = first.split("-")[0]
        cited += [f"{prefix}-{number}" for number in re.findall(r"\d+[a-z]?", rest)]
    return cited


def test_the_citation_scan_reads_ranges_and_lists():
    assert citations("KT-5/KT-12 and KM-5a, (TT-9..TT-13)") == ["KT-5", "KT-12", "KM-5a", "TT-9", "TT-13"]
    assert citations("KT-5/12, CH-2..8") == ["KT-5", "CH-2", "KT-12", "CH-8"]
    assert citations("GEN-1; BKT-3; KT-x; PKT-1") == ["GEN-1"]


def test_every_cited_ruling_is_defined_in_docs_rules():
    defined = {ruling for _page, ruling, _text in definitions()}
    undefined: dict[str, list[str]] = {}
    count = 0
    for path in text_files():
        for ruling in citations(path.read_text(encoding="utf-8", errors="replace")):
            count += 1
            if ruling not in defined:
                undefined.setdefault(ruling, []).append(str(path.relative_to(ROOT)))
    assert count > 500, f"the scan found only {count} citations"  # it reads the tree, not an empty folder
    assert not undefined, "cited but not defined in docs/rules/: " + "; ".join(
        f"{ruling} in {', '.join(sorted(set(paths)))}" for ruling, paths in sorted(undefined.items())
    )


def test_docs_rules_holds_exactly_its_pages():
    assert sorted(p.name for p in RULES_DIR.iterdir()) == sorted(f"{page}.md" for page in PAGES)


def test_each_ruling_is_defined_once_on_its_games_page():
    found = definitions()
    twice = [ruling for ruling, n in Counter(ruling for _p, ruling, _t in found).items() if n > 1]
    assert not twice, f"defined more than once: {twice}"
    misplaced = [(page, ruling) for page, ruling, _t in found if PREFIX_PAGE[ruling.split("-")[0]] != page]
    assert not misplaced
    assert {ruling.split("-")[0] for _p, ruling, _t in found} == set(PREFIX_PAGE)


def test_ruling_texts_name_no_code():
    # A ruling's own line is for players: an option has its plain name there,
    # and its API name only on the marked line below.
    coded = [ruling for _page, ruling, text in definitions() if "`" in text or re.search(r"\b[a-z]+_[a-z_]+\b", text)]
    assert not coded, f"ruling texts naming code: {coded}"


def test_links_between_the_rules_pages_resolve():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)", page_text(page)):
            assert (RULES_DIR / target).resolve().parent == RULES_DIR and (RULES_DIR / target).is_file(), (
                f"{page}.md links to {target}"
            )
        assert "../shared" not in page_text(page) and "seeds/" not in page_text(page)
