"""Trains the learned injection signal (src/grove/security/injection/model_weights.json) on public corpora that
benchmarks/injection_public.py does NOT evaluate on, plus grove's own tuning corpora and source. Reads fetched
mirrors (never commits their text); needs numpy and scipy (training only). Tensor Trust, NotInject, WildGuard,
deepset, Giskard and BIPIA texts are read only to drop their exact and near copies from the training set.
Usage: python benchmarks/injection_train.py [--mirror /work/.mirror] [--dims 16384] [--l2 1e-6] [--validate]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import string
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from scipy import sparse
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import injection_public as pub  # noqa: E402
from grove.security.injection import model as im  # noqa: E402
from grove.security.injection.normalize import normalize  # noqa: E402

PARAPET = "Parapet-Tech+parapet"
# Parapet's eval YAMLs: attacks and benign prompts gathered from public data sets (deepset and Giskard are left
# out: injection_public.py reports them). In l1_holdout.yaml the NotInject rows are dropped (an evaluation set
# only); its WildGuardMix "unharmful" rows stay, less any text that injection_public.py evaluates on.
PARAPET_FILES = [
    "schema/eval/l1_holdout.yaml",  # imoxto, Gandalf, HackAPrompt, ChatGPT jailbreaks | no_robots, UltraChat, ...
    "schema/eval/opensource_gandalf_attacks.yaml",  # Lakera gandalf_ignore_instructions
    "schema/eval/opensource_mosscap_attacks.yaml",  # Lakera Mosscap game log (rows of MOSSCAP_MIN_WORDS or more)
    "schema/eval/l1_attacks.yaml",  # Parapet's own small sets: override phrasings | everyday requests
    "schema/eval/l1_benign.yaml",
    "schema/eval/l3_inbound_attacks.yaml",  # ... and tool-output attacks | lookalikes ("skip previously failing tests")
    "schema/eval/l3_inbound_benign.yaml",
]
# Mosscap rows are unfiltered game input: the shortest are password guesses and small talk ("zenith") labelled as
# attacks, which would teach that any short word is one. The sources were chosen by leave-one-corpus-out recall
# (HackAPrompt and Gandalf held out in turn) at SHIFT_FP, never by a Tensor Trust figure.
MOSSCAP_MIN_WORDS = 4
# utkusen/promptmap's attack rules (YAML files with a `prompt`): hijacking, prompt stealing, jailbreak, harmful
PROMPTMAP = "utkusen+promptmap"
EXCLUDED_DESCRIPTIONS = ("NotInject",)
# Agent-skill markdown from collections the benchmark does NOT read (it reads SKILL_REPOS of injection_public).
SKILL_MD_REPOS = ["alirezarezvani+claude-skills", "vercel-labs+agent-skills"]
OWN_ATTACKS = [
    "tests/security/corpora/injections.txt",
    "tests/security/corpora/injections_signals.txt",
    "tests/security/redteam/injections_attacks.txt",
]
OWN_BENIGN = [
    "tests/security/corpora/benign_instructions.txt",
    "tests/security/corpora/benign_instructions_signals.txt",
    "tests/security/redteam/injections_benign.txt",
]
OWN_WEIGHT = 10.0
# The model's flag bar: the logit that this share of held-out benign training text reaches. Fixed before Tensor Trust
# was scored with it: half a point of the 3% false-positive budget, the rest left to the rules and to domain shift.
SHIFT_FP = 0.005
NEAR_DUP = 0.5  # word-trigram Jaccard with any evaluated text at or above which a training text is dropped
SHORT_WEIGHT = 0.25  # many texts, few words each: about a tenth of the benign weight
MAX_MD_CHARS = 20_000  # per markdown file: long references would otherwise dominate the benign windows


@dataclass
class Source:
    name: str
    texts: list[str]
    label: int
    weight: float = 1.0  # per text, before the two classes are balanced


def _commit(mirror: Path, repo: str) -> str:
    out = subprocess.run(
        ["git", "--git-dir", str(mirror / repo / "repo"), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip() or "absent"


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def _load_yaml(raw: str) -> list[dict]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(raw, Loader=loader) or []


def _own(rel: str) -> list[str]:
    text = (ROOT / rel).read_text(encoding="utf-8")
    return [ln.replace("\\n", "\n") for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def gather_sources(mirror: Path) -> list[Source]:
    attacks: dict[str, list[str]] = {}
    benign: dict[str, list[str]] = {}
    for path in PARAPET_FILES:
        raw = pub._show(mirror, PARAPET, path)
        if raw is None:
            sys.exit(f"{PARAPET} is not under {mirror}: fetch github:Parapet-Tech/parapet first")
        for row in _load_yaml(raw):
            text, desc = row.get("content"), str(row.get("description", ""))
            if not isinstance(text, str) or any(x in desc for x in EXCLUDED_DESCRIPTIONS):
                continue
            if "mosscap" in path and len(text.split()) < MOSSCAP_MIN_WORDS:
                continue
            where = attacks if row.get("label") == "malicious" else benign
            part = " (WildGuardMix rows)" if "WildGuard" in desc else ""
            where.setdefault(f"parapet:{path.rsplit('/', 1)[-1]}{part}", []).append(text)
    for path in pub._ls(mirror, PROMPTMAP):
        if path.startswith("rules/") and path.endswith(".yaml"):
            rule = yaml.safe_load(pub._show(mirror, PROMPTMAP, path) or "")
            if isinstance(rule, dict) and isinstance(rule.get("prompt"), str):
                attacks.setdefault(f"{PROMPTMAP}:rules/*.yaml", []).append(rule["prompt"])
    for repo in SKILL_MD_REPOS:
        for path in pub._ls(mirror, repo):
            if path.endswith(".md"):
                text = pub._show(mirror, repo, path)
                if text:
                    benign.setdefault(f"{repo}:*.md", []).append(text[:MAX_MD_CHARS])
    attacks["grove own attack corpora"] = [t for rel in OWN_ATTACKS for t in _own(rel)]
    benign["grove own benign corpora"] = [t for rel in OWN_BENIGN for t in _own(rel)]
    # grove's own code and docs: what the file scan reads most. The security package and the tests hold attack
    # strings on purpose, so they stay out.
    own_files = [
        p
        for p in sorted((ROOT / "src").rglob("*.py"))
        + sorted(ROOT.glob("*.md"))
        + sorted(ROOT.glob("docs/**/*.md"))
        if "security" not in p.parts
    ]
    benign["grove src/*.py and docs"] = [p.read_text(encoding="utf-8")[:MAX_MD_CHARS] for p in own_files]
    benign["short values (words, identifiers, passwords)"] = short_values(benign, own_files)
    out = [Source(n, t, 1) for n, t in attacks.items()] + [Source(n, t, 0) for n, t in benign.items()]
    for src in out:
        if src.name.startswith("short values"):
            src.weight = SHORT_WEIGHT
        if src.name.startswith("grove own"):
            # Few lines, but the closest to what grove scans (agent instructions and their lookalikes).
            src.weight = OWN_WEIGHT
    return out


def short_values(benign: dict[str, list[str]], own_files: list[Path]) -> list[str]:
    """Benign one- to three-word inputs: a tool result, a name, a password. Every other source is sentences, and
    the game logs' password guesses would otherwise teach that any short odd string is an attack. Deterministic:
    the opening words of benign prompts, identifiers of grove's source, and seeded random passwords."""
    rng = random.Random(20261130)
    out = []
    for name, texts in benign.items():
        if name.startswith("parapet:"):
            out += [" ".join(t.split()[: 1 + i % 3]) for i, t in enumerate(texts)]
    names = sorted(
        {w for p in own_files if p.suffix == ".py" for w in re.findall(r"[A-Za-z_]\w{3,}", p.read_text())}
    )
    out += rng.sample(names, min(1000, len(names)))
    alphabet = string.ascii_letters + string.digits + "!@#$%^&*-_+=."
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(4, 20))) for _ in range(1000)]
    return out


def _trigrams(text: str) -> set[str]:
    words = re.findall(r"\w+", text.lower())
    return {" ".join(words[i : i + 3]) for i in range(max(1, len(words) - 2))}


class EvaluationTexts:
    """Every text injection_public.py evaluates on, to drop from training, exact or near copies (read for nothing
    else): Tensor Trust attackers reused and edited each other's attacks, and some collections copy them."""

    def __init__(self, mirror: Path) -> None:
        tt = pub.tensor_trust(mirror)
        if tt is None:
            sys.exit("Tensor Trust mirror absent: it is needed to PROVE the training set holds none of it")
        texts = [
            t
            for group in (*tt, *pub.injecguard(mirror).values(), *pub.deepset(mirror).values())
            for t in group
        ]
        texts += pub.giskard(mirror)
        self.keys = {_key(t) for t in texts}
        self.grams = [_trigrams(t) for t in texts]
        self.index: dict[str, list[int]] = {}
        for i, grams in enumerate(self.grams):
            for g in grams:
                self.index.setdefault(g, []).append(i)

    def holds(self, text: str) -> bool:
        if _key(text) in self.keys:
            return True
        grams = _trigrams(text)
        shared: dict[int, int] = {}
        for g in grams:
            for i in self.index.get(g, ()):
                shared[i] = shared.get(i, 0) + 1
        return any(c / (len(grams) + len(self.grams[i]) - c) >= NEAR_DUP for i, c in shared.items())


def featurize(texts: list[str], dims: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    """One row per scored window (as at inference), and the index of the text each row belongs to."""
    rows, cols, vals, owner = [], [], [], []
    r = 0
    for i, text in enumerate(texts):
        toks = im.tokens(normalize(text).text)
        if not toks:
            continue
        ids = im.feature_ids(toks, dims)
        for s, e in im.windows(len(toks)):
            scale = 1 / np.sqrt(e - s)
            for a, b in ids[s:e]:
                rows += [r, r]
                cols += [a, b]
                vals += [scale, scale]
            owner.append(i)
            r += 1
    x = sparse.csr_matrix((vals, (rows, cols)), shape=(r, dims), dtype=np.float64)
    x.sum_duplicates()
    return x, np.array(owner)


def fit(x: sparse.csr_matrix, y: np.ndarray, sw: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    dims = x.shape[1]
    total = sw.sum()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        b, w = theta[0], theta[1:]
        z = x @ w + b
        p = 1 / (1 + np.exp(-z))
        ll = sw * (np.logaddexp(0, z) - y * z)
        g = sw * (p - y)
        grad = np.concatenate([[g.sum()], x.T @ g]) / total
        grad[1:] += l2 * w
        return ll.sum() / total + 0.5 * l2 * w @ w, grad

    res = minimize(loss, np.zeros(dims + 1), jac=True, method="L-BFGS-B", options={"maxiter": 400})
    return float(res.x[0]), res.x[1:]


def text_scores(x: sparse.csr_matrix, owner: np.ndarray, n: int, b: float, w: np.ndarray) -> np.ndarray:
    z = x @ w + b
    out = np.full(n, -np.inf)
    np.maximum.at(out, owner, z)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--dims", type=int, default=16384)
    ap.add_argument("--l2", type=float, default=1e-6)  # of 1e-3..1e-6: best held-out recall above the shift
    ap.add_argument("--validate", action="store_true", help="only the held-out figures; writes nothing")
    args = ap.parse_args()
    sources = gather_sources(args.mirror)
    banned = EvaluationTexts(args.mirror)
    texts, labels, weights_, split = [], [], [], []
    for src in sources:
        uniq = list(dict.fromkeys(t.strip() for t in src.texts if t.strip()))
        kept = [t for t in uniq if not banned.holds(t)]
        print(f"{src.name:50} label={src.label} texts={len(kept):6} dropped_as_eval={len(uniq) - len(kept)}")
        for t in kept:
            texts.append(t)
            labels.append(src.label)
            weights_.append(src.weight)
            split.append(hashlib.sha256(t.encode()).digest()[0] < 51)
    repos = [PARAPET, PROMPTMAP, *SKILL_MD_REPOS]
    print("commits: " + ", ".join(f"{r}@{_commit(args.mirror, r)}" for r in repos))
    labels_a = np.array(labels)
    split_a = np.array(split)
    x, owner = featurize(texts, args.dims)
    y = labels_a[owner].astype(float)
    # Each class weighs the same in total, whatever the number of windows.
    tw = np.array(weights_)[owner]
    sw = tw * np.where(y == 1, 0.5 / tw[y == 1].sum(), 0.5 / tw[y == 0].sum()) * len(y)
    # First fit without the held-out fifth of every source: it gives the validation figures and the least shift
    # (the logit that held-out benign text passes only 0.1% of the time). Then the shipped fit uses everything.
    held = split_a[owner]
    b, w = fit(x[~held], y[~held], sw[~held], args.l2)
    s = text_scores(x, owner, len(texts), b, w)
    att, ben = s[split_a & (labels_a == 1)], s[split_a & (labels_a == 0)]
    print(
        f"windows={x.shape[0]} texts={len(texts)} attacks={int(labels_a.sum())} dims={args.dims} l2={args.l2}"
    )
    validation = {}
    print(
        f"validation: highest held-out benign logit {ben.max():.2f}, recall above it {np.mean(att > ben.max()):.3f}"
    )
    for fp in (0.001, 0.005, 0.01, 0.03):
        th = float(np.quantile(ben, 1 - fp))
        validation[f"{fp}"] = {"logit": round(th, 3), "recall": round(float(np.mean(att >= th)), 3)}
        print(
            f"validation: at {fp:.1%} held-out benign FP (logit {th:.2f}) held-out recall {np.mean(att >= th):.3f}"
        )
    shift = float(np.quantile(ben, 1 - SHIFT_FP))
    print(
        f"validation: shift {shift:.2f} ({SHIFT_FP:.1%} held-out benign FP), held-out recall {np.mean(att >= shift):.3f}"
    )
    if args.validate:
        return
    b, w = fit(x, y, sw, args.l2)
    # The strong bar, above which the model alone may refuse: above every held-out benign text and every text of
    # grove's own benign corpora (held-out files included). Between the shift and it the model says "caution".
    own = pub.own_benign()
    ox, oowner = featurize(own, args.dims)
    own_max = float(text_scores(ox, oowner, len(own), b, w).max())
    strong = max(float(ben.max()), own_max + 0.05, shift)
    print(
        f"highest logit on grove's own benign corpora {own_max:.2f}; shift {shift:.2f}; strong {strong:.2f}"
    )
    out = {
        "about": "hashed word/pair logistic weights; trained by benchmarks/injection_train.py",
        "sources": {
            f"{src.name} ({'attacks' if src.label else 'benign'})": len(src.texts) for src in sources
        },
        "commits": {r: _commit(args.mirror, r) for r in repos},
        "l2": args.l2,
        "validation": validation,
        "shift": round(shift, 3),
        "strong": round(strong, 3),
        "bias": round(b, 4),
        "weights": [round(float(v), 3) for v in w],
    }
    im.WEIGHTS_FILE.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {im.WEIGHTS_FILE} ({im.WEIGHTS_FILE.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
