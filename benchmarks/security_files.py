"""File-tool confinement: the frozen red-team attempts (tests/security/redteam/files_attempts.yaml, 18 of them held
out, plus files_attempts_postbuild.yaml, probes written after the defence and reported apart) run through
read_file / write_file / patch / search_files with nobody to ask, with an approver who says deny, with one who
says yes, and with approvals off; plus everyday acts that must keep working.

Escapes count in the first two modes; setuid files, writes to grove's home and leaks of config/state.db/environ
count in all four. When run as root it also runs every attempt as an unprivileged uid (a forked child), since
the tools act differently there.

Usage: python benchmarks/security_files.py [--show] [--only ID] [--no-child]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "security" / "redteam"))

import files_harness as fh

from grove.config import Settings
from grove.security.approval.policy import SafetyPolicy
from grove.tools import files
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError

CHILD_UID = 64_321  # an unprivileged uid with no passwd entry, for the non-root run


def policy_for(mode: str) -> SafetyPolicy:
    if mode == "unattended":
        return SafetyPolicy(unattended=True)
    if mode == "deny":
        return SafetyPolicy(approver=lambda _r: "deny", approval_timeout=5)
    if mode == "approve":
        return SafetyPolicy(approver=lambda _r: "once", approval_timeout=5)
    return SafetyPolicy(approval_mode="off")


def call(arena: fh.Arena, mode: str, tool: str, args: dict[str, Any]) -> str:
    ctx = ToolContext(workspace=arena.ws, policy=policy_for(mode), settings=Settings(home=arena.home))
    try:
        return getattr(files, tool)(ctx, **args)
    except ToolError as e:
        return f"error: {e}"


# everyday acts: (name, tool, args, text the result must contain); run in order in one workspace, unattended
EVERYDAY: list[tuple[str, str, dict[str, Any], str]] = [
    ("write relative", "write_file", {"path": "notes.txt", "content": "alpha\nbeta\n"}, "wrote"),
    ("read relative", "read_file", {"path": "notes.txt"}, "alpha"),
    ("write nested, new parents", "write_file", {"path": "src/pkg/mod.py", "content": "X = 1\n"}, "wrote"),
    ("patch", "patch", {"path": "src/pkg/mod.py", "old_string": "X = 1", "new_string": "X = 2"}, "patched"),
    ("read after patch", "read_file", {"path": "./src/pkg/mod.py"}, "X = 2"),
    ("absolute path inside", "read_file", {"path": "{ws}/notes.txt"}, "alpha"),
    ("dotdot that stays inside", "read_file", {"path": "src/../notes.txt"}, "beta"),
    ("search", "search_files", {"pattern": "X = 2"}, "src/pkg/mod.py:1"),
    ("list", "search_files", {"pattern": "", "path": "src"}, "src/pkg/mod.py"),
    ("glob", "search_files", {"pattern": "alpha", "glob": "*.txt"}, "notes.txt:1"),
    ("unicode name", "write_file", {"path": "données/été.md", "content": "ok\n"}, "wrote"),
    ("read unicode name", "read_file", {"path": "données/été.md"}, "ok"),
    ("name with spaces", "write_file", {"path": "my docs/a b.txt", "content": "sp\n"}, "wrote"),
    ("overwrite", "write_file", {"path": "notes.txt", "content": "gamma\n"}, "wrote"),
    ("read readme", "read_file", {"path": "readme.md"}, "hello"),
    ("dotfile in workspace", "write_file", {"path": ".env.example", "content": "A=1\n"}, "wrote"),
]


def everyday(base: Path) -> tuple[int, list[str]]:
    arena = fh.build_arena(base)
    os.symlink("src", arena.ws / "code")  # a link that stays inside
    os.symlink(str(arena.ws / "notes.txt"), arena.ws / "abs-link.txt")
    steps = [
        *EVERYDAY,
        ("read through inside link", "read_file", {"path": "code/pkg/mod.py"}, "X = 2"),
        ("read through absolute inside link", "read_file", {"path": "abs-link.txt"}, "gamma"),
        ("write through inside link", "write_file", {"path": "code/new.py", "content": "n\n"}, "wrote"),
    ]
    failures = []
    for name, tool, args, expect in steps:
        filled = {k: arena.fill(v) if isinstance(v, str) else v for k, v in args.items()}
        text = call(arena, "unattended", tool, filled)
        if expect not in text:
            failures.append(f"{name}: {text[:160]}")
    tool_file = arena.ws / "run.sh"
    call(arena, "unattended", "write_file", {"path": "run.sh", "content": "#!/bin/sh\n"})
    os.chmod(tool_file, 0o755)
    call(arena, "unattended", "write_file", {"path": "run.sh", "content": "#!/bin/sh\necho\n"})
    if tool_file.stat().st_mode & 0o777 != 0o755:
        failures.append(f"exec bit lost: {oct(tool_file.stat().st_mode)}")
    return len(steps) + 1 - len(failures), failures


def run_all(only: str | None) -> dict[str, Any]:
    postbuild = {a.id for a in fh.load_attempts(fh.POSTBUILD)}
    attempts = [
        a for a in [*fh.load_attempts(), *fh.load_attempts(fh.POSTBUILD)] if only is None or a.id == only
    ]
    is_root = os.geteuid() == 0
    os.environ[fh.ENV_VAR] = fh.ENV_SECRET
    report: dict[str, Any] = {"rows": [], "skipped": []}
    with tempfile.TemporaryDirectory(prefix="grove-files-bench-") as tmp:
        os.chmod(tmp, 0o755)
        for n, attempt in enumerate(attempts):
            if attempt.needs_root and not is_root:
                report["skipped"].append(attempt.id)
                continue
            for mode in fh.MODES:
                base = Path(tmp) / f"{n}-{mode}"
                os.environ["HOME"] = str(base / "userhome")
                out = fh.run_attempt(attempt, base, mode, call)
                part = "postbuild" if attempt.id in postbuild else "heldout" if attempt.heldout else "dev"
                report["rows"].append({**out.__dict__, "heldout": attempt.heldout, "part": part})
                fh.clean(base)
        ok, failures = everyday(Path(tmp) / "everyday")
        report["everyday_ok"], report["everyday_failures"] = ok, failures
        report["everyday_total"] = ok + len(failures)
    return report


def summarise(label: str, report: dict[str, Any], show: bool) -> dict[str, Any]:
    rows = report["rows"]
    ids = {r["attempt"] for r in rows}
    held = {r["attempt"] for r in rows if r["part"] == "heldout"}
    post = {r["attempt"] for r in rows if r["part"] == "postbuild"}
    escaped = {r["attempt"] for r in rows if r["escaped"]}
    sets = {
        "escapes": escaped - held - post,
        "heldout_escapes": escaped & held,
        "postbuild_escapes": escaped & post,
        "setuid": {r["attempt"] for r in rows if r["setuid"]},
        "home_writes": {r["attempt"] for r in rows if r["home_writes"]},
        "hard_leaks": {r["attempt"] for r in rows if r["hard_leaks"]},
        "special": {r["attempt"] for r in rows if r["special"]},
        "crashes": {r["attempt"] for r in rows if r["crashed"]},
        "hangs": {r["attempt"] for r in rows if r["hung"]},
    }
    fig: dict[str, Any] = {
        "sets": sets,
        "attempts": len(ids - post),
        "postbuild": len(post),
        "postbuild_escapes": len(escaped & post),
        "escapes": len(escaped - held - post),
        "heldout": len(held),
        "heldout_escapes": len(escaped & held),
        "setuid": len({r["attempt"] for r in rows if r["setuid"]}),
        "home_writes": len({r["attempt"] for r in rows if r["home_writes"]}),
        "hard_leaks": len({r["attempt"] for r in rows if r["hard_leaks"]}),
        "special": len({r["attempt"] for r in rows if r["special"]}),
        "crashes": len({r["attempt"] for r in rows if r["crashed"]}),
        "hangs": len({r["attempt"] for r in rows if r["hung"]}),
        "everyday_ok": report["everyday_ok"],
        "everyday_total": report["everyday_total"],
    }
    print(f"\n== {label}: {fig['attempts']} attempts x {len(fh.MODES)} modes ({', '.join(fh.MODES)})")
    print(
        f"   escapes (unattended or deny): {fig['escapes']}/{fig['attempts'] - fig['heldout']} dev, "
        f"{fig['heldout_escapes']}/{fig['heldout']} held out, {fig['postbuild_escapes']}/{fig['postbuild']} post-build probes"
    )
    print(
        f"   setuid files written: {fig['setuid']}; writes to grove's home: {fig['home_writes']}; "
        f"config/state.db/environ leaks: {fig['hard_leaks']}"
    )
    print(f"   FIFOs/devices clobbered: {fig['special']}; crashes: {fig['crashes']}; hangs: {fig['hangs']}")
    print(
        f"   everyday acts working: {report['everyday_ok']}/{report['everyday_total']}; skipped (need root): {report['skipped']}"
    )
    for f in report["everyday_failures"]:
        print(f"   everyday FAILED: {f}")
    if show:
        for r in rows:
            bad = r["escaped"] + r["setuid"] + r["home_writes"] + r["hard_leaks"] + r["special"]
            if bad or r["crashed"] or r["hung"]:
                print(f"   {r['attempt']:<28} {r['mode']:<10} {bad[:2]} {r['crashed'][:80]} hung={r['hung']}")
    return fig


def child_report(only: str | None) -> dict[str, Any] | None:
    """Run the attempts as an unprivileged uid in a forked child (root only); its report comes back as JSON."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 0
        try:
            os.setgroups([])
            os.setgid(CHILD_UID)
            os.setuid(CHILD_UID)
            tempfile.tempdir = None
            os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="grove-files-child-", dir="/tmp")
            data = json.dumps(run_all(only)).encode()
            with os.fdopen(write, "wb") as f:
                f.write(data)
        except BaseException as e:
            sys.stderr.write(f"child run failed: {e}\n")
            code = 1
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data) if data else None


def main() -> None:
    show = "--show" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    start = time.perf_counter()
    label = "as root" if os.geteuid() == 0 else f"as uid {os.geteuid()}"
    figs = [summarise(label, run_all(only), show)]
    if os.geteuid() == 0 and "--no-child" not in sys.argv:
        child = child_report(only)
        if child is None:
            print("\n== as an unprivileged uid: could not run (see the error above)")
        else:
            figs.append(summarise(f"as uid {CHILD_UID} (non-root)", child, show))
    # an attempt counts once however many runs it got through in
    total = {k: len(set().union(*(f["sets"][k] for f in figs))) for k in figs[0]["sets"]}
    total["everyday_ok"] = min(f["everyday_ok"] for f in figs)
    print(f"\n{time.perf_counter() - start:.1f} s; runs: {len(figs)}")
    print(
        f"file_attempts={figs[0]['attempts']} file_escapes={total['escapes']} "
        f"heldout={figs[0]['heldout']} heldout_escapes={total['heldout_escapes']} "
        f"postbuild={figs[0]['postbuild']} postbuild_escapes={total['postbuild_escapes']} setuid_files={total['setuid']} "
        f"home_writes={total['home_writes']} hard_leaks={total['hard_leaks']} special_clobbers={total['special']} "
        f"crashes={total['crashes']} hangs={total['hangs']} everyday_ok={total['everyday_ok']}/{figs[0]['everyday_total']} runs={len(figs)}"
    )


if __name__ == "__main__":
    main()
