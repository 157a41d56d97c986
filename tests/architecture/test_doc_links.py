"""Every relative link and image in the docs (README, CONTRIBUTING, CHANGELOG, docs/**) names a file that exists, and
so does every file path they name in backticks (`src/grove/...`, `tests/...`, or a module as `runtime/session.py`),
so moving a page, a screenshot or a module cannot leave a reader at a dead end."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# [text](target) and ![alt](target); the target up to a space, a closing parenthesis or a #fragment
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
# a path in backticks: from the repository's root, or a module under src/grove (`runtime/session.py`)
NAMED_PATH = re.compile(r"`((?:src|tests|\.ci|benchmarks|docs)/[^`\s]*|[a-z_]+/[A-Za-z0-9_/]+\.py)")


def pages() -> list[Path]:
    top = [ROOT / n for n in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md") if (ROOT / n).is_file()]
    return top + sorted((ROOT / "docs").rglob("*.md"))


def dead_links(page: Path, root: Path = ROOT) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))  # code blocks hold examples, not links
    out = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not checked (no network)
            continue
        if not (page.parent / target).exists():
            out.append(f"{page.relative_to(root)} -> {target}")
    return out


def test_relative_links_in_the_docs_exist() -> None:
    dead = [d for page in pages() for d in dead_links(page)]
    assert not dead, "links to files that do not exist:\n" + "\n".join(dead)


def missing_paths(page: Path, root: Path = ROOT) -> list[str]:
    packages = {p.name for p in (root / "src" / "grove").iterdir() if p.is_dir()}
    out = []
    for name in NAMED_PATH.findall(page.read_text(encoding="utf-8")):
        name = name.rstrip(".,;:)")
        if any(c in name for c in "<*{"):  # a pattern or a placeholder, not a file
            continue
        if "/" in name and name.split("/")[0] in packages and not name.startswith(("src/", "tests/")):
            found = (root / "src" / "grove" / name).exists()
        else:
            found = (root / name).exists()
        if not found and name.split("/")[0] in packages | {"src", "tests", ".ci", "benchmarks", "docs"}:
            out.append(f"{page.relative_to(root)} names {name}")
    return out


def test_paths_named_in_the_docs_exist() -> None:
    missing = [m for page in pages() for m in missing_paths(page)]
    assert not missing, "the docs name files that do not exist (renamed or moved?):\n" + "\n".join(missing)


def test_a_dead_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    (tmp_path / "there.md").write_text("x")
    page.write_text(
        "[a](there.md) [b](gone.md#part) ![c](img/none.png) [d](https://x.test/)\n```\n[e](no.md)\n```\n"
    )
    assert dead_links(page, tmp_path) == ["p.md -> gone.md", "p.md -> img/none.png"]


def test_a_missing_path_is_found(tmp_path: Path) -> None:
    (tmp_path / "src" / "grove" / "runtime").mkdir(parents=True)
    (tmp_path / "src" / "grove" / "runtime" / "session.py").write_text("")
    page = tmp_path / "p.md"
    page.write_text(
        "`runtime/session.py` `runtime/gone.py` `src/grove/runtime/session.py` `tests/x.py` `a/b.py`"
    )
    assert missing_paths(page, tmp_path) == ["p.md names runtime/gone.py", "p.md names tests/x.py"]
