"""`grove doctor`: checks the setup one line at a time — OK, or the problem and how to fix it."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from grove.config import Settings


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def doctor(
    model: str | None = typer.Option(
        None, "--model", "-m", help="Check this model spec instead of the default."
    ),
) -> None:
    """Check settings, model, local model file, database, sandbox and backends; exit 1 if something needs fixing."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    checks = run_checks(model)
    for c in checks:
        mark = "[green]OK[/]     " if c.ok else "[red]PROBLEM[/]"
        console.print(f"{mark} {c.name}: {escape(c.detail)}")
    if not all(c.ok for c in checks):
        raise typer.Exit(1)


def run_checks(model_override: str | None = None) -> list[Check]:
    from grove.config import load_settings
    from grove.errors import GroveError

    try:
        settings = load_settings()
    except GroveError as e:
        return [Check("settings", False, str(e))]
    checks = [Check("settings", True, f"GROVE_HOME={settings.home}")]
    checks.append(_guard("GROVE_HOME", lambda: _check_home(settings.home)))
    spec = model_override or settings.resolved_model()
    checks.append(_guard("model", lambda: _check_model(spec, settings)))
    checks.append(_guard("local model file", lambda: _check_local_file(settings)))
    checks.append(_guard("local coder model", lambda: _check_catalog(settings)))
    checks.append(_guard("database", lambda: _check_db(settings)))
    checks.append(_guard("sandbox", _check_sandbox))
    from grove.backends.doctor import backend_checks

    checks += [_guard(label, check) for label, check in backend_checks(settings)]  # backends: use and named
    return checks


def _check_home(home: Path) -> tuple[bool, str]:
    """State lives in GROVE_HOME: it must be (or become) a directory grove can write."""
    import os

    fix = "point GROVE_HOME at a writable directory (export GROVE_HOME=~/.grove)"
    if home.exists() and not home.is_dir():
        return False, f"{home} is not a directory; {fix}"
    probe = home if home.exists() else next((p for p in home.parents if p.exists()), home)
    if not probe.is_dir():
        return False, f"{probe} is not a directory; {fix}"
    import tempfile

    try:  # modes and mount flags do not tell everything (/proc, root on a read-only mount): try it
        os.rmdir(tempfile.mkdtemp(prefix=".grove-doctor-", dir=probe))
    except OSError as e:
        return False, f"cannot write in {probe} ({e.strerror}); {fix}"
    return True, f"{home} is writable" if home.exists() else f"{home} will be created"


def _guard(name: str, fn: Callable[[], tuple[bool, str]]) -> Check:
    try:
        ok, detail = fn()
    except Exception as e:  # a check that crashes is itself a finding, not a crash of doctor
        ok, detail = False, f"{type(e).__name__}: {e}"
    return Check(name, ok, detail)


def _check_model(spec_text: str, settings: Settings) -> tuple[bool, str]:
    from grove.config import ProviderConfig
    from grove.llm.spec import api_key_for, parse_spec, provider_for

    spec = parse_spec(spec_text)
    if spec.provider == "local":
        from grove.llm.errors import ModelError
        from grove.llm.local_runtime import runtime_name

        try:
            runtime = runtime_name()
        except ModelError as e:
            return False, str(e)
        return True, f"{spec} (embedded llama.cpp via {runtime}, offline)"
    if spec.provider == "script":
        exists = os.path.isfile(os.path.expanduser(spec.model))
        return exists, f"{spec}" if exists else f"script file {spec.model} not found"
    key, key_env = api_key_for(spec.provider, settings.providers.get(spec.provider, ProviderConfig()))
    row = provider_for(spec.provider)
    if not key and row.key_required:
        return False, f"{spec}: no API key; export {key_env}=..."
    if row.api != "openai":  # only OpenAI-format servers answer GET /models
        return True, f"{spec} (key from {key_env})"
    import urllib.error
    import urllib.request

    base = (
        settings.providers.get(spec.provider, ProviderConfig()).base_url
        or spec.base_url
        or "https://api.openai.com/v1"
    )
    request = urllib.request.Request(base.rstrip("/") + "/models")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    except (urllib.error.URLError, OSError) as e:
        return False, f"{spec}: {base} unreachable ({e}); is the server running?"
    if status in (401, 403):
        return False, f"{spec}: the server refused the key in {key_env} (HTTP {status})"
    return status < 500, f"{spec}: {base} answered HTTP {status}"


def _check_local_file(settings: Settings) -> tuple[bool, str]:
    from grove.llm.local import default_status

    return True, default_status(settings.home)


def _check_catalog(settings: Settings) -> tuple[bool, str]:
    from grove.llm.local_catalog import QWEN_CODER, models_dir, status

    return status(QWEN_CODER, models_dir(settings.home))


def _check_db(settings: Settings) -> tuple[bool, str]:
    from grove.store.db import Database

    db = Database(settings.db_path)
    try:
        with db.transaction() as c:
            c.execute("CREATE TEMP TABLE IF NOT EXISTS _doctor (x)")
            c.execute("INSERT INTO _doctor VALUES (1)")
        mode = db.conn.execute("PRAGMA journal_mode").fetchone()[0]
        version = db.conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()
    return True, f"{settings.db_path} writable (journal {mode}, schema v{version})"


def _check_sandbox() -> tuple[bool, str]:
    try:
        from grove.sandbox import doctor_check
    except ImportError:
        return False, "no sandbox module yet; the terminal tool runs unsandboxed and only when allowed"
    return doctor_check()
