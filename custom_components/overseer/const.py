"""Constants of the overseer integration: the names fixed by the contract."""

from __future__ import annotations

import logging
import re
from enum import StrEnum
from typing import Final

from .core.world import Target

LOGGER = logging.getLogger(__package__)

DOMAIN: Final = "overseer"
# A language tag as the frontend and Assist send them (en, de, pt-BR, zh-Hant); anything else is
# ignored, never looked up as a translation file.
LANGUAGE_TAG: Final = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")
DEFAULT_NAME: Final = "Overseer"
DEFAULT_ROOM: Final = "room"

# entry.data
CONF_ROOM: Final = "room"
CONF_BACKEND: Final = "backend"
CONF_AGENT_ID: Final = "agent_id"
# An entry is an overseer (absent) or the room's orchestrator.
CONF_KIND: Final = "kind"
KIND_OVERSEER: Final = "overseer"
KIND_ORCHESTRATOR: Final = "orchestrator"

BACKEND_OLLAMA: Final = "ollama"
BACKEND_OPENAI: Final = "openai"
BACKEND_CONVERSATION: Final = "conversation"
DEFAULT_OLLAMA_URL: Final = "http://localhost:11434"
DEFAULT_OPENAI_URL: Final = "http://127.0.0.1:8000/v1"
# The built-in agent runs intents itself: it is not a model and would bypass the guardrails.
BUILTIN_AGENT: Final = "conversation.home_assistant"

# entry.options: room entities
CONF_ROVER_ENTITIES: Final = "rover_entities"
# The tools' targets: the registry names them, the options flow offers them.
CONF_LIFT_COVER: Final = Target.LIFT_COVER.value
CONF_LIFT_UP_SCRIPT: Final = Target.LIFT_UP_SCRIPT.value
CONF_LIFT_DOWN_SCRIPT: Final = Target.LIFT_DOWN_SCRIPT.value
CONF_VACUUM_ENTITY: Final = Target.VACUUM.value
CONF_VACUUM_CLEAR_ERRORS_SCRIPT: Final = Target.VACUUM_CLEAR_ERRORS_SCRIPT.value
CONF_COUNTER_ENTITY: Final = Target.COUNTER.value
CONF_LIGHT_ENTITIES: Final = Target.LIGHTS.value
CONF_STATE_ENTITIES: Final = "state_entities"
CONF_ASSET_ENTITIES: Final = "asset_entities"
CONF_ALIASES: Final = "aliases"
CONF_CHALLENGE_PHRASES: Final = "challenge_phrases"
# Posted when someone asked and the model, asked twice, had nothing usable; empty = translated default.
CONF_FALLBACK_LINE: Final = "fallback_line"
CONF_LANGUAGE: Final = "language"
# Room tools a person must approve: proposed by the model, never executed directly.
CONF_APPROVAL_TOOLS: Final = "approval_tools"
# Who may approve a consequential call (user ids; empty = every admin), and which notify
# actions get an actionable notification for each approval.
CONF_APPROVERS: Final = "approvers"
CONF_APPROVAL_NOTIFY: Final = "approval_notify"

# entry.options of an orchestrator
CONF_PARTICIPANTS: Final = "participants"

# Ollama request settings (the same meaning as in core's ollama integration).
OLLAMA_NUM_CTX: Final = 8192
OLLAMA_KEEP_ALIVE: Final = -1  # keep the model loaded: one decision every few seconds

# Chat bus and other events
EVENT_CHAT_MESSAGE: Final = "overseer_chat_message"
EVENT_CHAT_TYPING: Final = "overseer_chat_typing"
EVENT_DECISION: Final = "overseer_decision"
EVENT_ACTION: Final = "overseer_action"
EVENT_INCIDENT: Final = "overseer_incident"
EVENT_APPROVAL: Final = "overseer_approval"
EVENT_PIPELINE: Final = "overseer_pipeline"
# Sent by the companion app when a notification's button is pressed.
EVENT_MOBILE_ACTION: Final = "mobile_app_notification_action"

# Services
SERVICE_POST_MESSAGE: Final = "post_message"
SERVICE_TRIGGER: Final = "trigger"
SERVICE_MEMORY_WRITE: Final = "memory_write"
SERVICE_MEMORY_CLEAR: Final = "memory_clear"
SERVICE_APPROVE: Final = "approve"
SERVICE_DENY: Final = "deny"
ATTR_APPROVAL_ID: Final = "approval_id"
ATTR_GRANT_MINUTES: Final = "grant_minutes"
ATTR_GRANT_ID: Final = "grant_id"
SERVICE_REVOKE_GRANT: Final = "revoke_grant"
ATTR_CONFIG_ENTRY_ID: Final = "config_entry_id"

# Bounds of the shell's buffers.
TRANSCRIPT_BUFFER: Final = 200
INCOMING_TEXT_CHARS: Final = 4000
USER_NAME_CHARS: Final = 64
RECENT_ACTIONS: Final = 20
FAILURES_BEFORE_REPAIR: Final = 3
MAX_BACKOFF: Final = 300

SIGNAL_STATUS: Final = f"{DOMAIN}_status_{{}}"


def status_signal(entry_id: str) -> str:
    """Return the dispatcher signal of a room.

    The room sends it whenever what its entities or its status show may have changed.
    """
    return SIGNAL_STATUS.format(entry_id)


ISSUE_MODEL_UNREACHABLE: Final = "model_unreachable"
ISSUE_AGENT_CAN_CONTROL: Final = "agent_can_control"
ISSUE_INCIDENT_NEEDS_HUMAN: Final = "incident_needs_human"


class Phase(StrEnum):
    """Loop phases of the contract."""

    IDLE = "idle"
    GATE_CHECK = "gate_check"
    AWAITING_MODEL = "awaiting_model"
    TOOL_EXEC = "tool_exec"
    POSTED = "posted"
    FAILED = "failed"


class OverseerMode(StrEnum):
    """Which overseer runs: the control-first v2, the legacy commentator, or none."""

    CONTROL = "control"
    COMMENTARY = "commentary"
    OFF = "off"
