"""`hindsight config`: each setting's effective value and the layer that set it, and edits of one
config file that keep its comments."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .. import config as config_mod, paths, safefs
from ..errors import BadUsage, InvalidInput
from ..safefs import trust
from ..safefs.reading import parse_json, too_long_to_edit
from ..storage.urls import redact_url

DEFAULT = "default"


@dataclass(frozen=True)
class Setting:
    """One setting as ``hindsight config list`` shows it; ``origin`` is ``default``, a file's path
    or an env var's name."""

    key: str
    value: Any
    origin: str


def _places() -> dict[str, tuple[str, str]]:
    """TOML key (``embedding.model``) -> (holder, field name); holder is ``config`` or
    ``ranking``."""
    out: dict[str, tuple[str, str]] = {}
    for f in fields(config_mod.Config):
        if f.name != "ranking":
            out[f.metadata.get("toml") or f.name] = ("config", f.name)
    for f in fields(config_mod.Ranking):
        out[f"ranking.{f.name}"] = ("ranking", f.name)
    return out


PLACES = _places()


def known(key: str) -> tuple[str, str]:
    """The holder and field of ``key``; an unknown key is refused with the closest ones named."""
    if key in PLACES:
        return PLACES[key]
    close = difflib.get_close_matches(key, PLACES, n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(close)}?" if close else ""
    raise InvalidInput(f"Unknown setting {key!r}.{hint} `hindsight config list` shows them all.")


def _flat(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update({f"{key}.{sub}": sub_value for sub, sub_value in value.items()})
        else:
            out[key] = value
    return out


def _value(config: config_mod.Config, key: str) -> Any:
    holder, name = PLACES[key]
    value = getattr(config if holder == "config" else config.ranking, name)
    if key == "storage.url" and isinstance(value, str):
        # the env var may hold a password; it is never shown
        value = redact_url(value)
    return list(value) if isinstance(value, tuple) else value


def effective(store: Path | None) -> list[Setting]:
    """Every setting's effective value for ``store`` and where it came from, later layers winning:
    default, the user file, the store's file, the env."""
    effective_config = config_mod.load(store)
    origins: dict[str, str] = {}
    files = [paths.user_config_path()]
    if store is not None:
        files.append(store / paths.CONFIG_FILE)
    for path in files:
        origins.update(dict.fromkeys(_flat(config_mod.read(path)), str(path)))
    by_field = {name: key for key, (holder, name) in PLACES.items() if holder == "config"}
    for env, name in config_mod.ENV_SETTINGS.items():
        if os.environ.get(env):
            origins[by_field[name]] = env
    return [
        Setting(key, _value(effective_config, key), origins.get(key, DEFAULT)) for key in PLACES
    ]


def get(store: Path | None, key: str) -> Setting:
    """The effective value of one setting."""
    known(key)
    return next(s for s in effective(store) if s.key == key)


def _parse(key: str, text: str) -> Any:
    """``text`` as the type of ``key``'s default; a value of another type is a usage error."""
    holder, name = PLACES[key]
    default = getattr(config_mod.Config() if holder == "config" else config_mod.Ranking(), name)
    try:
        if isinstance(default, bool):
            if text.lower() not in ("true", "false"):
                raise ValueError
            return text.lower() == "true"
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
        if isinstance(default, tuple):
            value = parse_json(text) if text.startswith("[") else text.split(",")
            if not all(isinstance(v, str) for v in value):
                raise ValueError
            return [v.strip() for v in value if v.strip()]
    except ValueError:
        kind = {bool: "true or false", int: "a whole number", float: "a number"}.get(
            type(default), 'a list of strings ("a,b" or ["a", "b"])'
        )
        raise BadUsage(f"{key} takes {kind}, not {text!r}.") from None
    return text


def _document(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    section, _, sub = key.rpartition(".")
    if not section:
        return {**data, key: value}
    table = data.get(section)
    return {**data, section: {**(table if isinstance(table, dict) else {}), sub: value}}


def _check_storage(key: str, value: Any) -> None:
    """The rules the storage layer applies to ``[storage]`` when it opens a store, applied before
    the value is written."""
    from ..storage import registry, urls

    if key == "storage.backend" and value:
        registry.check_name(value)
    elif key == "storage.url" and value:
        if config_mod.password_of(value):
            raise BadUsage(
                f"storage.url must hold no password (a config file is read by anyone who can read "
                f"the store); give it in {paths.ENV_DATABASE_URL}, PGPASSWORD or ~/.pgpass."
            )
        urls.check_target(value, config_mod.Config().database_schema)
    elif key == "storage.schema":
        urls.check_target("postgresql://", value)


def set_value(target: Path, key: str, text: str, store: Path | None = None) -> Any:
    """Write ``key = text`` into the config file ``target`` (a store's when ``store`` is given),
    after checking the value as config would read it; comments and other keys are kept. Returns
    the value written."""
    known(key)
    value = _parse(key, text)
    try:
        _check_storage(key, value)
        config_mod.check(config_mod.apply(config_mod.Config(), _document({}, key, value), target))
    except BadUsage:
        raise
    except InvalidInput as error:
        raise BadUsage(str(error)) from None
    # the user naming a backend (or a host name) for a store they trust approves it; anyone else's
    # store stays refused
    approving = store is not None and trust.bound(key) and trust.trusted(store)
    if store is not None and not approving:
        config_mod.check_redirect(store, _document(config_mod.read(target), key, value))
    if approving:
        assert store is not None
        # it approves the file's other bound settings too: each must be as approved already (a
        # pull may have put the author's database or site there meanwhile), unless what it
        # leaves keeps memories here and adds no host name
        was = config_mod.read(target)
        if trust.redirect(_document(was, key, value)) != "local":
            config_mod.check_redirect(store, was, but=key)
    if store is not None:
        # a write by hand into a store, as any other (a store that came with a repository, a
        # planted link's directory: refused until `hindsight allow`)
        from . import binding

        binding.writable(store)
    import tomlkit

    text = safefs.read_trusted(target, "The config file") or ""
    if past := too_long_to_edit(text):
        # a checkout's `.hindsight/config.toml` of 1 MiB of blank lines held `config set` 55 s in
        # tomlkit (review BS2)
        raise InvalidInput(
            f"{target} holds {past[0]}, more than `config set` edits ({past[1]}); edit the file by "
            "hand. Nothing was changed."
        )
    document = tomlkit.parse(text)
    section, _, sub = key.rpartition(".")
    if section:
        if section not in document:
            document[section] = tomlkit.table()
        table: Any = document[section]
        table[sub] = value
    else:
        document[key] = value
    target.parent.mkdir(parents=True, exist_ok=True)
    safefs.write_private(target, tomlkit.dumps(document), durable=True)
    if approving:
        assert store is not None
        trust.allow(store)
    return value
