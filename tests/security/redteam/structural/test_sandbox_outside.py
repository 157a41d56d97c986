"""Red team: nothing a command writes outside the workspace persists (shell startup files, crontabs, user
services, package managers' global state, ~/.gitconfig), whatever tool writes it; on rlimit unattended runs are
refused instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grove.sandbox import run
from grove.sandbox.runner import make_scratch

HOME = Path(os.path.expanduser("~"))
TARGETS = [".bashrc", ".profile", ".bash_profile", ".zshrc", ".gitconfig", ".config/systemd/user/evil.service",
           ".config/autostart/evil.desktop", ".local/lib/python3.11/site-packages/evil.pth", ".npmrc",
           ".pip/pip.conf", ".config/pip/pip.conf", ".ssh/authorized_keys"]  # fmt: skip
SYSTEM = ["/etc/profile.d/evil.sh", "/etc/cron.d/evil", "/var/spool/cron/crontabs/root", "/usr/local/bin/evil",
          "/tmp/grove-outside-evil"]  # fmt: skip
SPELLINGS = {
    "redirect": 'mkdir -p "$(dirname {p})" 2>/dev/null; echo EVIL >> {p}',
    "tee": "echo EVIL | tee -a {p}",
    "python": "python3 -c \"import os;os.makedirs(os.path.dirname('{p}'),exist_ok=True);open('{p}','a').write('EVIL')\"",
    "perl": 'perl -e \'open(F,">>{p}");print F "EVIL"\'',
    "cp": "echo EVIL > evil.txt; cp evil.txt {p}",
    "install": "echo EVIL > evil.txt; install -D evil.txt {p}",
}
GLOBAL_TOOLS = {
    "git config --global": "HOME={h} git config --global core.pager 'EVIL'",
    "crontab": "echo '* * * * * EVIL' | crontab -",
    "pip install --user": "mkdir -p pk && printf 'from setuptools import setup\\nsetup(name=\"evilpkg\")' > "
    "pk/setup.py && HOME={h} PIP_NO_INDEX=1 python3 -m pip install --user --no-build-isolation ./pk",
}
PATHS = [str(HOME / t) for t in TARGETS] + SYSTEM
ATTEMPTS = [f"{s} -> {p}" for s in SPELLINGS for p in PATHS] + list(GLOBAL_TOOLS)


def _state() -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for p in [*PATHS, "/var/spool/cron/crontabs", str(HOME / ".local/lib")]:
        try:
            out[p] = Path(p).read_bytes() if Path(p).is_file() else repr(sorted(os.listdir(p))).encode()
        except OSError:
            out[p] = None
    return out


def test_nothing_persists_outside_the_workspace(backend: str, tmp_path: Path) -> None:
    ws = make_scratch(tmp_path)
    before = _state()
    escapes: list[str] = []
    cmds = {f"{s} -> {p}": t.format(p=p) for s, t in SPELLINGS.items() for p in PATHS}
    cmds |= {k: v.format(h=HOME) for k, v in GLOBAL_TOOLS.items()}
    script = "\n".join(f"( {c} ) >/dev/null 2>&1" for c in cmds.values())
    if backend == "rlimit":  # no isolation: the unattended run must be refused, never started
        r = run(["/bin/bash", "-c", script], ws, backend=backend, unattended=True)
        assert r.refused, "rlimit ran an unattended command"
        return
    r = run(["/bin/bash", "-c", script], ws, backend=backend, unattended=True)
    assert not r.refused, r.stderr
    assert (ws / "evil.txt").read_text() == "EVIL\n", "the attempts never ran"
    after = _state()
    escapes = [p for p in before if before[p] != after[p]]
    assert escapes == [], f"{backend}: {len(escapes)} escapes: {escapes}"


@pytest.fixture(params=["bwrap", "landlock", "rlimit"])
def backend(request: pytest.FixtureRequest) -> str:
    from grove.sandbox.backend import detect_backend, landlock_info

    name = str(request.param)
    if name == "bwrap" and detect_backend().name != "bwrap":
        pytest.skip(f"bwrap not usable: {detect_backend().reason}")
    if name == "landlock" and landlock_info() is None:
        pytest.skip("no Landlock ABI, or not x86_64")
    return name
