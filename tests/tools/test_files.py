"""The files toolset: paging, exact unique patches with a near-match hint, search and listing."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest

from grove.atomic_files import NotRegularFileError, atomic_write_bytes
from grove.config import Settings
from grove.sandbox.users import SANDBOX_GID
from grove.security.approval.base import Decision
from grove.security.approval.policy import SafetyPolicy
from grove.security.files.identity import identity_for
from grove.tools import files
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    if os.geteuid() == 0:  # as the README asks root users to: the sandbox group may write the project
        os.chown(workspace, -1, SANDBOX_GID)
        os.chmod(workspace, 0o2775)
    return ToolContext(workspace=workspace)


def test_read_pages_through_long_files(ctx: ToolContext) -> None:
    (ctx.workspace / "long.txt").write_text("\n".join(f"line {i}" for i in range(1, 11)))
    out = files.read_file(ctx, "long.txt", offset=3, limit=2)
    assert out.splitlines()[:2] == ["     3|line 3", "     4|line 4"]
    assert "offset=5" in out
    with pytest.raises(ToolError, match="does not exist"):
        files.read_file(ctx, "missing.txt")


def test_read_refuses_binary(ctx: ToolContext) -> None:
    (ctx.workspace / "b.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(ToolError, match="binary"):
        files.read_file(ctx, "b.bin")


def test_patch_requires_one_exact_match(ctx: ToolContext) -> None:
    f = ctx.workspace / "code.py"
    f.write_text("def add(a, b):\n    return a + b\n\nx = 1\nx = 1\n")
    files.patch(ctx, "code.py", "return a + b", "return a + b  # sum")
    assert "# sum" in f.read_text()
    with pytest.raises(ToolError, match="occurs 2 times"):
        files.patch(ctx, "code.py", "x = 1", "x = 2")
    with pytest.raises(ToolError, match="closest line: 'def add"):
        files.patch(ctx, "code.py", "def add(a, c):", "nope")
    with pytest.raises(
        ToolError, match=r"whose lines there are:\ndef add\(a, b\):\n    return a \+ b  # sum\n"
    ):
        files.patch(ctx, "code.py", "def add(a, b):\n    return a - b", "nope")


def test_patch_replace_all_changes_every_occurrence(ctx: ToolContext) -> None:
    f = ctx.workspace / "tool.py"
    f.write_text("def chk(x):\n    return x\n\nprint(chk(1))\nprint(chk(2))\n")
    with pytest.raises(ToolError, match="set replace_all"):
        files.patch(ctx, "tool.py", "chk", "check")
    out = files.patch(ctx, "tool.py", "chk", "check", replace_all=True)
    assert "3 places" in out and out.endswith("it now reads:\ndef check(x):\n    return x")
    assert f.read_text() == "def check(x):\n    return x\n\nprint(check(1))\nprint(check(2))\n"
    with pytest.raises(ToolError, match="not found"):
        files.patch(ctx, "tool.py", "chk", "check", replace_all=True)


def test_read_first_sessions_must_read_an_existing_file_before_overwriting_it(ctx: ToolContext) -> None:
    (ctx.workspace / "config.json").write_text('{"port": 1, "debug": false}\n')
    files.write_file(ctx, "config.json", "{}")  # other sessions: no guard
    ctx.needs = dataclasses.replace(ctx.needs, read_before_write=True)  # a small local model's session
    with pytest.raises(ToolError, match="read_file it first"):
        files.write_file(ctx, "config.json", '{"workers": 9}')
    assert (ctx.workspace / "config.json").read_text() == "{}"
    files.write_file(ctx, "new.txt", "a")  # a new file needs no read
    files.write_file(ctx, "new.txt", "b")  # nor one this session wrote
    files.read_file(ctx, "./config.json")
    files.write_file(ctx, "config.json", '{"port": 2}')
    assert (ctx.workspace / "config.json").read_text() == '{"port": 2}'
    again = files.write_file(ctx, "config.json", '{"port": 2}')
    assert again.startswith("config.json already holds exactly this content")


def test_search_without_matches_says_how_to_widen_an_anchored_pattern(ctx: ToolContext) -> None:
    (ctx.workspace / "m.py").write_text("x = 1  # TODO add tests\n")
    assert (
        files.search_files(ctx, "^# TODO")
        == "no matches (the pattern has anchors or symbols: try just the word)"
    )
    assert files.search_files(ctx, "FIXME") == "no matches"
    assert "m.py:1:" in files.search_files(ctx, "TODO")


def test_write_creates_folders(ctx: ToolContext) -> None:
    files.write_file(ctx, "deep/er/f.txt", "x")
    assert (ctx.workspace / "deep/er/f.txt").read_text() == "x"


def test_search_and_list(ctx: ToolContext) -> None:
    (ctx.workspace / "a.py").write_text("import os\nTODO = 1\n")
    (ctx.workspace / "b.md").write_text("TODO: write docs\n")
    (ctx.workspace / ".git").mkdir()
    (ctx.workspace / ".git" / "x").write_text("TODO hidden")
    assert files.search_files(ctx, "TODO", glob="*.py") == "a.py:2:TODO = 1"
    assert sorted(files.search_files(ctx, "").splitlines()) == ["a.py", "b.md"]
    with pytest.raises(ToolError, match="invalid regular expression"):
        files.search_files(ctx, "(")


# --- confinement: everyday use keeps working, everything else is asked about or refused


def _policy(answer: str | None = None, **kw: object) -> SafetyPolicy:
    if answer is None:
        return SafetyPolicy(unattended=True, **kw)  # type: ignore[arg-type]
    return SafetyPolicy(approver=lambda _r: answer, approval_timeout=5, **kw)  # type: ignore[arg-type]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.txt").write_text("OUTSIDE\n")
    return d


def test_everyday_paths_inside_the_workspace(ctx: ToolContext) -> None:
    files.write_file(ctx, "a/b/c/new.txt", "one\n")
    files.write_file(ctx, str(ctx.workspace / "abs.txt"), "two\n")
    os.symlink("a/b", ctx.workspace / "short")
    os.symlink(str(ctx.workspace / "abs.txt"), ctx.workspace / "abs-link")
    assert "one" in files.read_file(ctx, "short/c/new.txt")
    assert "two" in files.read_file(ctx, "abs-link")
    assert "one" in files.read_file(ctx, "a/../a/b/./c/new.txt")
    files.write_file(ctx, "short/c/via-link.txt", "three\n")
    assert (ctx.workspace / "a/b/c/via-link.txt").read_text() == "three\n"
    files.patch(ctx, "abs-link", "two", "deux")
    assert (ctx.workspace / "abs.txt").read_text() == "deux\n" and os.path.islink(ctx.workspace / "abs-link")
    listing = files.search_files(ctx, "").splitlines()
    assert "a/b/c/new.txt" in listing and "abs.txt" in listing


def test_outside_is_denied_with_nobody_to_ask_and_when_the_user_says_no(
    ctx: ToolContext, outside: Path
) -> None:
    for policy in (_policy(), _policy("deny")):
        ctx.policy = policy
        with pytest.raises(ToolError, match="outside the workspace"):
            files.read_file(ctx, "../outside/secret.txt")
        with pytest.raises(ToolError, match="outside the workspace"):
            files.write_file(ctx, str(outside / "x.txt"), "x")
        with pytest.raises(ToolError, match="outside the workspace"):
            files.search_files(ctx, "OUTSIDE", path=str(outside))
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_outside_works_once_the_user_approves(ctx: ToolContext, outside: Path) -> None:
    asked: list[str] = []

    def approver(request: object) -> str:
        asked.append(request.command)  # type: ignore[attr-defined]
        return "once"

    ctx.policy = SafetyPolicy(approver=approver, approval_timeout=5)
    # relative: as root the walk uses the sandbox uid's rights, and pytest's base folder is root's alone (0700)
    assert "OUTSIDE" in files.read_file(ctx, "../outside/secret.txt")
    files.write_file(ctx, "../outside/new.txt", "approved\n")
    assert (outside / "new.txt").read_text() == "approved\n"
    assert asked == [f"read {outside}/secret.txt", f"write {outside}/new.txt"]


def test_a_symlink_pointing_out_is_outside(ctx: ToolContext, outside: Path) -> None:
    os.symlink(outside, ctx.workspace / "out")
    os.symlink(outside / "secret.txt", ctx.workspace / "s.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        files.write_file(ctx, "out/new.txt", "x")
    with pytest.raises(ToolError, match="outside the workspace"):
        files.write_file(ctx, "s.txt", "x")
    assert (outside / "secret.txt").read_text() == "OUTSIDE\n"
    assert "OUTSIDE" not in files.search_files(ctx, "OUTSIDE")  # the walk never goes through links


def test_grove_home_is_never_written_even_with_approvals_off(ctx: ToolContext, settings: Settings) -> None:
    settings.home.mkdir(parents=True, exist_ok=True)
    (settings.home / "config.yaml").write_text("security:\n  approval_mode: manual\n")
    ctx.settings = settings
    for policy in (_policy("once"), SafetyPolicy(approval_mode="off")):
        ctx.policy = policy
        with pytest.raises(ToolError, match="grove's own home"):
            files.write_file(ctx, str(settings.home / "config.yaml"), "security: {approval_mode: 'off'}")
        with pytest.raises(ToolError, match="grove's own home"):
            files.read_file(ctx, str(settings.home / "config.yaml"))
        with pytest.raises(ToolError, match="grove's own home"):
            files.write_file(ctx, str(settings.home / "skills" / "x" / "SKILL.md"), "x")
    assert "approval_mode: manual" in (settings.home / "config.yaml").read_text()


def test_proc_environ_is_never_read(ctx: ToolContext) -> None:
    ctx.policy = SafetyPolicy(approval_mode="off")
    with pytest.raises(ToolError, match="/proc"):
        files.read_file(ctx, "/proc/self/environ")


def test_extra_roots(ctx: ToolContext, settings: Settings, tmp_path: Path) -> None:
    ro, rw = tmp_path / "ro", tmp_path / "rw"
    ro.mkdir()
    rw.mkdir()
    (ro / "data.txt").write_text("reference\n")
    settings.security.extra_read_roots = [str(ro)]
    settings.security.extra_write_roots = [str(rw)]
    ctx.settings, ctx.policy = settings, _policy()
    assert "reference" in files.read_file(ctx, str(ro / "data.txt"))
    with pytest.raises(ToolError, match="read-only root"):
        files.write_file(ctx, str(ro / "data.txt"), "changed")
    files.write_file(ctx, str(rw / "out.txt"), "ok\n")
    assert (rw / "out.txt").read_text() == "ok\n"


def test_writes_drop_setuid_setgid_and_sticky_bits(ctx: ToolContext) -> None:
    tool = ctx.workspace / "tool"
    tool.write_text("#!/bin/sh\necho hi\n")
    os.chmod(tool, 0o6755)
    files.write_file(ctx, "tool", "#!/bin/sh\nid\n")
    assert tool.stat().st_mode & 0o7777 == 0o755
    os.chmod(tool, 0o4755)
    files.patch(ctx, "tool", "id", "whoami")
    assert tool.stat().st_mode & 0o7777 == 0o755


def test_atomic_write_keeps_rwx_only_and_never_replaces_special_files(tmp_path: Path) -> None:
    target = tmp_path / "f"
    atomic_write_bytes(target, b"x", mode=0o4755)
    assert target.stat().st_mode & 0o7777 == 0o755
    os.chmod(target, 0o2750)
    atomic_write_bytes(target, b"y")
    assert target.stat().st_mode & 0o7777 == 0o750
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError):
        atomic_write_bytes(fifo, b"z")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_fifos_are_refused_not_waited_on(ctx: ToolContext) -> None:
    os.mkfifo(ctx.workspace / "pipe")
    with pytest.raises(ToolError, match="not a regular file"):
        files.read_file(ctx, "pipe")
    with pytest.raises(ToolError, match="not a regular file"):
        files.write_file(ctx, "pipe", "x")


def test_a_hard_linked_file_needs_approval_to_be_read(ctx: ToolContext, outside: Path) -> None:
    os.link(outside / "secret.txt", ctx.workspace / "hl.txt")
    ctx.policy = _policy()
    with pytest.raises(ToolError, match="hard links"):
        files.read_file(ctx, "hl.txt")
    ctx.policy = _policy("once")
    assert "OUTSIDE" in files.read_file(ctx, "hl.txt")


def test_decisions_are_logged(ctx: ToolContext, outside: Path) -> None:
    log = _Log()
    ctx.policy = SafetyPolicy(unattended=True, decisions=log)  # type: ignore[arg-type]
    with pytest.raises(ToolError):
        files.read_file(ctx, str(outside / "secret.txt"))
    with pytest.raises(ToolError):
        files.read_file(ctx, "/proc/self/environ")
    assert [(d.allowed, d.decided_by) for d in log.decisions] == [(False, "unattended"), (False, "blocklist")]


class _Log:
    """A decision log that keeps what it is given (the flow under test is approval + confinement)."""

    def __init__(self) -> None:
        self.decisions: list[Decision] = []

    def record(self, decision: Decision, session_id: str | None) -> None:
        self.decisions.append(decision)

    def always(self) -> set[str]:
        return set()

    def remember_always(self, pattern: str, description: str, session_id: str | None) -> None:
        pass


def test_as_root_files_are_made_with_the_sandbox_uids_rights(ctx: ToolContext, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("acting with the sandbox uid's rights happens only when grove runs as root")
    files.write_file(ctx, "made.txt", "x")
    st = (ctx.workspace / "made.txt").stat()
    assert (st.st_uid, st.st_gid) == (SANDBOX_GID, SANDBOX_GID) and st.st_mode & 0o777 == 0o664
    private = ctx.workspace / "root-only.txt"
    private.write_text("root secret\n")
    os.chmod(private, 0o600)
    with pytest.raises(ToolError, match="permission denied for uid 64055"):
        files.read_file(ctx, "root-only.txt")
    grove_made = tmp_path / "after.txt"
    grove_made.write_text("y")  # grove's own rights are back once the call is over
    assert grove_made.stat().st_uid == 0
    owned = tmp_path / "users-project"
    owned.mkdir()
    os.chown(owned, 1234, 1234)
    files.write_file(ToolContext(workspace=owned), "mine.txt", "x")
    assert (owned / "mine.txt").stat().st_uid == 1234


def test_no_change_of_identity_when_not_root(workspace: Path) -> None:
    if os.geteuid() == 0:
        assert identity_for(workspace) is not None
    else:
        assert identity_for(workspace) is None


def test_an_entrances_workspace_under_the_home_is_a_workspace_and_the_home_stays_shut(
    settings: Settings,
) -> None:
    from grove.config.workspaces import entrance_root
    from grove.sandbox.users import sandbox_folder

    settings.home.mkdir(parents=True, exist_ok=True)
    (settings.home / "config.yaml").write_text("security:\n  approval_mode: manual\n")
    workspace = sandbox_folder(entrance_root(settings.home, "serve") / "keys" / "laptop")
    assert workspace.is_relative_to(settings.home / "workspaces")
    ctx = ToolContext(workspace=workspace, settings=settings, policy=SafetyPolicy(approval_mode="off"))
    files.write_file(ctx, "notes.txt", "hello\n")
    assert "hello" in files.read_file(ctx, "notes.txt") and (workspace / "notes.txt").is_file()
    for path in (settings.home / "config.yaml", "../../../../config.yaml", settings.home / "state.db"):
        with pytest.raises(ToolError, match="grove's own home"):
            files.write_file(ctx, str(path), "x")
    with pytest.raises(ToolError, match="grove's own home"):
        files.read_file(ctx, "../../../../config.yaml")
    assert "approval_mode: manual" in (settings.home / "config.yaml").read_text()


def test_the_unattended_entrances_make_their_workspaces_under_the_home(
    settings: Settings, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from grove.cron.scheduler import WORKSPACES_ENV as CRON_ENV
    from grove.cron.scheduler import _own_workspace as cron_workspace
    from grove.gateway.workspace import chat_folder, user_chat_folder
    from grove.kanban.worker import WORKSPACES_ENV as KANBAN_ENV
    from grove.kanban.worker import _own_workspace as task_workspace

    monkeypatch.delenv(CRON_ENV, raising=False)
    monkeypatch.delenv(KANBAN_ENV, raising=False)
    made = [
        cron_workspace(settings.home, "j1"),
        task_workspace(settings.home, 7),
        chat_folder(settings.home, None, "telegram", "42"),
        chat_folder(settings.home, None, "keys", "laptop", entrance="serve"),
        user_chat_folder(settings.home, None, "telegram", "u1", "42"),
    ]
    assert all(p.is_relative_to(settings.home / "workspaces") for p in made), made
    assert len({p.parent for p in made}) == len(made)  # apart from each other
    monkeypatch.setenv(KANBAN_ENV, str(settings.home.parent / "elsewhere"))
    assert task_workspace(settings.home, 7) == settings.home.parent / "elsewhere" / "task-7"
