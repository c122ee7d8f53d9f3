"""THE options table: every option of an overseer and of an orchestrator is one entry.

An entry says where the option sits in the options form (its section), how it is picked (the
selector), its default and range, and how its stored value is read. The options flows, the
settings and the defaults are all derived from here: adding an option is one entry (and its
translations), which tests/ha/test_options.py walks like the tool registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from homeassistant.helpers.selector import (
    EntitySelector,
    EntitySelectorConfig,
    LanguageSelector,
    LanguageSelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    Selector,
    SelectSelector,
    SelectSelectorConfig,
    TextSelector,
    TextSelectorConfig,
)

from .const import (
    CONF_ALIASES,
    CONF_APPROVAL_NOTIFY,
    CONF_APPROVAL_TOOLS,
    CONF_APPROVERS,
    CONF_ASSET_ENTITIES,
    CONF_CHALLENGE_PHRASES,
    CONF_COUNTER_ENTITY,
    CONF_FALLBACK_LINE,
    CONF_LANGUAGE,
    CONF_LIFT_COVER,
    CONF_LIFT_DOWN_SCRIPT,
    CONF_LIFT_UP_SCRIPT,
    CONF_LIGHT_ENTITIES,
    CONF_ROVER_ENTITIES,
    CONF_STATE_ENTITIES,
    CONF_VACUUM_CLEAR_ERRORS_SCRIPT,
    CONF_VACUUM_ENTITY,
)
from .core.gate import DEFAULT_CHALLENGES
from .core.language import SPOKEN_LANGUAGES
from .core.text import one_line
from .core.tools import DEFAULT_COOLDOWNS, TOOL_SPECS, CooldownGroup, cooldown_option

FALLBACK_LINE_CHARS = 280


class Kind(StrEnum):
    """How an option is picked and stored."""

    NUMBER = "number"  # a number in a range
    ENTITY = "entity"  # one entity id, or none
    ENTITIES = "entities"  # a list of entity ids
    WORDS = "words"  # a list of short texts (a list or a comma-separated string)
    TEXT = "text"  # one line of text, or none
    CHOICES = "choices"  # a list of values among choices
    LANGUAGE = "language"  # one language code among those offered, or none


def split_words(value: Any) -> tuple[str, ...]:
    """Aliases and phrases arrive as a list or a comma-separated string."""
    items = value if isinstance(value, list | tuple) else str(value or "").split(",")
    return tuple(word for item in items if (word := one_line(str(item), 60)))


@dataclass(frozen=True, slots=True)
class Option:
    """One option, whole."""

    key: str
    section: str
    kind: Kind
    default: Any = None
    # NUMBER: the range, its step (whole numbers when 1), unit and widget.
    minimum: float = 0
    maximum: float = 0
    step: float = 1
    unit: str | None = None
    slider: bool = False
    # ENTITY, ENTITIES: the domains offered (any when empty).
    domains: tuple[str, ...] = ()
    # CHOICES: the values offered (the options flow fills in those that depend on the house).
    choices: Callable[[], list[str]] = list

    def selector(self) -> Selector[Any]:
        """Return how the option is picked in the form."""
        if self.kind is Kind.NUMBER:
            mode = NumberSelectorMode.SLIDER if self.slider else NumberSelectorMode.BOX
            number = NumberSelectorConfig(min=self.minimum, max=self.maximum, step=self.step, mode=mode)
            if self.unit:
                number["unit_of_measurement"] = self.unit
            return NumberSelector(number)
        if self.kind in (Kind.ENTITY, Kind.ENTITIES):
            entity = EntitySelectorConfig(multiple=self.kind is Kind.ENTITIES)
            if self.domains:
                entity["domain"] = list(self.domains)
            return EntitySelector(entity)
        if self.kind is Kind.WORDS:
            return TextSelector(TextSelectorConfig(multiple=True))
        if self.kind is Kind.TEXT:
            return TextSelector()
        if self.kind is Kind.LANGUAGE:
            return LanguageSelector(LanguageSelectorConfig(languages=self.choices()))
        return SelectSelector(SelectSelectorConfig(options=self.choices(), multiple=True))

    def stored(self, value: Any) -> Any:
        """Return what the form's value is kept as in entry.options (None: not kept, the default holds)."""
        if self.kind is Kind.NUMBER:
            if value is None:
                return self.default
            return int(value) if self.step == 1 else float(value)
        if self.kind is Kind.WORDS:
            return list(split_words(value))
        if self.kind in (Kind.ENTITIES, Kind.CHOICES):
            return list(value or [])
        return value or None

    def shown(self, options: Mapping[str, Any]) -> Any:
        """Return what the form shows: the stored value, else the default."""
        value = options.get(self.key, self.default)
        return list(value) if isinstance(value, tuple) else value

    def read(self, options: Mapping[str, Any]) -> Any:
        """Return the option's value for the settings: what is stored, or the default."""
        value = options.get(self.key)
        if self.kind is Kind.NUMBER:
            return self.default if value is None else value
        if self.kind is Kind.WORDS:
            return split_words(value) if value is not None else self.default
        if self.kind in (Kind.ENTITIES, Kind.CHOICES):
            return tuple(value or ())
        if self.kind is Kind.TEXT:
            return one_line(str(value or ""), FALLBACK_LINE_CHARS)
        if self.kind is Kind.LANGUAGE:
            return value if isinstance(value, str) and value in self.choices() else ""
        return value or None


def _number(
    key: str, section: str, default: float, low: float, high: float, unit: str | None = None
) -> Option:
    return Option(key, section, Kind.NUMBER, default, minimum=low, maximum=high, unit=unit)


def _guarded_tools() -> list[str]:
    """Tools a person can be made to approve: every tool with a cooldown group."""
    return [spec.name for spec in TOOL_SPECS if spec.group is not None]


# An overseer's options, in the form's order: section by section.
OVERSEER_OPTIONS: tuple[Option, ...] = (
    Option(CONF_ROVER_ENTITIES, "room", Kind.ENTITIES),
    Option(CONF_LIFT_COVER, "room", Kind.ENTITY, domains=("cover",)),
    Option(CONF_LIFT_UP_SCRIPT, "room", Kind.ENTITY, domains=("script",)),
    Option(CONF_LIFT_DOWN_SCRIPT, "room", Kind.ENTITY, domains=("script",)),
    Option(CONF_VACUUM_ENTITY, "room", Kind.ENTITY, domains=("vacuum",)),
    Option(CONF_VACUUM_CLEAR_ERRORS_SCRIPT, "room", Kind.ENTITY, domains=("script",)),
    Option(CONF_LIGHT_ENTITIES, "room", Kind.ENTITIES, domains=("light", "switch", "input_boolean")),
    Option(CONF_COUNTER_ENTITY, "room", Kind.ENTITY, domains=("counter", "input_number")),
    Option(CONF_STATE_ENTITIES, "room", Kind.ENTITIES),
    Option(CONF_ASSET_ENTITIES, "room", Kind.ENTITIES),
    Option(CONF_ALIASES, "addressing", Kind.WORDS, ()),
    Option(CONF_CHALLENGE_PHRASES, "addressing", Kind.WORDS, DEFAULT_CHALLENGES),
    # Empty: the built-in line in Home Assistant's language.
    Option(CONF_FALLBACK_LINE, "addressing", Kind.TEXT, ""),
    # Empty: Home Assistant's language. Those the overseer reads and answers in whole.
    Option(CONF_LANGUAGE, "addressing", Kind.LANGUAGE, "", choices=lambda: list(SPOKEN_LANGUAGES)),
    *(
        _number(cooldown_option(group), "guardrails", DEFAULT_COOLDOWNS[group], 0, 3600, "s")
        for group in CooldownGroup
    ),
    _number("counter_max_step", "guardrails", 1, 1, 100),
    _number("action_budget", "guardrails", 3, 0, 100),
    _number("action_window", "guardrails", 300, 10, 86400, "s"),
    _number("max_tool_calls", "guardrails", 1, 1, 5),
    Option(CONF_APPROVAL_TOOLS, "guardrails", Kind.CHOICES, choices=_guarded_tools),
    _number("gate_interval", "timing", 2, 1, 60, "s"),
    _number("heartbeat", "timing", 30, 10, 3600, "s"),
    _number("min_gap", "timing", 15, 0, 3600, "s"),
    _number("quiet_limit", "timing", 300, 0, 3600, "s"),
    _number("stale_after", "timing", 90, 5, 3600, "s"),
    _number("request_timeout", "timing", 60, 5, 600, "s"),
    _number("transcript_turns", "transcript", 30, 1, 200),
    _number("transcript_minutes", "transcript", 10, 1, 240, "min"),
    _number("min_human_messages", "transcript", 5, 0, 50),
    _number("bot_messages", "transcript", 2, 0, 10),
    # The choices are this Home Assistant's people and notify actions: the options flow's.
    Option(CONF_APPROVERS, "incidents", Kind.CHOICES),
    Option(CONF_APPROVAL_NOTIFY, "incidents", Kind.CHOICES),
    _number("approval_timeout", "incidents", 600, 60, 86400, "s"),
    _number("verify_after", "incidents", 30, 5, 3600, "s"),
    # 0: every consequential call asks a person, every time.
    _number("max_grant_minutes", "incidents", 0, 0, 1440, "min"),
)
# The sections shown open: what a new room needs first.
OPEN_SECTIONS = frozenset({"room", "guardrails"})

# An orchestrator's limits (its participants have a form step of their own).
ORCHESTRATOR_OPTIONS: tuple[Option, ...] = (
    _number("max_iterations", "limits", 3, 1, 5),
    Option("quality_threshold", "limits", Kind.NUMBER, 0.8, minimum=0, maximum=1, step=0.05, slider=True),
    _number("delegation_timeout", "limits", 30, 5, 600, "s"),
)


def sections(table: tuple[Option, ...]) -> dict[str, tuple[Option, ...]]:
    """Return the table's options by section, in order."""
    found: dict[str, list[Option]] = {}
    for option in table:
        found.setdefault(option.section, []).append(option)
    return {name: tuple(options) for name, options in found.items()}


def read_all(table: tuple[Option, ...], options: Mapping[str, Any]) -> dict[str, Any]:
    """Every option of the table as the settings read it."""
    return {option.key: option.read(options) for option in table}
