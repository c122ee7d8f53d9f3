"""The overseer's guardrails as a Home Assistant LLM API, for any agent that controls the room.

An agent given this API (and only this one) reaches the room's tools through the same executor
as the overseer's own decisions: policy at that instant, cooldowns, the shared action budget,
site-mode locks, the allowlist, dry run and the audit. A refused call comes back as data the
calling model can read, with the reason code and how long to wait; it never raises.

From 2026.11 a conversation keeps the API instance of its first turn for later turns (so its
prompt stays as it was then, and survives a reload of the room). Nothing here trusts that
snapshot: every call finds the room's loaded overseer by entry id and asks policy at that
instant, and room_state reads the room as it is now.

Who reads what: the prompt, the tools' descriptions and the state blocks are for the calling
model and stay English, as every prompt of the room's own model is written; the reason codes
are the contract's. A note beside a result says in plain words what the model is to tell the
person (it waits for approval, the room is starting again): small models repeat it as it is,
so it comes in the conversation's language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util.ulid import ulid_now

from .compat import tool_annotations, tool_result, vol
from .const import DOMAIN, LANGUAGE_TAG, OverseerMode
from .core.accounts import Phrase
from .core.approvals import ApprovalSource
from .core.audit import AuditRecord, Outcome
from .core.context import render_state_update, render_tool_blocks
from .core.policy import Availability, Block, availability, room_tools, vocabulary
from .core.results import call_result
from .core.tools import TOOLS, Refusal, Safety, ToolSpec, Vocabulary
from .executor import Caller
from .identity import caller_identity
from .phrases import async_phrases
from .roster import asked_for
from .runtime import overseer_data

if TYPE_CHECKING:
    from .loop import OverseerLoop

API_PROMPT = (
    "These tools act on the room {room} under its overseer's guardrails. The state and tool "
    "lists below are from when this conversation began; a call's result is what holds now, "
    "and room_state reads the room as it is now. A refused call returns error (the reason "
    "code) and, where waiting helps, retry_in_s: tell the user, do not retry sooner. A call "
    "with outcome awaiting_approval has not run: a person decides; tell the user it waits for "
    "approval (its approval_id), never that it is done."
)
# The STATE_UPDATE's trigger line for a context built for another agent.
TRIGGER = "llm_api"
JSON_TYPES: dict[str, Any] = {"string": str, "integer": int}
ROOM_STATE = "room_state"
# The note an agent reads when the room it was given is reloading, or no longer loaded: its key
# in the translations' messages.
ROOM_RELOADING = "llm_room_reloading"
ROOM_GONE = "llm_room_gone"
# The note beside a call that did not run though nothing refused it, by its outcome.
NOTES = {Outcome.AWAITING_APPROVAL.value: "llm_awaiting_approval", Outcome.DRY_RUN.value: "llm_dry_run"}
# States an entry passes through on its way back.
_COMING_BACK = frozenset(
    {ConfigEntryState.SETUP_IN_PROGRESS, ConfigEntryState.UNLOAD_IN_PROGRESS, ConfigEntryState.SETUP_RETRY}
)


API_ID_PREFIX = "overseer-"


def api_id(entry_id: str) -> str:
    """Return the LLM API id of one room, as the contract names it."""
    return f"{API_ID_PREFIX}{entry_id}"


def is_guardrails_api(llm_api_id: str) -> bool:
    """Whether an LLM API id is one room's guardrails."""
    return llm_api_id.startswith(API_ID_PREFIX)


def _parameters(spec: ToolSpec, words: Vocabulary) -> vol.Schema:
    """Return the registry's argument schema as voluptuous, the form agents turn into their tool schema.

    It describes; the executor validates (the same check as for the overseer's own calls).
    """
    schema = spec.json_schema(words)["function"]["parameters"]
    fields: dict[Any, Any] = {}
    for name, prop in schema["properties"].items():
        kind = vol.In(prop["enum"]) if "enum" in prop else JSON_TYPES[prop["type"]]
        fields[vol.Required(name, description=prop.get("description"))] = kind
    return vol.Schema(fields)


async def _async_note(hass: HomeAssistant, key: str, llm_context: llm.LLMContext) -> str:
    """Return a note in the conversation's language, English where the translations have none."""
    language = llm_context.language
    return (await async_phrases(hass, language if language and LANGUAGE_TAG.fullmatch(language) else None))(
        key
    )


async def _async_result(hass: HomeAssistant, record: AuditRecord, llm_context: llm.LLMContext) -> Any:
    """Return what the calling model reads back (core/results.py): what happened, or why not."""
    data, error = call_result(record)
    if "note" in data and (key := NOTES.get(data["outcome"])):
        data["note"] = await _async_note(hass, key, llm_context)
    return tool_result(data, error=error)


async def _async_room_gone(hass: HomeAssistant, entry_id: str, tool: str, llm_context: llm.LLMContext) -> Any:
    """Return the refusal for a room reloading (try again soon) or unloaded or removed (start again)."""
    entry = hass.config_entries.async_get_entry(entry_id)
    key = ROOM_RELOADING if entry is not None and entry.state in _COMING_BACK else ROOM_GONE
    note = await _async_note(hass, key, llm_context)
    return tool_result(
        {"success": False, "tool": tool, "outcome": "blocked", "error": Refusal.NOT_AVAILABLE, "note": note},
        error=True,
    )


def loaded_loop(hass: HomeAssistant, entry_id: str) -> OverseerLoop | None:
    """Return the room's overseer as loaded now (a reload makes a new one), or None."""
    entry = hass.config_entries.async_get_entry(entry_id)
    data = overseer_data(entry) if entry is not None else None
    return data.loop if data is not None and data.loop.running else None


def room_now(loop: OverseerLoop) -> tuple[str, str, str]:
    """Return the compact STATE_UPDATE and the available/blocked blocks, as the room is this instant."""
    settings = loop.settings
    world = loop.world()
    now = loop.now()
    tools = room_tools(world)
    if loop.state.mode is OverseerMode.CONTROL:
        split = availability(world, loop.state.ledger, settings.limits, now).only(tools)
    else:  # every call would be refused: say so
        split = Availability((), tuple((name, Block(Refusal.NOT_AVAILABLE)) for name in tools))
    available, blocked = render_tool_blocks(split)
    return (
        render_state_update(world, TRIGGER, loop.state.ledger, settings.limits, now),
        available,
        blocked,
    )


class _RoomTool(llm.Tool):
    """A tool of one room: each call finds the room's overseer as loaded at that moment."""

    integration = DOMAIN

    def __init__(self, entry_id: str) -> None:
        """Bound to the room's entry, not to one loaded overseer: a reload keeps the tool working."""
        self._entry_id = entry_id

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> Any:
        """Return the room's answer; a room that is gone says so."""
        loop = loaded_loop(hass, self._entry_id)
        if loop is None:
            return await _async_room_gone(hass, self._entry_id, self.name, llm_context)
        return await self._async_answer(loop, tool_input, llm_context)

    async def _async_answer(
        self, loop: OverseerLoop, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> Any:
        raise NotImplementedError


class GuardedTool(_RoomTool):
    """One room tool of the registry, run through the executor of the room's loaded overseer."""

    def __init__(self, spec: ToolSpec, words: Vocabulary, loop: OverseerLoop) -> None:
        """Describe the tool from the registry and the room's policy."""
        super().__init__(loop.entry.entry_id)
        self.name = spec.name
        self.title = spec.title
        self.description = spec.description
        self.parameters = _parameters(spec, words)
        # Consequential where the policy says so (approval_tools raises a tool to it).
        self.annotations = tool_annotations(
            read_only=False,
            destructive=loop.settings.limits.safety(spec.name) is Safety.CONSEQUENTIAL,
            idempotent=spec.idempotent,
        )

    async def _async_answer(
        self, loop: OverseerLoop, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> Any:
        """Check and run the call now; a refusal is an answer, never an exception."""
        platform = llm_context.platform or "agent"
        # A bot the room's orchestrator asked calls for the person who asked it.
        asker = asked_for(loop.hass, llm_context.context)
        record = await loop.executor.async_execute(
            f"{platform}-{ulid_now()}",
            self.name,
            tool_input.tool_args,
            loop.executor.room_offer(),
            loop.state.dry_run,
            Caller(
                f"agent:{platform}",
                llm_context.context,
                ApprovalSource.LLM_API,
                asker=asker.name if asker else "",
                identity=caller_identity(loop.hass, llm_context.context, llm_context.device_id),
            ),
        )
        if loop.executor.closing and record.reason == Refusal.NOT_AVAILABLE:
            # It waited for its turn while the room unloaded: the room that loads next takes it.
            return await _async_room_gone(loop.hass, self._entry_id, self.name, llm_context)
        return await _async_result(loop.hass, record, llm_context)


class RoomStateTool(_RoomTool):
    """The room as it is now: what a conversation's first-turn prompt can no longer say."""

    name = ROOM_STATE
    title = "Read the room"
    description = "The room's state now, and which of its tools are available or blocked and why."

    def __init__(self, entry_id: str) -> None:
        """Read-only, idempotent and closed-world."""
        super().__init__(entry_id)
        self.annotations = tool_annotations(read_only=True, destructive=False, idempotent=True)

    async def _async_answer(
        self, loop: OverseerLoop, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> Any:
        """Read; nothing changes, so nothing is audited."""
        state_update, available, blocked = room_now(loop)
        return tool_result(
            {"success": True, "state": "\n".join((state_update, available, blocked))}, error=False
        )


class GuardrailsAPI(llm.API):
    """One room's tools for other agents, registered as overseer-<entry_id>."""

    def __init__(self, hass: HomeAssistant, loop: OverseerLoop, phrase: Phrase) -> None:
        """Name the API after the room, in the room's language: people pick it in an agent's options."""
        entry = loop.entry
        super().__init__(hass=hass, id=api_id(entry.entry_id), name=phrase("llm_api_name", room=entry.title))
        self._loop = loop

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """Return the room's tools now, and the compact STATE_UPDATE with what is blocked and why."""
        loop = self._loop
        words = vocabulary(loop.world(), loop.settings.limits)
        tools: list[llm.Tool] = [GuardedTool(TOOLS[name], words, loop) for name in room_tools(loop.world())]
        tools.append(RoomStateTool(loop.entry.entry_id))
        return llm.APIInstance(
            api=self,
            api_prompt="\n".join((API_PROMPT.format(room=loop.entry.title), *room_now(loop))),
            llm_context=llm_context,
            tools=tools,
        )
