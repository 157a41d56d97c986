"""CI step: on the base install (no extras), every command's --help and a scripted one-shot run must work.

Run with the interpreter of a virtualenv that has only `pip install -e .`. It walks the app's command tree, so a
new command or sub-command is covered without editing this file."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path


def command_paths() -> list[list[str]]:
    import typer.main

    from grove.cli.main import build_app

    group = typer.main.get_command(build_app())
    paths: list[list[str]] = [[]]

    def walk(cmd, prefix: list[str]) -> None:  # type: ignore[no-untyped-def]
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(group, [])
    return paths


def grove(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("grove")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=120)


def main() -> int:
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GROVE_HOME": str(Path(tmp) / "home")}
        paths = command_paths()
        for path in paths:
            proc = grove(*path, "--help", env=env)
            if proc.returncode != 0 or "Usage" not in proc.stdout:
                failures.append(
                    f"grove {' '.join(path)} --help: exit {proc.returncode}\n{proc.stderr[-2000:]}"
                )
        script = Path(tmp) / "hello.yaml"
        script.write_text("- text: Hello from the base install.\n")
        proc = grove("run", "say hello", "-m", f"script:{script}", env=env)
        if proc.returncode != 0 or proc.stdout.strip() != "Hello from the base install.":
            failures.append(
                f"grove run -m script: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr[-2000:]}"
            )
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"base install: {len(paths)} --help pages and a scripted run; {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
