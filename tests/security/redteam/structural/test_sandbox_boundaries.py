"""Red team: from inside the sandbox, grove's home lying in the workspace (grove started in $HOME) and the
workspace paths that persist beyond it (.git/config, hooks, .envrc...) can be neither rewritten nor read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grove.sandbox import run
from grove.sandbox.runner import make_scratch
from grove.security.files.protected import existing_protected

SECRET = "api_key: sk-grove-home-secret\n"
HOME_WRITES = {
    "redirect": "echo pwned > .grove/config.yaml",
    "append": "echo pwned >> .grove/config.yaml",
    "tee": "echo pwned | tee .grove/config.yaml",
    "python": "python3 -c \"open('.grove/config.yaml','w').write('pwned')\"",
    "cp": "echo pwned > /tmp/x; cp /tmp/x .grove/config.yaml || { echo pwned > x; cp x .grove/config.yaml; }",
    "rm -rf": "rm -rf .grove",
    "mv aside": "mv .grove gone && mkdir .grove && echo pwned > .grove/config.yaml",
    "new file": "echo pwned > .grove/skills.yaml",
    "symlink swap": "ln -sfn /tmp .grove/config.yaml",
}
HOME_READS = {"cat": "cat .grove/config.yaml", "grep": "grep -r sk-grove .grove", "tar": "tar cf - .grove"}
PROTECTED_WRITES = {
    "git config": "echo '[core] fsmonitor = evil' >> .git/config",
    "git config cmd": "git config core.fsmonitor evil",
    "hook": "echo evil > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
    "hook python": "python3 -c \"open('.git/hooks/post-checkout','w').write('evil')\"",
    "envrc": "echo evil > .envrc",
    "envrc rm": "rm -f .envrc",
    "vscode tasks": "echo evil > .vscode/tasks.json",
    "gitmodules": "echo evil >> .gitmodules",
}
ATTEMPTS = (
    [f"home write: {k}" for k in HOME_WRITES]
    + [f"home read: {k}" for k in HOME_READS]
    + [f"protected write: {k}" for k in PROTECTED_WRITES]
)


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    ws = make_scratch(tmp_path)
    home = ws / ".grove"
    home.mkdir()
    (home / "config.yaml").write_text(SECRET)
    for rel, text in ((".git/config", "[core]\n"), (".git/hooks/README", "x"), (".envrc", "ok\n"),
                      (".vscode/tasks.json", "{}"), (".gitmodules", "")):  # fmt: skip
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    for d in (ws, *ws.rglob("*")):  # as root the sandbox uid writes through the group, as on a real workspace
        if os.geteuid() == 0:
            os.chown(d, -1, 64_055)
            d.chmod(0o2775 if d.is_dir() else 0o664)
    return ws, home


def _snapshot(ws: Path) -> dict[str, bytes]:
    return {p.relative_to(ws).as_posix(): p.read_bytes() for p in ws.rglob("*") if p.is_file()}


def test_home_and_protected_stay_untouched(backend: str, tmp_path: Path) -> None:
    ws, home = _workspace(tmp_path)
    assert ".git/config" in existing_protected(ws)
    escapes: list[str] = []
    for name, cmd in {**HOME_WRITES, **PROTECTED_WRITES}.items():
        before = _snapshot(ws)
        r = run(
            ["/bin/bash", "-c", cmd],
            ws,
            backend=backend,
            protect_home=home,
            read_only=existing_protected(ws),
            merge_stderr=True,
        )
        if r.refused:
            assert "grove:" in r.stdout and "GROVE_HOME" in r.stdout, r.stdout
            continue
        after = _snapshot(ws)
        watched = [k for k in before if k.startswith(".grove/") or k in (".git/config", ".envrc", ".gitmodules",
                                                                         ".vscode/tasks.json")]  # fmt: skip
        new = [k for k in after if k not in before and (k.startswith((".grove/", ".git/hooks/")))]
        if any(after.get(k) != before[k] for k in watched) or new:
            escapes.append(name)
        _restore(ws, before)
    for name, cmd in HOME_READS.items():
        r = run(
            ["/bin/bash", "-c", cmd],
            ws,
            backend=backend,
            protect_home=home,
            read_only=existing_protected(ws),
            merge_stderr=True,
        )
        if "sk-grove-home-secret" in r.stdout:
            escapes.append(f"read: {name}")
    assert escapes == [], f"{backend}: {len(escapes)} escapes: {escapes}"


def _restore(ws: Path, before: dict[str, bytes]) -> None:
    """Undo what an escape changed, so each attempt starts from the same workspace."""
    import shutil

    for extra in ("gone",):
        if (ws / extra).exists():
            shutil.rmtree(ws / extra)
    for rel, data in before.items():
        p = ws / rel
        if p.is_symlink():
            p.unlink()
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_bytes() != data:
            p.write_bytes(data)
    for p in list((ws / ".grove").rglob("*")) + list((ws / ".git" / "hooks").rglob("*")):
        if p.relative_to(ws).as_posix() not in before and p.is_file():
            p.unlink()


@pytest.fixture(params=["bwrap", "landlock", "rlimit"])
def backend(request: pytest.FixtureRequest) -> str:
    from grove.sandbox.backend import detect_backend, landlock_info

    name = str(request.param)
    if name == "bwrap" and detect_backend().name != "bwrap":
        pytest.skip(f"bwrap not usable: {detect_backend().reason}")
    if name == "landlock" and landlock_info() is None:
        pytest.skip("no Landlock ABI, or not x86_64")
    return name


SETID = {
    "chmod u+s": "cp /bin/true t && chmod u+s t",
    "chmod g+s": "cp /bin/true t && chmod g+s t",
    "chmod 6755": "cp /bin/true t && chmod 6755 t",
    "python os.chmod": "cp /bin/true t && python3 -c \"import os; os.chmod('t', 0o4755)\"",
    "python fchmod": "cp /bin/true t && python3 -c \"import os; f=os.open('t',os.O_RDONLY); os.fchmod(f, 0o2755)\"",
    "mkdir g+s": "mkdir -p dd && chmod 2775 dd && cp /bin/true dd/t && chmod 2755 dd/t",
}
ATTEMPTS += [f"setid bit: {k}" for k in SETID]


def test_no_setuid_or_setgid_file_is_left(backend: str, tmp_path: Path) -> None:
    if backend == "rlimit":
        pytest.skip("rlimit has no seccomp filter: unattended runs are refused there")
    escapes = []
    for name, cmd in SETID.items():
        (tmp_path / str(len(escapes))).mkdir(exist_ok=True)
        ws = make_scratch(tmp_path / str(len(escapes)))
        run(["/bin/bash", "-c", cmd], ws, backend=backend)
        for p in ws.rglob("t"):
            if p.stat().st_mode & 0o6000:
                escapes.append(name)
    assert escapes == [], f"{backend}: {len(escapes)} escapes: {escapes}"
