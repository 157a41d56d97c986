"""Cost of the level-0 skills index in the system prompt (cl100k tokens) at 50, 200, 1,000 and 10,000 skills.

50: the realistic library in benchmarks/data/skills/library (first 50 by name). 200 and 1,000: those 60 plus
generated skills with realistic names and descriptions ("<tool>-<task>", 20 categories), since nobody keeps 1,000
hand-written skills. Also checks byte stability: the same skills in another order give the same bytes.
Run: python benchmarks/skills_index.py [--show N]
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from grove.skills.discover import iter_skill_dirs
from grove.skills.index import estimate_tokens, render_index, token_budget
from grove.skills.skill import Skill, load_skill
from tokens import count_tokens  # benchmarks/tokens.py, beside this script

LIBRARY = Path(__file__).parent / "data" / "skills" / "library"
TOOLS = {
    "devops": "docker helm terraform ansible nginx haproxy systemd prometheus grafana vault consul traefik",
    "cloud": "aws-s3 aws-lambda gcp-gke azure-aks cloudflare cloudfront ec2 iam route53 rds",
    "git": "git-lfs git-submodules gitlab-ci gerrit monorepo pre-commit",
    "python": "django fastapi flask celery pydantic sqlalchemy poetry uv numpy pyinstaller",
    "javascript": "node npm webpack vite typescript eslint nextjs express jest playwright",
    "data": "pandas polars duckdb spark airflow dbt kafka parquet bigquery snowflake",
    "databases": "postgres mysql mongodb redis elasticsearch sqlite clickhouse cassandra",
    "ml": "pytorch sklearn xgboost huggingface onnx mlflow wandb vllm llama-cpp",
    "security": "ssh gpg tls oauth jwt selinux apparmor trivy semgrep",
    "docs": "markdown sphinx mkdocs docusaurus latex pandoc mermaid",
    "mobile": "android ios flutter react-native xcode gradle fastlane",
    "web": "react vue svelte tailwind css html graphql websocket",
    "testing": "pytest hypothesis locust k6 selenium cypress mutmut",
    "ops": "cron logrotate rsync tmux bash jq awk sed",
    "media": "ffmpeg imagemagick pillow sox opencv exiftool",
    "office": "excel word powerpoint google-sheets pdf outlook",
    "networking": "dns dhcp wireguard iptables nftables tcpdump curl",
    "observability": "opentelemetry jaeger loki sentry datadog",
    "infra": "kubernetes nomad packer vagrant proxmox kvm",
    "rust": "cargo clippy tokio serde wasm",
}
TASKS = [
    "debug",
    "setup",
    "upgrade",
    "migrate",
    "monitor",
    "backup",
    "harden",
    "tune",
    "troubleshoot",
    "automate",
]
TASKS += ["test", "deploy"]


def real_skills() -> list[Skill]:
    return [load_skill(f, "home", c) for f, c in iter_skill_dirs(LIBRARY)]


def generated(n: int, taken: set[str]) -> list[Skill]:
    out: list[Skill] = []
    combos = [(cat, tool, task) for cat, tools in TOOLS.items() for tool in tools.split() for task in TASKS]
    random.Random(7).shuffle(combos)
    for cat, tool, task in combos:
        name = f"{tool}-{task}"
        if name in taken:
            continue
        taken.add(name)
        desc = f"{task.capitalize()} {tool} step by step, with the checks that catch the usual mistakes. Use when asked to {task} {tool}."
        out.append(Skill(name, desc, Path("/x") / name, "home", {}, "", category=cat))
        if len(out) == n:
            return out
    for variant in ("ci", "prod", "local", "cloud", "legacy", "multi", "fast", "safe", "team"):
        for cat, tool, task in combos:
            name = f"{tool}-{task}-{variant}"
            if name in taken:
                continue
            taken.add(name)
            desc = (
                f"{task.capitalize()} {tool} for {variant} setups, with the checks that catch the usual "
                f"mistakes. Use when asked to {task} {tool} ({variant})."
            )
            out.append(Skill(name, desc, Path("/x") / name, "home", {}, "", category=cat))
            if len(out) == n:
                return out
    raise SystemExit(f"cannot generate {n} distinct skills")


def library(n: int, real: list[Skill]) -> list[Skill]:
    if n <= len(real):
        return sorted(real, key=lambda s: s.name)[:n]
    return real + generated(n - len(real), {s.name for s in real})


def main() -> None:
    real = real_skills()
    figures: dict[str, int] = {}
    stable = True
    for n in (50, 200, 1000, 10000, -10000):
        skills = library(abs(n), real)
        if n < 0:  # an imported collection: thousands of small groups (one per author)
            skills = [
                Skill(s.name, s.description, s.path, s.source, {}, "", category=f"author-{i % 2000}")
                for i, s in enumerate(skills)
            ]
        text = render_index(skills)
        shuffled = skills[:]
        random.Random(n).shuffle(shuffled)
        stable &= render_index(shuffled) == text
        tokens = count_tokens(text)
        key = f"index_tokens_{abs(n)}" + ("_2000groups" if n < 0 else "")
        figures[key] = tokens
        layout = (
            "compact"
            if "too many to list" in text
            else "described"
            if "\n- " in text
            else "folded"
            if "more\n" in text
            else "names by category"
        )
        print(
            f"{abs(n):6} skills{' (2,000 groups)' if n < 0 else ''}: {tokens:5} tokens, {len(text):6} chars, "
            f"layout: {layout}, budget {token_budget(abs(n))} (estimated {estimate_tokens(text)})"
        )
    if "--show" in sys.argv:
        print(render_index(library(int(sys.argv[sys.argv.index("--show") + 1]), real)))
    print("Hermes Agent, measured in shared/notes/peers.md: ~1,460 tokens at 50 skills, ~4,480 at 200")
    print(" ".join(f"{k}={v}" for k, v in figures.items()) + f" byte_stable={int(stable)}")


if __name__ == "__main__":
    main()
