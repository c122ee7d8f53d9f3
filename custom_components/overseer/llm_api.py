"""The overseer's guardrails as a Home Assistant LLM API, for any agent that controls the room.

An agent given this API (and only this one) reaches the room's tools through the same executor
as the overseer's own decisions: policy at that instant, cooldowns, the shared action budget,
site-mode locks, the allowlist, dry run and the audit. A refused call comes back as data the
calling model can read, with the reason code and how long to wait; it never raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import voluptuous as vol
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util.json import JsonObjectType
from homeassistant.util.ulid import ulid_now

from .const import Outcome, OverseerMode
from .core.context import render_state_update, render_tool_blocks
from .core.policy import Availability, Block, availability, room_tools, vocabulary
from .core.tools import TOOLS, Refusal, ToolSpec, Vocabulary
from .executor import Caller

if TYPE_CHECKING:
    from .coordinator import OverseerCoordinator

API_PROMPT = (
    "These tools act on the room {room} under its overseer's guardrails. Call only "
    "available_tools. A refused call returns error (the reason code) and, where waiting helps, "
    "retry_in_s: tell the user, do not retry sooner."
)
# The STATE_UPDATE's trigger line for a context built for another agent.
TRIGGER = "llm_api"
JSON_TYPES: dict[str, Any] = {"string": str, "integer": int}


API_ID_PREFIX = "overseer-"


def api_id(entry_id: str) -> str:
    """The LLM API id of one room, as the contract names it."""
    return f"{API_ID_PREFIX}{entry_id}"


def is_guardrails_api(llm_api_id: str) -> bool:
    """Whether an LLM API id is one room's guardrails."""
    return llm_api_id.startswith(API_ID_PREFIX)


def _parameters(spec: ToolSpec, words: Vocabulary) -> vol.Schema:
    """The registry's argument schema as voluptuous, the form agents turn into their tool schema.

    It describes; the executor validates (the same check as for the overseer's own calls).
    """
    schema = spec.json_schema(words)["function"]["parameters"]
    fields: dict[Any, Any] = {}
    for name, prop in schema["properties"].items():
        kind = vol.In(prop["enum"]) if "enum" in prop else JSON_TYPES[prop["type"]]
        fields[vol.Required(name, description=prop.get("description"))] = kind
    return vol.Schema(fields)


def _result(record: dict[str, Any]) -> JsonObjectType:
    """What the calling model reads back: what happened, or why not and when to try again."""
    outcome = record["outcome"]
    if outcome == Outcome.EXECUTED:
        return {"success": True, "tool": record["tool"], "outcome": outcome}
    result: JsonObjectType = {"success": False, "tool": record["tool"], "outcome": outcome}
    if outcome == Outcome.DRY_RUN:
        result["note"] = "dry run is on: the call was recorded, nothing was executed"
        return result
    result["error"] = record.get("reason") or outcome
    if record.get("remaining_s"):
        result["retry_in_s"] = record["remaining_s"]
    return result


def offered_to_agents(coordinator: OverseerCoordinator) -> frozenset[str]:
    """The tools another agent may call now.

    Every room tool in control mode (policy at the instant names the precise reason); none in
    commentary or off (that room acts for no one).
    """
    if coordinator.state.mode is not OverseerMode.CONTROL:
        return frozenset()
    return frozenset(room_tools(coordinator.world()))


class GuardedTool(llm.Tool):
    """One room tool of the registry, run through the overseer's executor."""

    def __init__(self, spec: ToolSpec, words: Vocabulary, coordinator: OverseerCoordinator) -> None:
        """Describe the tool from the registry; calls go to this room's coordinator."""
        self.name = spec.name
        self.description = spec.description
        self.parameters = _parameters(spec, words)
        self._coordinator = coordinator

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> JsonObjectType:
        """Check and run the call now; a refusal is an answer, never an exception."""
        coordinator = self._coordinator
        if not coordinator.running:
            # An instance from before the room was unloaded or reloaded: its guardrails are gone.
            return {"success": False, "tool": self.name, "outcome": "blocked", "error": Refusal.NOT_AVAILABLE}
        platform = llm_context.platform or "agent"
        record = await coordinator.executor.async_execute(
            f"{platform}-{ulid_now()}",
            self.name,
            tool_input.tool_args,
            offered_to_agents(coordinator),
            coordinator.state.dry_run,
            Caller(f"agent:{platform}", llm_context.context),
        )
        return _result(record)


class GuardrailsAPI(llm.API):
    """One room's tools for other agents, registered as overseer-<entry_id>."""

    def __init__(self, hass: HomeAssistant, coordinator: OverseerCoordinator) -> None:
        """Name the API after the room."""
        entry = coordinator.entry
        super().__init__(hass=hass, id=api_id(entry.entry_id), name=f"Overseer guardrails ({entry.title})")
        self._coordinator = coordinator

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """The room's tools now, and the compact STATE_UPDATE with what is blocked and why."""
        coordinator = self._coordinator
        settings = coordinator.settings
        world = coordinator.world()
        now = coordinator.now()
        tools = room_tools(world)
        if coordinator.state.mode is OverseerMode.CONTROL:
            split = availability(world, coordinator.state.ledger, settings.limits, now).only(tools)
        else:  # every call would be refused: say so
            split = Availability((), tuple((name, Block(Refusal.NOT_AVAILABLE)) for name in tools))
        available, blocked = render_tool_blocks(split)
        state_update = render_state_update(world, TRIGGER, coordinator.state.ledger, settings.limits, now)
        words = vocabulary(world, settings.limits)
        return llm.APIInstance(
            api=self,
            api_prompt="\n".join(
                (API_PROMPT.format(room=coordinator.entry.title), state_update, available, blocked)
            ),
            llm_context=llm_context,
            tools=[GuardedTool(TOOLS[name], words, coordinator) for name in tools],
        )
