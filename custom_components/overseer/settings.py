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
    CONF_COUNTER_ENTITY,
    CONF_FALLBACK_LINE,
    CONF_LANGUAGE,
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
)
from .core.context import TranscriptBounds
from .core.decision import DecisionRules
from .core.gate import GateConfig
from .core.pipeline import Participant, PipelineLimits
from .core.policy import Limits
from .core.text import fold, one_line
from .core.tools import CooldownGroup, cooldown_option
from .core.world import Role
from .options import ORCHESTRATOR_OPTIONS, OVERSEER_OPTIONS, read_all

# The colour names light.turn_on accepts, from Home Assistant itself.
LIGHT_COLOUR_NAMES = frozenset(COLORS)


def resolve_name(data: Mapping[str, Any]) -> str:
    """Resolve the overseer's name: the single source for nickname, prompt and address matching."""
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
    counter_entity: str | None
    light_entities: tuple[str, ...]
    state_entities: tuple[str, ...]
    # Entities watched for faults beyond the room's own devices.
    asset_entities: tuple[str, ...]
    # User ids who may approve (empty: every admin), and the notify actions that ask them.
    approvers: tuple[str, ...]
    approval_notify: tuple[str, ...]
    approval_timeout: float
    verify_after: float
    # The longest an approver may let one call run again without asking (0: grants off).
    max_grant_minutes: int
    gate: GateConfig
    limits: Limits
    bounds: TranscriptBounds
    rules: DecisionRules
    gate_interval: float
    stale_after: float
    request_timeout: float
    # [user] stands for who asked; the shell fills in the translated default when it is empty.
    fallback_line: str = ""
    # The room's language ("": Home Assistant's): its prompts, and answers to lines in no other.
    language: str = ""

    @classmethod
    def from_entry(cls, data: Mapping[str, Any], options: Mapping[str, Any]) -> Settings:
        """Read entry.data and entry.options (through the options table, with its defaults)."""
        value = read_all(OVERSEER_OPTIONS, options)
        name = resolve_name(data)
        return cls(
            name=name,
            room=room_key(data.get(CONF_ROOM)),
            backend=str(data.get(CONF_BACKEND, BACKEND_OLLAMA)),
            url=str(data.get(CONF_URL, DEFAULT_OLLAMA_URL)),
            model=str(data.get(CONF_MODEL, "")),
            api_key=str(data.get(CONF_API_KEY, "")),
            agent_id=str(data.get(CONF_AGENT_ID, "")),
            rover_entities=value[CONF_ROVER_ENTITIES],
            lift_cover=value[CONF_LIFT_COVER],
            lift_up_script=value[CONF_LIFT_UP_SCRIPT],
            lift_down_script=value[CONF_LIFT_DOWN_SCRIPT],
            vacuum_entity=value[CONF_VACUUM_ENTITY],
            vacuum_clear_errors_script=value[CONF_VACUUM_CLEAR_ERRORS_SCRIPT],
            counter_entity=value[CONF_COUNTER_ENTITY],
            light_entities=value[CONF_LIGHT_ENTITIES],
            state_entities=value[CONF_STATE_ENTITIES],
            asset_entities=value[CONF_ASSET_ENTITIES],
            approvers=value[CONF_APPROVERS],
            approval_notify=value[CONF_APPROVAL_NOTIFY],
            approval_timeout=value["approval_timeout"],
            verify_after=value["verify_after"],
            max_grant_minutes=int(value["max_grant_minutes"]),
            gate=GateConfig(
                name=name,
                aliases=value[CONF_ALIASES],
                challenge_phrases=value[CONF_CHALLENGE_PHRASES],
                heartbeat=value["heartbeat"],
                min_gap=value["min_gap"],
                quiet_limit=value["quiet_limit"],
            ),
            limits=Limits(
                cooldowns={group: value[cooldown_option(group)] for group in CooldownGroup},
                action_budget=int(value["action_budget"]),
                action_window=value["action_window"],
                consequential=frozenset(value[CONF_APPROVAL_TOOLS]),
                colour_names=LIGHT_COLOUR_NAMES,
                counter_max_step=int(value["counter_max_step"]),
            ),
            bounds=TranscriptBounds(
                turns=int(value["transcript_turns"]),
                minutes=value["transcript_minutes"],
                min_human=int(value["min_human_messages"]),
                bot_messages=int(value["bot_messages"]),
            ),
            rules=DecisionRules(max_tool_calls=int(value["max_tool_calls"])),
            gate_interval=value["gate_interval"],
            stale_after=value["stale_after"],
            request_timeout=value["request_timeout"],
            fallback_line=value[CONF_FALLBACK_LINE],
            language=value[CONF_LANGUAGE],
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
        """Return the participants (malformed items left out) and the limits, with the contract's defaults."""
        participants = []
        for item in options.get(CONF_PARTICIPANTS) or ():
            if isinstance(item, Mapping) and isinstance(item.get("agent_id"), str):
                agent_id = item["agent_id"]
                name = one_line(str(item.get("name") or agent_id.partition(".")[2] or agent_id), 40)
                description = one_line(str(item.get("description") or ""), PARTICIPANT_DESCRIPTION_CHARS)
                participants.append(Participant(agent_id, name, description))
        value = read_all(ORCHESTRATOR_OPTIONS, options)
        limits = PipelineLimits(
            int(value["max_iterations"]),
            float(value["quality_threshold"]),
            float(value["delegation_timeout"]),
        )
        return cls(tuple(participants), limits)
