"""Whether a run may go ahead on this backend: without isolation, nobody-to-ask runs need an explicit opt-in."""

from __future__ import annotations

from grove.sandbox.backend import INSTALL_HINT, BackendInfo, resolve_backend

OPT_IN = "`--allow-unisolated` (or `grove config set security.allow_unisolated true`)"


def refusal_for_unattended(info: BackendInfo, allow_unisolated: bool) -> str | None:
    """None when the run may go ahead, else the message to show (what is refused, why, and how to fix it).

    Only an unattended run (no one to approve it) on a backend without isolation is refused: there the
    command can read and change everything the user can, and no one would see it happen."""
    if info.isolated or allow_unisolated:
        return None
    return (
        "refused: this run is unattended and the sandbox has NO ISOLATION here (backend rlimit: "
        f"{info.reason}), so the command could read and change anything the user can. To fix: {INSTALL_HINT}, "
        f"or use a Linux kernel with Landlock; or, accepting that risk, allow it with {OPT_IN}"
    )


def refusal_for_policy(backend: str | None, unattended: bool, allow_unisolated: bool) -> str | None:
    """The same check before work that will run code later (a code skill's tests): None = may go ahead."""
    return refusal_for_unattended(resolve_backend(backend), allow_unisolated) if unattended else None
