"""All of grove's security figures in one run: each security benchmark in turn, its output as it prints, then one
line with every figure (each script's own `key=value` line, merged; the keys do not overlap).

- security_commands: dangerous-command approval on obfuscated and everyday commands (incl. held-out sets)
- security_files: file-tool confinement red team (escapes, setuid files, writes to grove's home)
- sandbox_escape: the sandbox red team per backend (sockets, disk/memory/process caps, git)
- security_secrets: redaction of realistic secrets and of benign look-alikes, and its speed
- security_corpora: the first-generation corpora (commands, secrets, injection, skills) kept as regression figures
- injection_public / skills_scan_real: need public corpora fetched into /work/.mirror; they say so when absent

Usage: python benchmarks/security.py [--skip NAME ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = (
    "security_commands",
    "security_files",
    "sandbox_escape",
    "security_secrets",
    "security_corpora",
    "injection_public",
    "skills_scan_real",
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skip", nargs="*", default=[], choices=SCRIPTS, help="benchmarks to leave out")
    args = parser.parse_args()
    figures: list[str] = []
    for name in (s for s in SCRIPTS if s not in args.skip):
        print(f"=== {name}", flush=True)
        proc = subprocess.run([sys.executable, str(HERE / f"{name}.py")], capture_output=True, text=True)
        print(proc.stdout, end="")
        lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
        if proc.returncode != 0 or not lines or "=" not in lines[-1]:
            print(f"  ({name} gave no figures: exit {proc.returncode}) {proc.stderr[-500:]}", flush=True)
            continue
        figures.append(lines[-1].strip())
    print(" ".join(figures))


if __name__ == "__main__":
    main()
