"""Skills hub and moving in, timed as a user runs them (the `grove` CLI in a fresh GROVE_HOME each):
install N skills from a local git repository, `outdated` on them, `update` after one skill changed; then
`grove import hermes` (dry run, then --apply) of a synthetic Hermes home with N skills and S sessions of 20 messages.
Run: python benchmarks/hub_import.py [--skills N] [--sessions S]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GIT = ["git", "-c", "user.email=b@example.org", "-c", "user.name=b", "-c", "commit.gpgsign=false"]


def skill(folder: Path, name: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Use {name} when the user asks to {name.replace('-', ' ')}.\n---\n\n"
        f"# {name}\n\n{body}\n\n1. Read the input.\n2. Run `make {name}`.\n3. Report what changed.\n"
    )
    (folder / "references").mkdir(exist_ok=True)
    (folder / "references" / "notes.md").write_text(f"# {name} notes\n\nSee the team wiki.\n")


def timed(env: dict[str, str], *args: str) -> tuple[float, str]:
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grove", *args], env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"grove {' '.join(args)} failed: {done.stderr}")
    return time.perf_counter() - t, done.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=100)
    ap.add_argument("--sessions", type=int, default=200)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        repo = base / "repo"
        for i in range(a.skills):
            skill(repo / "skills" / f"cat{i % 5}" / f"task-{i}", f"task-{i}", f"Task {i} of the collection.")
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
        subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "one"], check=True)
        env = {**os.environ, "GROVE_HOME": str(base / "g1")}
        t_install, out = timed(env, "skills", "install", str(repo))
        installed = sum(line.startswith("imported") for line in out.splitlines())
        t_outdated_same, _ = timed(env, "skills", "outdated")
        skill(repo / "skills" / "cat0" / "task-0", "task-0", "Task 0, second edition.")
        subprocess.run([*GIT, "-C", str(repo), "commit", "-qam", "two"], check=True)
        t_outdated_new, out = timed(env, "skills", "outdated")
        outdated = sum(" outdated " in line for line in out.splitlines())
        t_update, _ = timed(env, "skills", "update", "task-0")

        hermes = base / ".hermes"
        for i in range(a.skills):
            skill(hermes / "skills" / f"cat{i % 5}" / f"h-{i}", f"h-{i}", f"Hermes skill {i}.")
        (hermes / "memories").mkdir()
        (hermes / "memories" / "MEMORY.md").write_text(
            "\n§\n".join(f"Fact {i}: the box {i} runs Debian." for i in range(30))
        )
        db = sqlite3.connect(hermes / "state.db")
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT, model TEXT, started_at REAL);"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, timestamp REAL);"
        )
        for s in range(a.sessions):
            db.execute(
                "INSERT INTO sessions VALUES (?, ?, 'm', ?)", (f"s{s}", f"session {s}", 1.7e9 + s * 100)
            )
            db.executemany(
                "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
                [
                    (
                        f"s{s}",
                        "user" if m % 2 == 0 else "assistant",
                        f"message {m} of session {s} " * 5,
                        1.7e9 + s * 100 + m,
                    )
                    for m in range(20)
                ],
            )
        db.commit()
        db.close()
        env = {**os.environ, "GROVE_HOME": str(base / "g2")}
        t_dry, _ = timed(env, "import", "hermes", str(hermes))
        t_apply, out = timed(env, "import", "hermes", str(hermes), "--apply")
        tail = out.strip().splitlines()[-1]
    print(
        f"install {installed} skills from a git repo: {t_install:.2f} s; outdated (no news) {t_outdated_same:.2f} s;"
    )
    print(
        f"outdated after a commit {t_outdated_new:.2f} s ({outdated} outdated); update one skill {t_update:.2f} s"
    )
    print(f"grove import hermes ({a.skills} skills, 30 memory entries, {a.sessions} sessions x 20 messages):")
    print(f"dry run {t_dry:.2f} s; --apply {t_apply:.2f} s; report: {tail}")
    print(
        f"skills={a.skills} install_s={t_install:.2f} outdated_s={t_outdated_same:.2f} outdated_after_commit_s="
        f"{t_outdated_new:.2f} update_s={t_update:.2f} sessions={a.sessions} import_dry_s={t_dry:.2f} "
        f"import_apply_s={t_apply:.2f}"
    )


if __name__ == "__main__":
    main()
