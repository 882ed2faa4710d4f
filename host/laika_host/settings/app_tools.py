"""Settings tools for what the user sees and uses: the default model provider, capture
defaults, redaction names, the side panel's look, free-form preferences, and a read-only
view of the settings."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from ..config import dotted, registry
from ..config.registry import REMOVE, Who
from ..config.schema import Capture, PreferenceKey, PreferenceValue
from ..errors import RefusedError
from ..llm.config import OFFLINE
from .tool import SettingsArguments, SettingsTool
from .wording import with_summary
from .writes import writer

if TYPE_CHECKING:
    from ..store import Store

SecretName = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
MAX_NAMES = 20


def _capture_bound(kind: str) -> int:
    """The capture bound's limit `ge` or `le`, from the registry's schema (one definition)."""
    found = [getattr(m, kind, None) for m in Capture.model_fields["max_chars"].metadata]
    return int(next(value for value in found if value is not None))


class ProviderArguments(SettingsArguments):
    provider: str = Field(
        min_length=1, max_length=64, description="A configured provider id, or `offline`."
    )


def _provider(arguments: ProviderArguments, current: dict[str, Any]) -> dict[str, Any]:
    ids = [item["id"] for item in current["providers"]["items"]]
    if arguments.provider != OFFLINE and arguments.provider not in ids:
        known = ", ".join([*ids, OFFLINE])
        raise RefusedError(
            f"no provider {arguments.provider[:64]!r}: choose one of {known} "
            "(`laika models add` adds one)"
        )
    return {"providers.default": arguments.provider}


class CaptureLimitArguments(SettingsArguments):
    max_chars: int = Field(
        ge=_capture_bound("ge"),
        le=_capture_bound("le"),
        description="A captured page's Markdown bound in characters.",
    )


class CollectionArguments(SettingsArguments):
    collection: str = Field(
        min_length=1, max_length=200, description="The collection new captures go to."
    )


class RedactionArguments(SettingsArguments):
    add_secret_names: list[str] = Field(default_factory=list, max_length=MAX_NAMES)
    remove_secret_names: list[str] = Field(default_factory=list, max_length=MAX_NAMES)

    @model_validator(mode="after")
    def _something(self) -> RedactionArguments:
        for name in (*self.add_secret_names, *self.remove_secret_names):
            SecretNameModel(name=name)
        if not self.add_secret_names and not self.remove_secret_names:
            raise ValueError("name at least one secret name to add or remove")
        return self


class SecretNameModel(SettingsArguments):
    name: str = SecretName


def _redaction(arguments: RedactionArguments, current: dict[str, Any]) -> dict[str, Any]:
    removed = {name.casefold() for name in arguments.remove_secret_names}
    names: list[str] = list(current["redaction"]["extra_secret_names"])
    names = [n for n in names if n.casefold() not in removed]
    known = {n.casefold() for n in names}
    for name in arguments.add_secret_names:
        if name.casefold() not in known and name.casefold() not in removed:
            names.append(name)
            known.add(name.casefold())
    return {"redaction.extra_secret_names": names}


class ThemeArguments(SettingsArguments):
    theme: Literal["system", "light", "dark"]


class CitationsArguments(SettingsArguments):
    show: bool = Field(description="Show the citations under an answer.")


class PreferenceArguments(SettingsArguments):
    key: PreferenceKey
    value: PreferenceValue


class ForgetPreferenceArguments(SettingsArguments):
    key: PreferenceKey


def _forget(arguments: ForgetPreferenceArguments, current: dict[str, Any]) -> dict[str, Any]:
    kept = current["user"]["preferences"]
    if arguments.key not in kept:
        known = ", ".join(sorted(kept)[:20]) or "none"
        raise RefusedError(f"no preference {arguments.key!r} (the preferences: {known})")
    return {f"user.preferences.{arguments.key}": REMOVE}


class ShowArguments(SettingsArguments):
    path: str | None = Field(
        default=None,
        max_length=dotted.MAX_PATH,
        pattern=r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$",
        description="A dotted setting path (e.g. `capture.max_chars`); none: every setting.",
    )


async def _show(arguments: ShowArguments, _who: Who, _store: Store) -> dict[str, Any]:
    document = await asyncio.to_thread(registry.document)
    value = document if arguments.path is None else dotted.get(document, arguments.path)
    found = {"tool": "settings.show", "path": arguments.path, "value": value}
    return with_summary("settings.show", arguments, found)


def _set(path: str, field: str) -> Any:
    """The compute of a tool that sets one path to one argument."""
    return lambda arguments, _current: {path: getattr(arguments, field)}


def _writing(
    name: str,
    description: str,
    arguments: type[SettingsArguments],
    *,
    path: str,
    compute: Any,
    examples: tuple[str, ...],
) -> SettingsTool:
    return SettingsTool(
        name, description, arguments, (path,), writer(name, (path,), compute), examples
    )


def _preference_path(arguments: PreferenceArguments, _current: dict[str, Any]) -> dict[str, Any]:
    return {f"user.preferences.{arguments.key}": arguments.value}


TOOLS: tuple[SettingsTool, ...] = (
    _writing(
        "settings.set_default_provider",
        "Choose the model provider that answers when none is named (a configured id, or "
        "`offline` for the built-in runtime).",
        ProviderArguments,
        path="providers.default",
        compute=_provider,
        examples=("use the local model for answers", "answer offline", "make ollama the default"),
    ),
    _writing(
        "settings.set_capture_limit",
        "Set how many characters of a captured page are kept.",
        CaptureLimitArguments,
        path="capture.max_chars",
        compute=_set("capture.max_chars", "max_chars"),
        examples=("limit captures to 50000 characters", "set the capture limit to 30k"),
    ),
    _writing(
        "settings.set_default_collection",
        "Set the collection new captures go to when none is named.",
        CollectionArguments,
        path="capture.default_collection",
        compute=_set("capture.default_collection", "collection"),
        examples=("set the default collection to Research", "save captures to Reading by default"),
    ),
    _writing(
        "settings.set_redaction",
        "Add or remove names (of fields, headers, parameters) whose values are hidden as secrets.",
        RedactionArguments,
        path="redaction.extra_secret_names",
        compute=_redaction,
        examples=("treat session_id as a secret", "stop redacting session_id"),
    ),
    _writing(
        "settings.set_theme",
        "Set the side panel's theme: system, light or dark.",
        ThemeArguments,
        path="ui.theme",
        compute=_set("ui.theme", "theme"),
        examples=("use dark mode", "switch to the light theme"),
    ),
    _writing(
        "settings.set_citations",
        "Show or hide the citations in answers: the [n] markers and the chips under them.",
        CitationsArguments,
        path="ui.show_citations",
        compute=_set("ui.show_citations", "show"),
        examples=("hide citations", "show citations"),
    ),
    SettingsTool(
        "settings.set_preference",
        "Remember a preference of yours (a name and a text, number or yes/no value).",
        PreferenceArguments,
        ("user.preferences",),
        writer("settings.set_preference", ("user.preferences",), _preference_path),
        ("set my preference language to French", "remember that my reading_speed is 300"),
    ),
    SettingsTool(
        "settings.forget_preference",
        "Forget a preference of yours.",
        ForgetPreferenceArguments,
        ("user.preferences",),
        writer("settings.forget_preference", ("user.preferences",), _forget),
        ("forget my preference language",),
    ),
    SettingsTool(
        "settings.show",
        "Show the current settings, or one of them.",
        ShowArguments,
        (),
        _show,
        ("show my settings", "what is my capture limit"),
    ),
)
