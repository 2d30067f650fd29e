"""The documentation site (``mkdocs.yml``, ``docs/``): it builds with MkDocs in
strict mode with no warning (broken links, missing anchors, pages left out of
the navigation), every page under ``docs/`` is in the navigation, and every
page can be reached from the home page by following links."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import REPO

DOCS = REPO / "docs"
CONFIG = REPO / "mkdocs.yml"


def _config() -> dict:
    # mkdocs.yml is plain YAML (no Python tags), so the safe loader reads it.
    return yaml.safe_load(CONFIG.read_text())


def _nav_pages(nav) -> list[str]:
    """Every page of a ``nav`` (nested lists and ``{title: page}`` maps)."""
    pages = []
    if isinstance(nav, str):
        pages.append(nav)
    elif isinstance(nav, list):
        for item in nav:
            pages += _nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            pages += _nav_pages(value)
    return pages


def _doc_pages() -> set[str]:
    return {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}


def test_the_site_builds_with_no_warning(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output, output
    assert (tmp_path / "index.html").is_file()
    for page in _doc_pages():
        built = tmp_path / (page[: -len(".md")] + ".html")
        folder = tmp_path / page[: -len(".md")] / "index.html"
        index = tmp_path / page.replace("index.md", "index.html")
        assert built.is_file() or folder.is_file() or index.is_file(), page


def test_every_check_of_the_build_is_a_warning():
    # --strict fails only on warnings: links to missing pages or anchors,
    # links MkDocs cannot resolve and files left out of the navigation
    # must be warnings, not the info messages some of them default to.
    validation = _config()["validation"]
    for key in ("omitted_files", "absolute_links", "unrecognized_links", "anchors"):
        assert validation[key] == "warn", key


def test_every_page_is_in_the_navigation():
    nav = _nav_pages(_config()["nav"])
    assert len(nav) == len(set(nav)), "a page is twice in the navigation"
    assert nav[0] == "index.md"
    assert set(nav) == _doc_pages()


def _links(page: str) -> set[str]:
    """The pages under docs/ that ``page`` links to (relative .md links)."""
    text = (DOCS / page).read_text()
    found = set()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        path = target.split("#", 1)[0]
        if not path.endswith(".md") or "://" in path:
            continue
        resolved = os.path.normpath((Path(page).parent / path).as_posix())
        found.add(Path(resolved).as_posix())
    return found


def test_every_page_is_reachable_from_the_home_page():
    seen, todo = {"index.md"}, ["index.md"]
    while todo:
        for target in _links(todo.pop()):
            assert (DOCS / target).is_file(), target
            if target not in seen:
                seen.add(target)
                todo.append(target)
    assert seen == _doc_pages(), sorted(_doc_pages() - seen)


def test_the_test_extra_installs_mkdocs():
    text = (REPO / "pyproject.toml").read_text()
    extra = re.search(r"^test = \[(.*?)\]$", text, re.M | re.S)
    assert extra, "no test extra in pyproject.toml"
    assert '"mkdocs==1.6.1"' in extra.group(1)
    assert '"mkdocs-material==' in extra.group(1)
    assert "--test" in (REPO / "scripts" / "setup.sh").read_text()
