"""`grove config show | get | set | unset | path`: see and change settings (keys come from the environment, shown masked)."""

from __future__ import annotations

import os

import typer

from grove.cli.common import load

app = typer.Typer(
    help="Show and change settings ($GROVE_HOME/config.yaml).", no_args_is_help=True, rich_markup_mode=None
)


@app.command("show")
def show() -> None:
    """Print the effective settings, where they come from, and which API keys are set (masked)."""
    import yaml

    from grove.config import KEY_ENVS
    from grove.dataclass_io import to_jsonable
    from grove.security.secrets.redact import mask

    settings = load()
    data = to_jsonable(settings)
    data["model"] = f"{settings.model or ''} (effective: {settings.resolved_model()})".strip()
    print(f"# {settings.config_path}" + ("" if settings.config_path.exists() else " (not created yet)"))
    print(yaml.safe_dump(data, sort_keys=False).rstrip())
    names = sorted({*KEY_ENVS.values(), *(p.key_env for p in settings.providers.values() if p.key_env)})
    from grove.llm.local_catalog import CATALOG, assembled, models_dir

    print("# local models assembled from wheels (use as model: local:<name>)")
    for entry in CATALOG.values():
        where = assembled(entry, models_dir(settings.home))
        print(f"local:{entry.name}: {where or 'not assembled (' + entry.install_hint() + ')'}")
    print("# API keys (from the environment only)")
    for name in names:
        value = os.environ.get(name)
        print(f"{name}: {mask(value) if value else '(not set)'}")


# Settings whose value is a model spec, checked when set rather than at the first run.
MODEL_KEYS = (
    "model",
    "fallback_models",
    "compression.summary_model",
    "goals.judge_model",
    "security.approval_model",
    "delegation.model",
)


def check_value(key: str, raw_value: str) -> None:
    """What config.yaml's schema cannot know: a model spec parses, toolsets exist. Raises ConfigError."""
    import yaml

    from grove.config import ConfigError

    try:
        value = yaml.safe_load(raw_value) if raw_value.strip() else None
    except yaml.YAMLError as e:
        raise ConfigError(f"'{raw_value}' is not a YAML value ({e}); quote it or fix it") from e
    items = value if isinstance(value, list) else [] if value is None else [value]
    if isinstance(value, str) and key in ("toolsets", "fallback_models"):
        items = [s.strip() for s in value.split(",") if s.strip()]
    if key in MODEL_KEYS:
        from grove.llm.spec import parse_spec

        for item in items:
            parse_spec(str(item))
    elif key == "toolsets":
        from grove.tools.builtin import builtin_registry

        known = builtin_registry().toolsets
        unknown = [str(t) for t in items if str(t) not in known]
        if unknown:
            raise ConfigError(
                f"unknown toolset(s) {', '.join(unknown)}; known: {', '.join(sorted(known))} "
                "(e.g. grove config set toolsets files,todo)"
            )


@app.command("set", context_settings={"ignore_unknown_options": True})  # `set max_iterations -5` is a value
def set_(
    key: str = typer.Argument(
        ..., help="Dotted key, e.g. model, toolsets, retry.attempts, providers.vllm.base_url"
    ),
    value: str = typer.Argument(..., help="YAML value, e.g. openai:gpt-4o-mini, 3, true, [files, todo]"),
) -> None:
    """Set one setting in config.yaml (validated first; API keys are refused: use environment variables)."""
    from grove.config import set_config_value

    check_value(key, value)
    path = set_config_value(key, value)
    print(f"set {key} = {value} in {path}")


@app.command("get")
def get(key: str = typer.Argument(..., help="Dotted key, e.g. model, retry.attempts, local.n_ctx")) -> None:
    """Print one setting's effective value (from config.yaml, GROVE_* variables or its default), as YAML."""
    import yaml

    from grove.config import get_config_value

    value = get_config_value(load(), key)
    print(yaml.safe_dump(value, sort_keys=False).removesuffix("...\n").rstrip())


@app.command("unset")
def unset(key: str = typer.Argument(..., help="Dotted key to remove from config.yaml")) -> None:
    """Remove one setting from config.yaml, so its default (or a GROVE_* variable) applies again."""
    from grove.config import unset_config_value

    print(f"unset {key} in {unset_config_value(key)}")


@app.command("path")
def path() -> None:
    """Print the path of config.yaml."""
    print(load().config_path)
