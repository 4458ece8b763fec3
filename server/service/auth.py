"""Roles by API key (SPEC 8.1): `Authorization: Bearer KEY`.

user: ask (chat, snippets); evaluator: also traces; admin: everything (ingest, delete).
With no keys configured the server binds loopback only (`citegate serve` enforces it) and
treats every caller as admin: the machine's own user already owns the data folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from server.core.errors import AuthError, ConfigError, ForbiddenError
from server.core.settings import Settings
from server.core.settings.loader import ApiKey

ROLES_FOR = {
    "ask": {"user", "evaluator", "admin"},
    "traces": {"evaluator", "admin"},
    "admin": {"admin"},
}


@dataclass(frozen=True)
class Caller:
    role: str
    scope: tuple[str, ...] | None


def load_keys(settings: Settings) -> dict[str, ApiKey]:
    """Keys from settings plus the keys file (JSON of the same shape)."""
    keys = dict(settings.api_keys)
    if settings.api_keys_file:
        try:
            data = json.loads(settings.api_keys_file.read_text(encoding="utf-8"))
            keys.update({k: ApiKey.model_validate(v) for k, v in data.items()})
        except (OSError, ValueError) as exc:
            raise ConfigError(f"API keys file {settings.api_keys_file} unreadable: {exc}") from exc
    return keys


def authenticate(keys: dict[str, ApiKey], header: str | None) -> Caller:
    """The caller behind an Authorization header; AuthError when missing or unknown."""
    if not keys:
        return Caller(role="admin", scope=None)
    if not header or not header.lower().startswith("bearer "):
        raise AuthError("missing API key: send `Authorization: Bearer KEY`")
    key = keys.get(header[7:].strip())
    if key is None:
        raise AuthError("unknown API key: ask an admin for a key")
    return Caller(role=key.role, scope=tuple(key.scope) if key.scope is not None else None)


def authorize(caller: Caller, action: str) -> Caller:
    """ForbiddenError naming the roles that may do `action`."""
    allowed = ROLES_FOR[action]
    if caller.role not in allowed:
        raise ForbiddenError(
            f"role '{caller.role}' may not {action}; needs one of: {', '.join(sorted(allowed))}"
        )
    return caller


def in_scope(caller: Caller, tags: tuple[str, ...]) -> bool:
    return caller.scope is None or bool(set(caller.scope) & set(tags))
