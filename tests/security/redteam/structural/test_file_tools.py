"""Red team: file tools reaching a path that runs later (git config and hooks, .envrc, ...) by any spelling need
approval (refused unattended, asked with an explanation attended); grove's home inside the workspace is never
written; as root in a root-owned folder the workspace is writable while outside stays refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from grove.config import Settings
from grove.security.approval.policy import SafetyPolicy
from grove.tools import files
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError

HOOK = ".git/hooks/pre-commit"
# (name, setup steps, tool, args, the file that must not change, relative to the workspace)
PROTECTED: list[tuple[str, list[tuple[str, str, str]], str, dict[str, Any], str]] = [
    (
        "config",
        [],
        "write_file",
        {"path": ".git/config", "content": "[core]\nfsmonitor = id\n"},
        ".git/config",
    ),
    (
        "config-patch",
        [],
        "patch",
        {"path": ".git/config", "old_string": "bare", "new_string": "x"},
        ".git/config",
    ),
    ("hook-new", [], "write_file", {"path": HOOK, "content": "#!/bin/sh\nid\n"}, HOOK),
    ("hook-dot-slashes", [], "write_file", {"path": "./.git//hooks/./pre-commit", "content": "id"}, HOOK),
    ("hook-dotdot", [], "write_file", {"path": "sub/../.git/hooks/pre-commit", "content": "id"}, HOOK),
    ("hook-abs", [], "write_file", {"path": "{ws}/.git/hooks/pre-commit", "content": "id"}, HOOK),
    (
        "hook-case",
        [],
        "write_file",
        {"path": ".GIT/hooks/pre-commit", "content": "id"},
        ".GIT/hooks/pre-commit",
    ),
    (
        "hook-trailing-dot",
        [],
        "write_file",
        {"path": ".git./hooks/post-checkout", "content": "id"},
        ".git./hooks/post-checkout",
    ),
    (
        "hooks-dir-new-folders",
        [("rmdir", ".git/hooks", "")],
        "write_file",
        {"path": ".git/hooks/sub/../pre-push", "content": "id"},
        ".git/hooks/pre-push",
    ),
    (
        "link-to-hooks",
        [("symlink", "h", ".git/hooks")],
        "write_file",
        {"path": "h/pre-commit", "content": "id"},
        HOOK,
    ),
    (
        "link-to-config",
        [("symlink", "c", ".git/config")],
        "write_file",
        {"path": "c", "content": "x"},
        ".git/config",
    ),
    (
        "abs-link-to-git",
        [("symlink", "g", "{ws}/.git")],
        "write_file",
        {"path": "g/config", "content": "x"},
        ".git/config",
    ),
    (
        "git-is-a-link",
        [("mvgit", "realgit", "")],
        "write_file",
        {"path": "realgit/hooks/pre-commit", "content": "id"},
        "realgit/hooks/pre-commit",
    ),
    (
        "gitdir-file",
        [("gitdir", "other", "")],
        "write_file",
        {"path": "other/config", "content": "x"},
        "other/config",
    ),
    ("gitdir-file-write", [], "write_file", {"path": "sub/.git", "content": "gitdir: ../evil\n"}, "sub/.git"),
    (
        "replace-dot-git-file",
        [("gitdir", "other", "")],
        "write_file",
        {"path": ".git", "content": "gitdir: x\n"},
        ".git",
    ),
    (
        "hook-is-link-in",
        [("file", "tool.sh", "#!/bin/sh\n"), ("symlink", HOOK, "../../tool.sh")],
        "write_file",
        {"path": "tool.sh", "content": "#!/bin/sh\nid\n"},
        "tool.sh",
    ),
    (
        "hookspath",
        [("file", ".git/config", "[core]\n\thooksPath = myhooks\n")],
        "write_file",
        {"path": "myhooks/pre-commit", "content": "id"},
        "myhooks/pre-commit",
    ),
    (
        "config-include",
        [("file", ".git/config", "[include]\n\tpath = ../extra.cfg\n")],
        "write_file",
        {"path": "extra.cfg", "content": "[core]\nfsmonitor = id\n"},
        "extra.cfg",
    ),
    ("envrc", [], "write_file", {"path": ".envrc", "content": "id"}, ".envrc"),
    ("envrc-nested", [], "write_file", {"path": "sub/.envrc", "content": "id"}, "sub/.envrc"),
    (
        "nested-repo-hook",
        [("dir", "sub/.git/hooks", "")],
        "write_file",
        {"path": "sub/.git/hooks/pre-commit", "content": "id"},
        "sub/.git/hooks/pre-commit",
    ),
    ("vscode-tasks", [], "write_file", {"path": ".vscode/tasks.json", "content": "{}"}, ".vscode/tasks.json"),
    ("gitmodules", [], "write_file", {"path": ".gitmodules", "content": "x"}, ".gitmodules"),
]
HOME_IN_WS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "home-config",
        "write_file",
        {"path": ".grove/config.yaml", "content": "security: {approval_mode: 'off'}"},
    ),
    ("home-config-dotdot", "write_file", {"path": "sub/../.grove/config.yaml", "content": "x"}),
    ("home-skill", "write_file", {"path": ".grove/skills/demo/SKILL.md", "content": "x"}),
    ("home-via-link", "write_file", {"path": "gh/config.yaml", "content": "x"}),
    ("home-read-config", "read_file", {"path": ".grove/config.yaml"}),
    ("home-read-db", "read_file", {"path": "gh/state.db"}),
    ("home-search", "search_files", {"pattern": "HOME_SECRET_(CONFIG|DB)"}),
    ("home-patch", "patch", {"path": ".grove/config.yaml", "old_string": "manual", "new_string": "off"}),
]
OUTSIDE = ["/etc/grove-rt-{uniq}", "{root}/.bashrc-grove-rt", "../x-{uniq}", "out/x-{uniq}"]
ATTEMPTS = [p[0] for p in PROTECTED] + [h[0] for h in HOME_IN_WS] + [f"root-outside {o}" for o in OUTSIDE]


def _ctx(ws: Path, home: Path, policy: SafetyPolicy) -> ToolContext:
    return ToolContext(workspace=ws, policy=policy, settings=Settings(home=home))


def _call(ctx: ToolContext, tool: str, args: dict[str, Any]) -> str:
    try:
        return getattr(files, tool)(ctx, **args)
    except ToolError as e:
        return f"error: {e}"


def _repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "sub").mkdir()
    (ws / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (ws / "readme.md").write_text("hello\n")
    if os.geteuid() == 0:  # a root-owned project folder: the case that must work as root
        os.chmod(tmp_path, 0o755)
    return ws


def _setup(ws: Path, steps: list[tuple[str, str, str]]) -> None:
    for op, a, b in steps:
        b = b.replace("{ws}", str(ws))
        if op == "symlink":
            os.symlink(b, ws / a)
        elif op == "file":
            (ws / a).parent.mkdir(parents=True, exist_ok=True)
            (ws / a).write_text(b)
        elif op == "dir":
            (ws / a).mkdir(parents=True)
        elif op == "rmdir":
            (ws / a).rmdir()
        elif op == "mvgit":  # .git replaced by a symlink to a folder elsewhere in the workspace
            os.rename(ws / ".git", ws / a)
            os.symlink(a, ws / ".git")
        elif (
            op == "gitdir"
        ):  # .git is a `gitdir:` file (worktree, submodule) naming a folder in the workspace
            os.rename(ws / ".git", ws / a)
            (ws / ".git").write_text(f"gitdir: {a}\n")


def _snapshot(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() and not path.is_symlink() else None


@pytest.mark.parametrize("name,steps,tool,args,guarded", PROTECTED, ids=[p[0] for p in PROTECTED])
def test_protected_paths_refused_unattended(
    tmp_path: Path, name: str, steps: Any, tool: str, args: Any, guarded: str
) -> None:
    ws = _repo(tmp_path)
    _setup(ws, steps)
    before = _snapshot(ws / guarded)
    args = {k: v.replace("{ws}", str(ws)) if isinstance(v, str) else v for k, v in args.items()}
    out = _call(_ctx(ws, tmp_path / "home", SafetyPolicy(unattended=True)), tool, args)
    assert _snapshot(ws / guarded) == before, f"escape: {guarded} changed ({out})"
    assert out.startswith("error:"), out


@pytest.mark.parametrize("name,steps,tool,args,guarded", PROTECTED[:6], ids=[p[0] for p in PROTECTED[:6]])
def test_protected_paths_asked_attended(
    tmp_path: Path, name: str, steps: Any, tool: str, args: Any, guarded: str
) -> None:
    ws = _repo(tmp_path)
    _setup(ws, steps)
    asked: list[str] = []

    def approver(request: Any) -> str:
        asked.append(f"{request.reasons} {request.command}")
        return "deny"

    args = {k: v.replace("{ws}", str(ws)) if isinstance(v, str) else v for k, v in args.items()}
    before = _snapshot(ws / guarded)
    out = _call(_ctx(ws, tmp_path / "home", SafetyPolicy(approver=approver, approval_timeout=5)), tool, args)
    assert asked, f"escape: not asked ({out})"
    assert "later" in " ".join(asked) or "runs" in " ".join(asked), asked
    assert _snapshot(ws / guarded) == before and out.startswith("error:"), out
    approved = _call(
        _ctx(ws, tmp_path / "home", SafetyPolicy(approver=lambda _r: "once", approval_timeout=5)), tool, args
    )
    assert not approved.startswith("error:") or tool == "patch", approved  # approved, it happens


def test_reads_of_protected_paths_stay_free(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    out = _call(
        _ctx(ws, tmp_path / "home", SafetyPolicy(unattended=True)), "read_file", {"path": ".git/config"}
    )
    assert "bare = false" in out


def test_hard_link_to_a_hook_never_changes_the_hook(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    (ws / HOOK).write_text("#!/bin/sh\ntrue\n")
    os.link(ws / HOOK, ws / "hl")
    _call(
        _ctx(ws, tmp_path / "home", SafetyPolicy(unattended=True)),
        "write_file",
        {"path": "hl", "content": "id"},
    )
    assert (ws / HOOK).read_text() == "#!/bin/sh\ntrue\n", "escape: the hook changed through a hard link"


@pytest.mark.parametrize("name,tool,args", HOME_IN_WS, ids=[h[0] for h in HOME_IN_WS])
@pytest.mark.parametrize("mode", ["unattended", "approve", "off"])
def test_home_inside_the_workspace(tmp_path: Path, name: str, tool: str, args: Any, mode: str) -> None:
    ws = _repo(tmp_path)
    home = ws / ".grove"
    (home / "skills" / "demo").mkdir(parents=True)
    (home / "config.yaml").write_text("# HOME_SECRET_CONFIG\nsecurity:\n  approval_mode: manual\n")
    (home / "state.db").write_text("HOME_SECRET_DB\n")
    (home / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\n---\n")
    os.symlink(home, ws / "gh")
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    policy = {
        "unattended": SafetyPolicy(unattended=True),
        "approve": SafetyPolicy(approver=lambda _r: "once", approval_timeout=5),
        "off": SafetyPolicy(approval_mode="off"),
    }[mode]
    out = _call(_ctx(ws, home, policy), tool, args)
    after = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert after == before, f"escape: grove's home changed ({out})"
    assert "HOME_SECRET_CONFIG" not in out and "HOME_SECRET_DB" not in out, f"escape: {out}"


@pytest.mark.skipif(os.geteuid() != 0, reason="the root-owned project folder case needs root")
def test_root_writes_its_root_owned_workspace(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    os.chown(ws, 0, 0)
    os.chmod(ws, 0o755)
    (ws / "readme.md").chmod(0o644)
    ctx = _ctx(ws, tmp_path / "home", SafetyPolicy(unattended=True))
    assert _call(ctx, "write_file", {"path": "notes.txt", "content": "hi\n"}).startswith("wrote"), (
        "cannot write"
    )
    assert (ws / "notes.txt").read_text() == "hi\n"
    assert _call(ctx, "write_file", {"path": "new/deep/n.txt", "content": "x"}).startswith("wrote")
    assert _call(ctx, "patch", {"path": "readme.md", "old_string": "hello", "new_string": "bye"}).startswith(
        "patched"
    )
    for p in (ws / "notes.txt", ws / "new" / "deep" / "n.txt", ws / "readme.md"):
        assert not os.stat(p).st_mode & 0o7000


@pytest.mark.skipif(os.geteuid() != 0, reason="the root-owned project folder case needs root")
@pytest.mark.parametrize("target", OUTSIDE)
def test_root_outside_writes_still_refused(tmp_path: Path, target: str) -> None:
    ws = _repo(tmp_path)
    uniq = tmp_path.name
    root = tmp_path / "fakeroot"
    root.mkdir()
    os.symlink(tmp_path / "outside", ws / "out")
    (tmp_path / "outside").mkdir()
    path = target.replace("{uniq}", uniq).replace("{root}", str(root))
    out = _call(
        _ctx(ws, tmp_path / "home", SafetyPolicy(unattended=True)),
        "write_file",
        {"path": path, "content": "PWNED"},
    )
    assert out.startswith("error:"), f"escape: {out}"
    assert not Path(f"/etc/grove-rt-{uniq}").exists() and not (root / ".bashrc-grove-rt").exists()
    assert not (tmp_path / f"x-{uniq}").exists() and not (tmp_path / "outside" / f"x-{uniq}").exists()
