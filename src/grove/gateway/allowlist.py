"""Who may talk to grove through a chat platform: stable account ids only. A `@name` is whatever account holds
that name today (a renamed or freed name is taken by anyone), so it is refused unless the adapter resolves it to
the id of the account that holds it now, once, when the gateway starts."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from grove.config import ConfigError

Resolver = Callable[[str], str | None]  # a name without '@' -> that account's id, or None when unknown


class AllowList:
    def __init__(self, ids: Iterable[str], everyone: bool = False) -> None:
        self.ids = frozenset(ids)
        self.everyone = everyone

    @classmethod
    def from_config(
        cls, platform: str, entries: Iterable[str], everyone: bool, resolve: Resolver | None = None
    ) -> AllowList:
        ids: list[str] = []
        for raw in entries:
            entry = str(raw).strip()
            if not entry.startswith("@"):
                ids.append(entry)
                continue
            found = resolve(entry[1:]) if resolve is not None else None
            if not found:
                raise ConfigError(
                    f"gateway.{platform}.allowed_users has {entry!r}: a name is not an account (whoever "
                    "holds it next would be let in), and it could not be resolved to one. Put the user's id "
                    "instead: grove answers a stranger with 'Ask its owner to add your user id: ID'. "
                    f"Fix: grove config set gateway.{platform}.allowed_users '[\"ID\"]'"
                )
            ids.append(str(found))
        return cls(ids, everyone)

    def allows(self, user_id: str) -> bool:
        """Only the account id counts; a display or user name the platform sends is never matched."""
        return self.everyone or (bool(user_id) and str(user_id) in self.ids)
