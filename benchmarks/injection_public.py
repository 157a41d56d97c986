"""Injection scan on public corpora it was never tuned on: Tensor Trust attacks (headline), NotInject and
WildGuard benign prompts, BIPIA and Giskard attacks, and real SKILL.md files. Reads fetched mirrors; commits none.

Split, fixed before any example was read: an item whose sha256 starts with a byte below 26 (~10%) is "dev" (may be
read to sanity-check); the rest is "test", the reported figure. The signal weights are fitted on grove's own written
corpora, the learned model on other public corpora (benchmarks/injection_train.py drops exact and near copies of
every text read here), and its flag bar is set on a held-out part of its training data, never on these.
Usage: python benchmarks/injection_public.py [--mirror /work/.mirror] [--show-dev]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from grove.security.injection.scan import scan_text  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from skills_scan_real import REPOS  # noqa: E402

TENSOR_TRUST = "HumanCompatibleAI+tensor-trust-data"
INJECGUARD = "leolee99+InjecGuard"
GISKARD = "Giskard-AI+prompt-injections"
PARAPET = (
    "Parapet-Tech+parapet"  # holds a copy of deepset/prompt-injections (a Hugging Face data set) as YAML
)
SKILL_REPOS = REPOS  # the same skill collections the skill-scan benchmark reads


@dataclass
class Slice:
    name: str
    texts: list[str]
    injection: bool  # what a correct scan says: True = should be flagged
    kind: str = "context"


def is_dev(text: str) -> bool:
    return hashlib.sha256(text.encode("utf-8")).digest()[0] < 26


def _show(mirror: Path, repo: str, path: str) -> str | None:
    """A file of the newest commit of a fetched mirror (no work tree there), or None when absent."""
    git_dir = mirror / repo / "repo"
    if not git_dir.exists():
        return None
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"], capture_output=True, check=False
    )
    return out.stdout.decode("utf-8", errors="replace") if out.returncode == 0 else None


def _ls(mirror: Path, repo: str) -> list[str]:
    git_dir = mirror / repo / "repo"
    if not git_dir.exists():
        return []
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.splitlines()


def _unique(texts: list[str]) -> list[str]:
    return list(dict.fromkeys(t for t in (x.strip() for x in texts) if t))


def tensor_trust(mirror: Path) -> tuple[list[str], list[str]] | None:
    """(attacks, access codes): human-written attacks from the game, and the legitimate inputs of the same rows."""
    attacks: list[str] = []
    codes: list[str] = []
    for path in (
        "benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl",
        "benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl",
    ):
        raw = _show(mirror, TENSOR_TRUST, path)
        if raw is None:
            return None
        for line in raw.splitlines():
            if line.strip():
                row = json.loads(line)
                attacks.append(row["attack"])
                codes.append(row["access_code"])
    attacks = _unique(attacks)
    return attacks, [c for c in _unique(codes) if c not in set(attacks)]


def injecguard(mirror: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    notinject = []
    for n in ("one", "two", "three"):
        raw = _show(mirror, INJECGUARD, f"datasets/NotInject_{n}.json")
        if raw:
            notinject += [row["prompt"] for row in json.loads(raw)]
    if notinject:
        out["NotInject benign (trigger words)"] = _unique(notinject)
    raw = _show(mirror, INJECGUARD, "datasets/wildguard.json")
    if raw:
        out["WildGuard benign prompts"] = _unique(
            [r["prompt"] for r in json.loads(raw) if str(r["label"]) == "0"]
        )
    bipia = []
    for name in ("BIPIA_text.json", "BIPIA_code.json"):
        raw = _show(mirror, INJECGUARD, f"datasets/{name}")
        if raw:
            bipia += [t for texts in json.loads(raw).values() for t in texts]
    if bipia:
        out["BIPIA attacks (indirect, plain tasks)"] = _unique(bipia)
    return out


def giskard(mirror: Path) -> list[str]:
    raw = _show(mirror, GISKARD, "prompt_injections.csv")
    return _unique([row["prompt"] for row in csv.DictReader(io.StringIO(raw))]) if raw else []


def deepset(mirror: Path) -> dict[str, list[str]]:
    """deepset/prompt-injections (train split, English and German), from the YAML copy in Parapet's repository."""
    import yaml

    out: dict[str, list[str]] = {}
    for part, name in (("attacks", "deepset injections"), ("benign", "deepset benign")):
        raw = _show(mirror, PARAPET, f"schema/eval/opensource_deepset_{part}.yaml")
        if raw:
            out[name] = _unique([row["content"] for row in yaml.safe_load(raw) or []])
    return out


def skills(mirror: Path) -> list[str]:
    out = []
    for repo in SKILL_REPOS:
        for path in _ls(mirror, repo):
            if path.endswith("SKILL.md"):
                text = _show(mirror, repo, path)
                if text:
                    out.append(text)
    return _unique(out)


def own_benign() -> list[str]:
    sys.path.insert(0, str(ROOT / "tests" / "security"))
    from corpora import CORPORA, lines

    texts = [t for p in sorted(CORPORA.glob("benign_instructions*.txt")) for t in lines(p.name)]
    redteam = CORPORA.parent / "redteam"
    for p in sorted(redteam.glob("injections_benign*.txt")):
        texts += [
            ln.replace("\\n", "\n")
            for ln in p.read_text(encoding="utf-8").splitlines()
            if ln and ln[0] != "#"
        ]
    return texts


@dataclass
class Figure:
    n: int
    flagged: int
    dangerous: int

    @property
    def rate(self) -> float:
        return self.flagged / self.n if self.n else 0.0


def measure(texts: list[str], kind: str) -> Figure:
    results = [scan_text(t, "benchmark", kind=kind) for t in texts]
    return Figure(len(texts), sum(r.flagged for r in results), sum(r.verdict == "dangerous" for r in results))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--show-dev", action="store_true", help="print the dev items the scan gets wrong")
    args = ap.parse_args()
    tt = tensor_trust(args.mirror)
    if tt is None:
        sys.exit(
            f"Tensor Trust is not under {args.mirror}/{TENSOR_TRUST}/repo: fetch github:HumanCompatibleAI/"
            "tensor-trust-data with the search tool's fetch (or pass --mirror DIR) and run again."
        )
    attacks, codes = tt
    slices = [
        Slice("Tensor Trust attacks", attacks, True),
        Slice("Tensor Trust access codes (benign)", codes, False),
    ]
    extra = injecguard(args.mirror)
    for name, texts in extra.items():
        slices.append(Slice(name, texts, "attacks" in name))
    for name, texts in deepset(args.mirror).items():
        slices.append(Slice(name, texts, "injections" in name))
    gk = giskard(args.mirror)
    if gk:
        slices.append(Slice("Giskard prompt injections", gk, True))
    if not extra or not gk:
        print(
            f"note: fetch github:{INJECGUARD.replace('+', '/')} and github:{GISKARD.replace('+', '/')} for more slices"
        )

    print(f"{'slice':44} {'part':5} {'n':>5} {'flagged':>8} {'dangerous':>9}")
    test: dict[str, Figure] = {}
    for s in slices:
        for part in ("dev", "test"):
            texts = [t for t in s.texts if is_dev(t) == (part == "dev")]
            fig = measure(texts, s.kind)
            print(f"{s.name:44} {part:5} {fig.n:>5} {fig.rate:>8.1%} {fig.dangerous / max(fig.n, 1):>9.1%}")
            if part == "test":
                test[s.name] = fig
            elif args.show_dev:
                for t in texts:
                    r = scan_text(t, "dev", kind=s.kind)
                    if r.flagged != s.injection:
                        print("    ", "MISS" if s.injection else "FP", repr(t[:140]), r.reasons[:2])

    skill_texts = skills(args.mirror)
    sk = measure(skill_texts, "skill")
    print(
        f"{'real SKILL.md files (kind=skill)':44} {'all':5} {sk.n:>5} {sk.rate:>8.1%} {sk.dangerous / max(sk.n, 1):>9.1%}"
    )
    own = measure(own_benign(), "context")
    print(
        f"{'our benign corpora (tuned on)':44} {'all':5} {own.n:>5} {own.rate:>8.1%} {own.dangerous / max(own.n, 1):>9.1%}"
    )

    # The shipped thresholds were set on our own corpora; this sweep only shows the trade-off on the test parts.
    attack_scores = [scan_text(t).score for t in attacks if not is_dev(t)]
    benign_scores = [
        scan_text(t).score
        for s in slices
        if not s.injection and "deepset" not in s.name
        for t in s.texts
        if not is_dev(t)
    ]
    print(
        "\nscore threshold sweep, the score alone (the verdict also floors floods, payloads and hidden characters "
        "at caution),\nTensor Trust test attacks vs test benign; shipped caution threshold: 0.5"
    )
    for th in (0.2, 0.3, 0.4, 0.5, 0.6, 0.8):
        rec = sum(x >= th for x in attack_scores) / len(attack_scores)
        fp = sum(x >= th for x in benign_scores) / len(benign_scores)
        print(f"  >= {th:.1f}: recall {rec:6.1%}  false positives {fp:6.1%}")

    inj = test["Tensor Trust attacks"]
    benign = [
        f for s, f in zip(slices, test.values(), strict=True) if not s.injection and "deepset" not in s.name
    ]
    n_benign = sum(f.n for f in benign)
    fpr = sum(f.flagged for f in benign) / n_benign
    print(
        "\nheadline: Tensor Trust attacks (test part) against the test parts of the Tensor Trust, NotInject and "
        "WildGuard benign slices"
    )
    print(
        f"corpus=tensor-trust n_inj={inj.n} n_benign={n_benign} recall={inj.rate:.3f} fpr={fpr:.3f} "
        f"n_skills={sk.n} skills_dangerous_rate={sk.dangerous / max(sk.n, 1):.4f} "
        f"skills_flagged_rate={sk.rate:.4f} own_benign_fpr={own.rate:.3f} "
        f"deepset_recall={test.get('deepset injections', Figure(0, 0, 0)).rate:.3f} "
        f"deepset_fpr={test.get('deepset benign', Figure(0, 0, 0)).rate:.3f}"
    )


if __name__ == "__main__":
    main()
