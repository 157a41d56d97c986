"""False alarms of the skill scan on real public skills: every SKILL.md folder of the skill collections fetched
under /work/.mirror (git directories, read with `git archive`), scanned as `grove skills import` scans them.

Prints per repository: skills scanned, refused as dangerous, flagged caution (quarantined unless imported with
--allow-flagged), and every refusal with its reasons so a human can judge it. Nothing fetched is kept.
Usage: python benchmarks/skills_scan_real.py [--mirror DIR] [--caution-reasons] [REPO ...]"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from grove.security.skill_scan.scan import scan_skill_dir

MIRROR = Path("/work/.mirror")
# owner+name folders; each a public collection of Agent Skills (SKILL.md folders)
REPOS = [
    "anthropics+skills",
    "openai+skills",
    "obra+superpowers",
    "K-Dense-AI+claude-scientific-skills",
    "ComposioHQ+awesome-claude-skills",
    "sickn33+antigravity-awesome-skills",
]


@dataclass
class RepoFigures:
    repo: str
    scanned: int = 0
    refused: list[tuple[str, list[str]]] = field(default_factory=list)
    caution: list[tuple[str, list[str]]] = field(default_factory=list)


def _extract(git_dir: Path, into: Path) -> None:
    """The newest commit's tree, written out (the mirror is a git directory without a work tree)."""
    data = subprocess.run(
        ["git", "--git-dir", str(git_dir), "archive", "--format=tar", "HEAD"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")


def _skill_dirs(root: Path) -> list[Path]:
    # a SKILL.md that is a link (one collection mirrors its skills for another agent that way) is no new skill
    return sorted({p.parent for p in root.rglob("SKILL.md") if p.is_file() and not p.is_symlink()})


def scan_repo(name: str, mirror: Path, prose: bool = True) -> RepoFigures | None:
    git_dir = mirror / name / "repo"
    if not git_dir.is_dir():
        return None
    figures = RepoFigures(name.replace("+", "/"))
    with tempfile.TemporaryDirectory(prefix="grove-skills-real-") as tmp:
        _extract(git_dir, Path(tmp))
        for folder in _skill_dirs(Path(tmp)):
            result = scan_skill_dir(folder, prose=prose)
            figures.scanned += 1
            where = str(folder.relative_to(tmp))
            if result.verdict == "dangerous":
                figures.refused.append((where, result.reasons))
            elif result.verdict == "caution":
                figures.caution.append((where, result.reasons))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", default=REPOS, help="owner+name folders under the mirror")
    parser.add_argument("--mirror", type=Path, default=MIRROR)
    parser.add_argument("--caution-reasons", action="store_true", help="list the reasons of caution verdicts")
    parser.add_argument(
        "--code-only",
        action="store_true",
        help="leave out the (slow) prose injection classifier: code findings only",
    )
    args = parser.parse_args()
    found: list[RepoFigures] = []
    for name in args.repos:
        figures = scan_repo(name, args.mirror, prose=not args.code_only)
        if figures is None:
            print(
                f"{name}: absent from {args.mirror} (fetch github:{name.replace('+', '/')} with the search tool)"
            )
            continue
        found.append(figures)
        print(
            f"{figures.repo}: scanned {figures.scanned}, refused {len(figures.refused)}, "
            f"caution {len(figures.caution)}"
        )
        for where, reasons in figures.refused:
            print(f"  REFUSED {where}")
            for r in reasons:
                if "dangerous" in r:
                    print(f"      {r[:220]}")
        if args.caution_reasons:
            for where, reasons in figures.caution:
                print(f"  caution {where}: {'; '.join(reasons)[:300]}")
    kinds = Counter(
        why
        for f in found
        for _, reasons in f.caution
        for why in {
            re.sub(r"^(?:[^:]*: )?caution: ", "", r).split(" (")[0] for r in reasons if "caution: " in r
        }
    )
    if kinds:
        print("most common caution reasons (skills):")
        for why, n in kinds.most_common(12):
            print(f"  {n:5d}  {why[:120]}")
    total = sum(f.scanned for f in found)
    refused = sum(len(f.refused) for f in found)
    caution = sum(len(f.caution) for f in found)
    authors = len({f.repo.split("/")[0] for f in found if f.scanned})
    if not total:
        print("no mirrored skill collection found; nothing measured", file=sys.stderr)
    rate = refused / total if total else 0.0
    if args.code_only:
        print("code findings only (--code-only): the prose injection classifier was not run")
    print(
        f"real_skills={total} authors={authors} repos={len(found)} refused={refused} "
        f"refused_rate={rate:.4f} caution={caution} caution_rate={(caution / total if total else 0.0):.4f}"
    )


if __name__ == "__main__":
    main()
