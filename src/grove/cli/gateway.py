"""`grove gateway run PLATFORM | list | send TARGET TEXT | users ...`: chat with grove from Telegram, Slack,
Discord, IRC, email, Matrix or a signed webhook; one gateway for many people (docs/guide/gateways.md)."""

from __future__ import annotations

import sys

import typer

from grove.cli.common import load

app = typer.Typer(
    help="Chat gateways: answer Telegram, Slack, Discord, IRC, email, Matrix, Mattermost, WhatsApp, Signal, "
    "Feishu, DingTalk, WeCom, Teams and webhook messages with grove "
    "(pip install 'grove-agent[gateways]'; docs/guide/gateways.md).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@app.command("run")
def run(
    platforms: list[str] = typer.Argument(
        ...,
        help="one or more of telegram, slack, discord, irc, email, matrix, mattermost, whatsapp, signal, "
        "feishu, dingtalk, wecom, teams, webhook (or a platform a plugin adds)",
    ),
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec for the chats' sessions."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log each message, tool call and notice."),
) -> None:
    """Answer the platforms' messages until Ctrl-C, several in one process if named. Tokens come from the
    environment (TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN + SLACK_SIGNING_SECRET or SLACK_APP_TOKEN, DISCORD_BOT_TOKEN,
    IRC_PASSWORD, EMAIL_PASSWORD, MATRIX_ACCESS_TOKEN, GROVE_WEBHOOK_SECRET, ...: docs/guide/gateways.md); who may
    talk to it from `gateway.<platform>.owners` and `allowed_users` in config.yaml and `grove gateway users`."""
    import logging

    from grove.config.gateway import gateway_config
    from grove.gateway import service

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(message)s")
    settings = load(model=model)
    names = list(dict.fromkeys(platforms))  # each once
    gateways = [service.build(settings, name) for name in names]  # every token checked before any starts
    for platform in names:
        config = gateway_config(settings, platform)
        who = "everyone" if config.allow_everyone else (", ".join(config.allowed_users) or "nobody in config")
        owners = ", ".join(config.owners) or "none in config"
        print(f"grove gateway: {platform} running; owners: {owners}; users: {who}.", file=sys.stderr)
        if not config.owners:
            print(
                f"  Strangers get a pairing code: `grove gateway users allow {platform} CODE --role owner` "
                "makes you the owner (your memory and approvals; others get homes of their own).",
                file=sys.stderr,
            )
    print("Ctrl-C stops.", file=sys.stderr)
    service.run(gateways)


@app.command("list")
def list_platforms() -> None:
    """Installed platforms, whether their token is set, and who is allowed."""
    import os

    from grove.config.gateway import gateway_config
    from grove.gateway.platforms import adapter_class, available

    settings = load()
    for name, source in sorted(available().items()):
        config = gateway_config(settings, name)
        try:
            cls = adapter_class(name)
        except Exception as exc:  # a platform that cannot load is listed with why
            print(f"{name:<10} {source}: cannot load ({exc})")
            continue
        var = config.token_env or cls.token_env
        token = "token set" if os.environ.get(var) else f"{var} not set"
        who = "everyone" if config.allow_everyone else f"{len(config.allowed_users)} allowed user(s)"
        who = f"{len(config.owners)} owner(s), {who}"
        print(f"{name:<10} {token}; {who}")


@app.command("send")
def send(
    target: str = typer.Argument(..., help="<platform>:<chat id>, e.g. telegram:12345"),
    text: str = typer.Argument(..., help="The message ('-' reads it from stdin)."),
) -> None:
    """Send one message to a chat (what cron jobs use to deliver their results)."""
    from grove.gateway.delivery import deliver

    body = sys.stdin.read() if text == "-" else text
    deliver(load(), target, body)


users_app = typer.Typer(
    help="Who may talk to grove: list accounts and pairing codes, allow (a code or an id), block.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(users_app, name="users")


@users_app.command("list")
def users_list(platform: str | None = typer.Argument(None, help="Only this platform.")) -> None:
    """Accounts in the book with their role, config's owners and allowed users, and strangers waiting with a code."""
    from grove.config.gateway import gateway_config
    from grove.gateway.users import UserBook

    settings = load()
    book = UserBook(settings.home)
    rows = [(p.platform, p.user_id, p.role, p.name) for p in book.people(platform)]
    for name in sorted((settings.gateway or {}) if platform is None else [platform]):
        config = gateway_config(settings, name)
        booked = {(r[0], r[1]) for r in rows}
        rows += [(name, str(u), "owner (config)", "") for u in config.owners if (name, str(u)) not in booked]
        rows += [
            (name, str(u), "user (config)", "") for u in config.allowed_users if (name, str(u)) not in booked
        ]
        if config.allow_everyone:
            rows.append((name, "*", "user (allow_everyone)", ""))
    for plat, uid, role, who in rows:
        print(f"{plat:<10} {uid:<24} {role:<22} {who}".rstrip())
    for plat, code, uid, who in book.waiting(platform):
        print(f"{plat:<10} {uid:<24} {'waiting: ' + code:<22} {who}".rstrip())
    if not rows and not book.waiting(platform):
        print("nobody yet: a stranger who writes to grove gets a pairing code to give you")


@users_app.command("allow")
def users_allow(
    platform: str = typer.Argument(..., help="telegram, slack, irc, ..."),
    who: str = typer.Argument(..., help="A pairing code (ABCD-EFGH) or an account id."),
    role: str = typer.Option(
        "user", "--role", "-r", help="user, admin (manages users) or owner (your own home)."
    ),
) -> None:
    """Let an account in (a running gateway sees it at the account's next message)."""
    from grove.gateway.users import UserBook

    if role not in ("user", "admin", "owner"):
        raise typer.BadParameter(f"role must be user, admin or owner, not {role!r}", param_hint="--role")
    user_id = UserBook(load().home).accept(platform, who, role)
    print(f"{platform}: {user_id} is now {role}")


@users_app.command("block")
def users_block(
    platform: str = typer.Argument(...), user_id: str = typer.Argument(..., help="The account id.")
) -> None:
    """Block an account: its messages are dropped unanswered, whatever config says."""
    from grove.gateway.users import UserBook

    UserBook(load().home).set_role(platform, user_id, "blocked")
    print(f"{platform}: {user_id} is blocked")
