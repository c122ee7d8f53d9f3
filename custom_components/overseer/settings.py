"""One place that turns a config entry into the settings every part reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_NAME, CONF_URL
from homeassistant.util.color import COLORS

from .const import (
    BACKEND_OLLAMA,
    CONF_AGENT_ID,
    CONF_ALIASES,
    CONF_APPROVAL_NOTIFY,
    CONF_APPROVAL_TOOLS,
    CONF_APPROVERS,
    CONF_ASSET_ENTITIES,
    CONF_BACKEND,
    CONF_CHALLENGE_PHRASES,
    CONF_FALLBACK_LINE,
    CONF_LIFT_COVER,
    CONF_LIFT_DOWN_SCRIPT,
    CONF_LIFT_UP_SCRIPT,
    CONF_LIGHT_ENTITIES,
    CONF_PARTICIPANTS,
    CONF_ROOM,
    CONF_ROVER_ENTITIES,
    CONF_STATE_ENTITIES,
    CONF_VACUUM_CLEAR_ERRORS_SCRIPT,
    CONF_VACUUM_ENTITY,
    DEFAULT_NAME,
    DEFAULT_OLLAMA_URL,
    DEFAULT_ROOM,
    NUMBER_DEFAULTS,
    ORCHESTRATOR_DEFAULTS,
)
from .core.context import TranscriptBounds
from .core.decision import DecisionRules
from .core.gate import DEFAULT_CHALLENGES, GateConfig
from .core.orchestration import Participant, PipelineLimits
from .core.policy import Limits
from .core.text import fold, one_line
from .core.tools import CooldownGroup, cooldown_option
from .core.world import Role

# The colour names light.turn_on accepts, from Home Assistant itself.
LIGHT_COLOUR_NAMES = frozenset(COLORS)


def split_words(value: Any) -> tuple[str, ...]:
    """Aliases and phrases arrive as a list or a comma-separated string."""
    items = value if isinstance(value, list | tuple) else str(value or "").split(",")
    return tuple(word for item in items if (word := one_line(str(item), 60)))


def resolve_name(data: Mapping[str, Any]) -> str:
    """The overseer's name: the single source for nickname, prompt and address matching."""
    return one_line(str(data.get(CONF_NAME) or ""), 40) or DEFAULT_NAME


def room_key(room: Any) -> str:
    """Rooms compare case- and look-alike-insensitively."""
    return fold(str(room or "")) or DEFAULT_ROOM


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything configured for one room's overseer."""

    name: str
    room: str
    backend: str
    url: str
    model: str
    api_key: str
    agent_id: str
    rover_entities: tuple[str, ...]
    lift_cover: str | None
    lift_up_script: str | None
    lift_down_script: str | None
    vacuum_entity: str | None
    vacuum_clear_errors_script: str | None
    light_entities: tuple[str, ...]
    state_entities: tuple[str, ...]
    # Entities watched for faults beyond the room's own devices.
    asset_entities: tuple[str, ...]
    # User ids who may approve (empty: every admin), and the notify actions that ask them.
    approvers: tuple[str, ...]
    approval_notify: tuple[str, ...]
    approval_timeout: float
    verify_after: float
    gate: GateConfig
    limits: Limits
    bounds: TranscriptBounds
    rules: DecisionRules
    gate_interval: float
    stale_after: float
    request_timeout: float
    # [user] stands for who asked; the shell fills in the translated default when it is empty.
    fallback_line: str = ""

    @classmethod
    def from_entry(cls, data: Mapping[str, Any], options: Mapping[str, Any]) -> Settings:
        """Read entry.data and entry.options, filling the contract's defaults."""
        number = {key: options.get(key, default) for key, default in NUMBER_DEFAULTS.items()}
        name = resolve_name(data)
        phrases = options.get(CONF_CHALLENGE_PHRASES)
        return cls(
            name=name,
            room=room_key(data.get(CONF_ROOM)),
            backend=str(data.get(CONF_BACKEND, BACKEND_OLLAMA)),
            url=str(data.get(CONF_URL, DEFAULT_OLLAMA_URL)),
            model=str(data.get(CONF_MODEL, "")),
            api_key=str(data.get(CONF_API_KEY, "")),
            agent_id=str(data.get(CONF_AGENT_ID, "")),
            rover_entities=tuple(options.get(CONF_ROVER_ENTITIES, ())),
            lift_cover=options.get(CONF_LIFT_COVER) or None,
            lift_up_script=options.get(CONF_LIFT_UP_SCRIPT) or None,
            lift_down_script=options.get(CONF_LIFT_DOWN_SCRIPT) or None,
            vacuum_entity=options.get(CONF_VACUUM_ENTITY) or None,
            vacuum_clear_errors_script=options.get(CONF_VACUUM_CLEAR_ERRORS_SCRIPT) or None,
            light_entities=tuple(options.get(CONF_LIGHT_ENTITIES, ())),
            state_entities=tuple(options.get(CONF_STATE_ENTITIES, ())),
            asset_entities=tuple(options.get(CONF_ASSET_ENTITIES, ())),
            approvers=tuple(options.get(CONF_APPROVERS, ())),
            approval_notify=tuple(options.get(CONF_APPROVAL_NOTIFY, ())),
            approval_timeout=number["approval_timeout"],
            verify_after=number["verify_after"],
            gate=GateConfig(
                name=name,
                aliases=split_words(options.get(CONF_ALIASES)),
                challenge_phrases=split_words(phrases) if phrases is not None else DEFAULT_CHALLENGES,
                heartbeat=number["heartbeat"],
                min_gap=number["min_gap"],
            ),
            limits=Limits(
                cooldowns={group: number[cooldown_option(group)] for group in CooldownGroup},
                action_budget=int(number["action_budget"]),
                action_window=number["action_window"],
                consequential=frozenset(options.get(CONF_APPROVAL_TOOLS, ())),
                colour_names=LIGHT_COLOUR_NAMES,
            ),
            bounds=TranscriptBounds(
                turns=int(number["transcript_turns"]),
                minutes=number["transcript_minutes"],
                min_human=int(number["min_human_messages"]),
                bot_messages=int(number["bot_messages"]),
            ),
            rules=DecisionRules(max_tool_calls=int(number["max_tool_calls"])),
            gate_interval=number["gate_interval"],
            stale_after=number["stale_after"],
            request_timeout=number["request_timeout"],
            fallback_line=one_line(str(options.get(CONF_FALLBACK_LINE) or ""), 280),
        )

    def watched(self) -> dict[str, Role]:
        """Every entity the overseer watches, with the role that decides its events."""
        roles: dict[str, Role] = {}
        for entity_id in self.state_entities:
            roles[entity_id] = Role.STATE
        for entity_id in self.light_entities:
            roles[entity_id] = Role.LIGHT
        for lift_entity in (self.lift_cover, self.lift_up_script, self.lift_down_script):
            if lift_entity:
                roles[lift_entity] = Role.LIFT
        if self.vacuum_entity:
            roles[self.vacuum_entity] = Role.VACUUM
        for entity_id in self.rover_entities:
            roles[entity_id] = Role.ROVER
        return roles


PARTICIPANT_DESCRIPTION_CHARS = 200


@dataclass(frozen=True, slots=True)
class OrchestratorSettings:
    """An orchestrator's own options: who takes part, and the pipeline's limits."""

    participants: tuple[Participant, ...]
    limits: PipelineLimits

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> OrchestratorSettings:
        """The participants (malformed items left out) and the limits, with the contract's defaults."""
        participants = []
        for item in options.get(CONF_PARTICIPANTS) or ():
            if isinstance(item, Mapping) and isinstance(item.get("agent_id"), str):
                agent_id = item["agent_id"]
                name = one_line(str(item.get("name") or agent_id.partition(".")[2] or agent_id), 40)
                description = one_line(str(item.get("description") or ""), PARTICIPANT_DESCRIPTION_CHARS)
                participants.append(Participant(agent_id, name, description))
        values = {**ORCHESTRATOR_DEFAULTS, **{k: v for k, v in options.items() if k in ORCHESTRATOR_DEFAULTS}}
        limits = PipelineLimits(
            int(values["max_iterations"]),
            float(values["quality_threshold"]),
            float(values["delegation_timeout"]),
        )
        return cls(tuple(participants), limits)
