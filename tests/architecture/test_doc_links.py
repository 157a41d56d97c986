"""Every relative link and image in the docs (README, CONTRIBUTING, CHANGELOG, docs/**) names a file that exists,
so moving a page or a screenshot cannot leave a reader at a dead end."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# [text](target) and ![alt](target); the target up to a space, a closing parenthesis or a #fragment
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


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


def test_a_dead_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    (tmp_path / "there.md").write_text("x")
    page.write_text(
        "[a](there.md) [b](gone.md#part) ![c](img/none.png) [d](https://x.test/)\n```\n[e](no.md)\n```\n"
    )
    assert dead_links(page, tmp_path) == ["p.md -> gone.md", "p.md -> img/none.png"]
