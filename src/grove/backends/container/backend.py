"""A session's container: started on the first command (`run -d` of the image with a sleeping shell), commands
by `exec` under the image's `timeout` when it has one, file tools on the mounted workspace through the local
confinement (the files are the host's), `rm -f` when the session goes. With backends.container.name, one
long-lived container of that name instead, made once, reused by every session on its workspace, and kept."""

from __future__ import annotations

import os
import secrets
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.backends.base import BackendError
from grove.backends.container.engine import capture, engine_command, quick
from grove.backends.spec import BackendSpec
from grove.backends.tree import LocalTree
from grove.config.backends import BackendsConfig
from grove.sandbox.types import Result

if TYPE_CHECKING:
    from grove.backends.local import LocalBackend

GRACE = 10  # seconds past the in-container timeout before the exec client is killed
# root in the container may still act on workspace files the file tools made (as the sandbox uid) and run tools
# that switch users; nothing that reaches the kernel or the network stack
KEEP_CAPS = "CHOWN,DAC_OVERRIDE,FOWNER,SETUID,SETGID,KILL"
KEEP_ALIVE = "exec sleep 2147483647"
# the command line in $1; bash when the image has it, killed by the image's timeout when it has one
WRAPPER = (
    'S=$(command -v bash || echo /bin/sh); if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL "$0" '
    '"$S" -c "$1"; else exec "$S" -c "$1"; fi'
)


class ContainerBackend:
    kind = "container"

    def __init__(
        self,
        spec: BackendSpec,
        config: BackendsConfig,
        workspace: Path,
        local: Callable[[], LocalBackend],
        network: Callable[[], bool] = lambda: False,
    ) -> None:
        self.spec, self.config = spec, config
        self.name = spec.text
        self.workspace = Path(workspace).resolve()
        self.root = config.container.workdir
        self._local, self._network = local, network
        self.long_lived = config.container.name  # a named one is reused and kept, not made per session
        self.container = self.long_lived or f"grove-{secrets.token_hex(6)}"
        self.started = False
        self._argv: list[str] | None = None
        self._state: dict[str, Any] = {}
        self._finalizer = weakref.finalize(self, _remove, self._state)

    def _engine(self) -> list[str]:
        if self._argv is None:
            self._argv = engine_command(self.spec.engine, self.config.container.engine_args)
        return self._argv

    def _start(self) -> None:
        if self.started:
            return
        if self.long_lived and self._reuse():
            self.started = True
            return
        c = self.config.container
        network = "none" if not self._network() else _own_network(self.spec.engine)
        argv = [
            *self._engine(), "run", "-d", *([] if self.long_lived else ["--rm"]), "--name", self.container,
            "--network", network,  # never the host's
            "--memory", f"{c.memory_mb}m", "--pids-limit", str(c.pids), "--cpus", f"{c.cpus:g}",
            "--ulimit", "nofile=1024:1024", "--ulimit", f"nproc={c.pids}:{c.pids}",
            "--cap-drop", "ALL", "--cap-add", KEEP_CAPS, "--security-opt", "no-new-privileges",
            "-v", f"{self.workspace}:{self.root}", "-w", self.root,
            "--entrypoint", "/bin/sh", self.spec.image, "-c", KEEP_ALIVE,
        ]  # fmt: skip
        done = quick(argv, timeout=120)
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no message"]
            raise BackendError(
                f"{self.name}: the container did not start ({why[0]}). Check the image exists locally "
                f"(`{self.spec.engine} image inspect {self.spec.image}`); engine flags such as "
                "[--runtime, runc] go in backends.container.engine_args"
            )
        self.started = True
        if self.long_lived:
            return  # kept for the next session
        remove = [*self._engine(), "rm", "-f", *(["-t", "0"] if self.spec.engine == "podman" else [])]
        self._state["remove"] = [*remove, self.container]

    def _reuse(self) -> bool:
        """Whether the named container exists (started again if stopped); refused if it mounts another folder."""
        engine = self._engine()
        mounts = quick(
            [
                *engine,
                "inspect",
                "--format",
                "{{range .Mounts}}{{.Source}}={{.Destination}} {{end}}",
                self.container,
            ],
            timeout=30,
        )
        if mounts.returncode != 0:
            return False  # none of that name yet: made now
        if f"{self.workspace}={self.root}" not in mounts.stdout.split():
            raise BackendError(
                f"{self.name}: the container {self.container!r} (backends.container.name) mounts "
                f"{mounts.stdout.strip() or 'no folder'}, not this workspace {self.workspace} at {self.root}; "
                "name another container for this workspace, or work in the folder it mounts"
            )
        started = quick([*engine, "start", self.container], timeout=120)
        if started.returncode != 0:
            why = (started.stderr or started.stdout).strip().splitlines()[-1:] or ["no message"]
            raise BackendError(
                f"{self.name}: the container {self.container!r} did not start again ({why[0]})"
            )
        return True

    def run(self, command: str, *, timeout: float, network: bool | None = None) -> Result:
        # `network` cannot change a running container's: it has one only if the session allowed it at start
        self._start()
        secs = str(max(1, int(timeout + 0.999)))
        argv = [*self._engine(), "exec", self.container, "/bin/sh", "-c", WRAPPER, secs, command]
        got = capture(argv, timeout + GRACE, self.config.output_bytes)
        timed_out = got.timed_out or got.exit_code == 137
        notes = [f"killed after {timeout:g}s"] if timed_out else []
        if got.dropped:
            notes.append(f"output cut: {got.dropped} bytes past the first {self.config.output_bytes} dropped")
        return Result(
            exit_code=-9 if timed_out else got.exit_code,  # as the local sandbox reports a run it killed
            stdout=got.text,
            stderr="",
            backend=self.name,
            timed_out=timed_out,
            truncated=bool(got.dropped),
            notes=notes,
        )

    def files(self) -> AbstractContextManager[Any]:
        return (
            self._local().files()
        )  # the workspace is the host's folder, mounted: the local confinement holds

    def tree(self) -> LocalTree:
        return LocalTree(self.workspace)  # the mounted folder is this machine's: checkpoints stay local

    def check(self) -> tuple[bool, str]:
        try:
            engine = self._engine()
        except BackendError as e:
            return False, str(e)
        info = quick([*engine, "image", "inspect", "--format", "{{.Id}}", self.spec.image], timeout=30)
        if info.returncode != 0:
            return False, (
                f"{self.name}: image not found locally ({(info.stderr or '').strip()[:200]}); "
                f"`{self.spec.engine} pull {self.spec.image}` or build one"
            )
        try:
            result = self.run("echo ok", timeout=20)
        except BackendError as e:
            return False, str(e)
        finally:
            self.close()
        if result.stdout.strip() != "ok":
            return (
                False,
                f"{self.name}: a test command failed (exit {result.exit_code}): {result.stdout[:200]}",
            )
        return True, (
            f"{self.name}: a container starts and runs commands (no network, {self.config.container.memory_mb} MB, "
            f"{self.config.container.pids} processes); the workspace is mounted at {self.root}"
        )

    def close(self) -> None:
        _remove(self._state)  # the finalizer stays: a container started again later is removed at exit
        self.started = False


def _own_network(engine: str) -> str:
    """A network of the container's own when the session allows one: the engine's bridge (rootless podman: its
    user-mode stack), never the host's."""
    return "slirp4netns" if engine == "podman" and os.geteuid() != 0 else "bridge"


def _remove(state: dict[str, Any]) -> None:
    argv = state.pop("remove", None)
    if argv:
        with suppress(
            BackendError
        ):  # best effort at exit; `podman ps -a --filter name=grove-` shows leftovers
            quick(argv, timeout=30)
