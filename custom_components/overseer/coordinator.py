"""The loop: gate on a timer, one model call at a time, guarded execution, audit."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from homeassistant.core import CALLBACK_TYPE, Event, EventStateChangedData, HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.helpers.event import (
    async_call_later,
    async_track_state_change_event,
    async_track_time_interval,
)
from homeassistant.util import dt as dt_util
from homeassistant.util.ulid import ulid_now

from .chat import parse_chat_event, post_line, set_typing
from .const import (
    DOMAIN,
    EVENT_CHAT_MESSAGE,
    EVENT_DECISION,
    FAILURES_BEFORE_REPAIR,
    ISSUE_MODEL_UNREACHABLE,
    LOGGER,
    MAX_BACKOFF,
    TRANSCRIPT_BUFFER,
    OverseerMode,
    Phase,
)
from .core.context import (
    ChatLine,
    InputSummary,
    build_messages,
    render_state_update,
    select_transcript,
    summarise,
)
from .core.decision import NOTE_REPEAT_DROPPED, Decision, normalise
from .core.gate import Gate, Trigger
from .core.metrics import Metrics
from .core.policy import Availability, availability, configured_tools, usable_allowlist
from .core.text import fold
from .core.tools import json_schema
from .core.world import Role, SiteMode, World, material_state, rover_field, world_event
from .executor import Executor
from .models import OverseerConfigEntry, RoomState
from .providers import ModelError, ModelReply, Provider
from .room import build_world
from .settings import Settings
from .store import OverseerStore
from .websocket import status_signal

PROMPT_DIR = Path(__file__).parent / "prompts"
PEOPLE_WINDOW = 300
# While the model cannot be reached, check it this often even if nothing triggers a decision.
PROBE_INTERVAL = 60
HEALTH_BY_ERROR = {
    "cannot_connect": "unreachable",
    "timeout": "unreachable",
    "model_not_found": "model_not_found",
}


@dataclass
class Cycle:
    """What one decision saw, asked, got and did: the debug card's main subject."""

    decision_id: str
    trigger: Trigger
    mode: OverseerMode
    state_update: str = ""
    model_input: InputSummary | None = None
    tools: Availability = field(default_factory=lambda: Availability((), ()))
    reply: ModelReply | None = None
    decision: Decision | None = None
    latency: float | None = None
    stale: bool = False
    actions: list[dict[str, Any]] = field(default_factory=list)


def load_prompt(config_dir: Path, file_name: str) -> str:
    """The user's copy in <config>/overseer/prompts/ if there is one, else the shipped file."""
    for folder in (config_dir / DOMAIN / "prompts", PROMPT_DIR):
        path = folder / file_name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(file_name)


class OverseerCoordinator:
    """Owns one room's clock, buffers, state and the single in-flight decision."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry: OverseerConfigEntry,
        settings: Settings,
        provider: Provider,
        state: RoomState,
        store: OverseerStore,
        prompts: dict[OverseerMode, str],
    ) -> None:
        """Wire the pure core to this room's Home Assistant state."""
        self.hass = hass
        self.entry = entry
        self.settings = settings
        self.state = state
        self._provider = provider
        self._store = store
        self._prompts = prompts
        now = self.now()
        self.gate = Gate(settings.gate, now)
        self.metrics = Metrics(started=now)
        self.transcript: deque[ChatLine] = deque(maxlen=TRANSCRIPT_BUFFER)
        self.executor = Executor(hass, settings, state, self.metrics, self.world, self._changed)
        self.phase = Phase.IDLE
        self.running = False
        self.last: Cycle | None = None
        self.last_error: str | None = None
        self._watched = settings.watched()
        self._task: asyncio.Task[None] | None = None
        self._failures = 0
        self._retry_at = 0.0
        self._listeners: list[CALLBACK_TYPE] = []
        self._unsubscribe: list[CALLBACK_TYPE] = []
        self._cooling = False
        self._probe_later: CALLBACK_TYPE | None = None
        # unknown, ok, unreachable, model_not_found or error; shown by the card.
        self.model_health = "unknown"
        self.model_detail: str | None = None

    @staticmethod
    def now() -> float:
        """Wall-clock seconds; persisted cooldowns must survive a restart."""
        return dt_util.utcnow().timestamp()

    # Lifecycle

    @callback
    def async_start(self) -> None:
        """Listen to the chat bus and the watched entities, and start the gate timer."""
        self._unsubscribe = [
            self.hass.bus.async_listen(EVENT_CHAT_MESSAGE, self._on_chat),
            async_track_time_interval(
                self.hass,
                self._tick,
                timedelta(seconds=self.settings.gate_interval),
                name=f"overseer gate {self.entry.title}",
                cancel_on_shutdown=True,
            ),
        ]
        if self._watched:
            self._unsubscribe.append(
                async_track_state_change_event(self.hass, list(self._watched), self._on_state)
            )
        self.running = True
        self._start_probe()
        self._notify()

    async def async_stop(self) -> None:
        """Stop listening, cancel the in-flight decision and write everything down."""
        self.running = False
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        if self._probe_later is not None:
            self._probe_later()
            self._probe_later = None
        await self._async_cancel_decision()
        await self._store.async_save(self.state.as_dict())
        self._notify()

    async def _async_cancel_decision(self) -> None:
        """Cancel the decision in flight, if any, and wait until it is gone."""
        task, self._task = self._task, None
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    # Model health

    @callback
    def _start_probe(self, _: datetime | None = None) -> None:
        """Check the model in the background, so the card can say it is unreachable early."""
        self._probe_later = None
        if self.running:
            self.entry.async_create_background_task(
                self.hass, self._async_probe(), f"overseer model check {self.entry.title}"
            )

    async def _async_probe(self) -> None:
        """One cheap check; checked again later while the model is not healthy."""
        try:
            await self._provider.async_check()
        except ModelError as err:
            self._set_health(err)
            if self.running:
                self._probe_later = async_call_later(self.hass, PROBE_INTERVAL, self._start_probe)
        else:
            self._set_health(None)
        self._notify()

    def _set_health(self, err: ModelError | None) -> None:
        """Remember whether the model answers, and why not."""
        self.model_health = "ok" if err is None else HEALTH_BY_ERROR.get(err.kind, "error")
        self.model_detail = None if err is None else err.detail[:200]

    # Entities and persistence

    @callback
    def async_add_listener(self, listener: CALLBACK_TYPE) -> CALLBACK_TYPE:
        """Call listener whenever something an entity shows changed."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    @callback
    def _changed(self) -> None:
        """Persist soon and tell listeners."""
        self._store.schedule_save(self.state.as_dict)
        self._notify()

    @callback
    def _notify(self) -> None:
        """Tell the entities and the status subscribers that something changed."""
        for listener in list(self._listeners):
            listener()
        async_dispatcher_send(self.hass, status_signal(self.entry.entry_id))

    # Controls (selects and switches)

    async def async_set_mode(self, mode: OverseerMode) -> None:
        """One flip: the old overseer's decision in flight is cancelled before the new runs."""
        if mode is self.state.mode:
            return
        await self._async_cancel_decision()
        self.state.mode = mode
        self.phase = Phase.IDLE
        self._changed()

    @callback
    def set_site_mode(self, site_mode: SiteMode) -> None:
        """Automations lock the room with this; the executor reads it at every call."""
        self.state.controls.site_mode = site_mode
        self._changed()

    @callback
    def set_lights_locked_on(self, locked: bool) -> None:
        """Lock or free the room lights."""
        self.state.controls.lights_locked_on = locked
        self._changed()

    @callback
    def set_dry_run(self, dry_run: bool) -> None:
        """Observe only: decisions run, nothing is executed or posted."""
        self.state.dry_run = dry_run
        self._changed()

    @callback
    def write_memory(self, slot: int, text: str) -> None:
        """Replace one memory slot (the service; the model uses memory_write)."""
        self.state.memory.write(slot, text)
        self._changed()

    @callback
    def clear_memory(self, slot: int | None) -> None:
        """Empty one memory slot, or all three."""
        self.state.memory.clear(slot)
        self._changed()

    @callback
    def request_decision(self) -> None:
        """The trigger service: a decision at the next tick, whatever the gate thinks."""
        self.gate.request_manual(self.now())

    # Inputs

    @callback
    def _on_chat(self, event: Event) -> None:
        """Take in a chat line addressed to this room (or to every room)."""
        chat = parse_chat_event(event.data)
        if chat is None or (chat.room is not None and fold(chat.room) != self.settings.room):
            return
        now = self.now()
        # Our own lines come back on the bus with the decision that wrote them.
        own = chat.bot and chat.user == self.settings.name and event.data.get("decision_id") is not None
        self.transcript.append(ChatLine(chat.user, chat.text, chat.bot, now, own))
        if self.state.mode is not OverseerMode.OFF:
            self.gate.observe_chat(chat.user, chat.text, chat.bot, now)

    @callback
    def _on_state(self, event: Event[EventStateChangedData]) -> None:
        """Turn a watched entity's change into a world event when it is high-signal."""
        new_state = event.data["new_state"]
        if new_state is None or self.state.mode is OverseerMode.OFF:
            return
        old_state = event.data["old_state"]
        entity_id = event.data["entity_id"]
        role = self._watched.get(entity_id, Role.STATE)
        name = str(new_state.attributes.get("friendly_name") or entity_id)
        field = rover_field(entity_id, name) if role is Role.ROVER else None
        happened = world_event(role, field, old_state.state if old_state else None, new_state.state)
        if happened:
            self.gate.observe_world(happened, name, self.now())

    # The loop

    @property
    def busy(self) -> bool:
        """A decision is in flight."""
        return self._task is not None and not self._task.done()

    @callback
    def _tick(self, _: datetime) -> None:
        """Every gate_interval: maybe start a decision; keep countdowns fresh."""
        now = self.now()
        cooling = any(self.state.ledger.remaining(group, now) for group in ("lift", "neato", "ha"))
        if cooling or self._cooling:
            self._notify()
        self._cooling = cooling
        if self.state.mode is OverseerMode.OFF:
            return
        trigger = self.gate.tick(now, busy=self.busy or now < self._retry_at)
        if trigger is None:
            if self.phase is Phase.POSTED and not self.busy:
                self._set_phase(Phase.IDLE)  # the line is out; the loop waits again
            return
        self._task = self.entry.async_create_background_task(
            self.hass, self._async_decide(trigger), f"overseer decision {self.entry.title}"
        )

    def world(self) -> World:
        """The room as it is now."""
        now = self.now()
        people: dict[str, None] = {}
        for line in reversed(self.transcript):
            if line.ts < now - PEOPLE_WINDOW:
                break
            if not line.bot:
                people.setdefault(line.user, None)
        return build_world(
            self.hass, self.settings, self.state.controls, self.state.memory.slots, tuple(people)[:12]
        )

    def _set_phase(self, phase: Phase) -> None:
        """Move to a loop phase and show it."""
        self.phase = phase
        self._notify()

    async def _async_decide(self, trigger: Trigger) -> None:
        """One decision cycle; whatever goes wrong, the loop survives."""
        cycle = Cycle(decision_id=ulid_now(), trigger=trigger, mode=self.state.mode)
        self.last = cycle
        try:
            await self._async_cycle(cycle)
        except asyncio.CancelledError:
            set_typing(self.hass, self.settings.room, self.settings.name, False)
            raise
        except Exception as err:  # a bug must not stop the loop or Home Assistant
            LOGGER.exception("Decision %s failed unexpectedly", cycle.decision_id)
            self.last_error = f"{type(err).__name__}: {err}"[:300]
            self._set_phase(Phase.FAILED)

    async def _async_cycle(self, cycle: Cycle) -> None:
        """gate_check → awaiting_model → tool_exec → posted/idle, or failed."""
        settings = self.settings
        self._set_phase(Phase.GATE_CHECK)
        started = self.now()
        world = self.world()
        before = material_state(world)
        control = cycle.mode is OverseerMode.CONTROL
        if control:
            cycle.tools = availability(world, self.state.ledger, settings.limits, started)
        cycle.state_update = render_state_update(
            world, cycle.trigger.kind.value, self.state.ledger, settings.limits, started
        )
        lines = select_transcript(self.transcript, started, settings.bounds)
        messages = build_messages(
            self._prompts[cycle.mode], settings.name, cycle.state_update, lines, cycle.tools
        )
        cycle.model_input = summarise(messages)
        allowlist = usable_allowlist(world)
        schemas = [json_schema(name, allowlist) for name in cycle.tools.available]
        self._set_phase(Phase.AWAITING_MODEL)
        set_typing(self.hass, settings.room, settings.name, True)
        clock = time.monotonic()
        try:
            reply = await self._provider.async_decide(messages, schemas)
        except ModelError as err:
            self._set_health(err)
            self._model_failed(cycle.trigger, err, time.monotonic() - clock)
            return
        finally:
            set_typing(self.hass, settings.room, settings.name, False)
        cycle.latency = time.monotonic() - clock
        cycle.reply = reply
        self._set_health(None)
        self._model_recovered()
        recent_bot = [line.text for line in self.transcript if line.own][
            -max(settings.bounds.bot_messages, 2) :
        ]
        cycle.decision = decision = normalise(
            reply.text,
            reply.tool_calls,
            name=settings.name,
            known_tools=configured_tools(world) if control else (),
            allowlist=usable_allowlist(world, include_missing=True),
            recent_bot_lines=recent_bot,
            rules=settings.rules,
        )
        finished = self.now()
        cycle.stale = (
            finished - cycle.trigger.since > settings.stale_after or material_state(self.world()) != before
        )
        self.metrics.record_decision(finished, cycle.latency, decision.mode.value, cycle.stale)
        self._set_phase(Phase.TOOL_EXEC)
        offered = frozenset(cycle.tools.available)
        for rejection in decision.rejections:
            cycle.actions.append(self.executor.record_rejection(cycle.decision_id, rejection))
        for intent in decision.intents:
            cycle.actions.append(
                await self.executor.async_execute(
                    cycle.decision_id, intent.name, intent.arguments, offered, self.state.dry_run
                )
            )
        if NOTE_REPEAT_DROPPED in decision.notes:
            self.metrics.record_chat(finished, repeated=True)
        posted = bool(decision.chat) and not cycle.stale and not self.state.dry_run
        if posted:
            self.metrics.record_chat(finished, repeated=False)
            post_line(self.hass, settings.room, settings.name, decision.chat or "", cycle.decision_id)
        self.hass.bus.async_fire(
            EVENT_DECISION,
            {
                "decision_id": cycle.decision_id,
                "trigger": cycle.trigger.kind.value,
                "mode": decision.mode.value,
                "latency_ms": round(cycle.latency * 1000),
                "stale": cycle.stale,
            },
        )
        self._set_phase(Phase.POSTED if posted else Phase.IDLE)

    def _model_failed(self, trigger: Trigger, err: ModelError, latency: float) -> None:
        """Back off exponentially, keep the question, and raise a repair when it persists."""
        self._failures += 1
        delay = min(self.settings.gate_interval * 2**self._failures, MAX_BACKOFF)
        self._retry_at = self.now() + delay
        self.gate.requeue(trigger)
        self.metrics.record_failure(self.now(), latency)
        self.last_error = str(err)[:300]
        LOGGER.warning("Model call failed (%s); retrying in %.0f s", err, delay)
        if self._failures >= FAILURES_BEFORE_REPAIR:
            ir.async_create_issue(
                self.hass,
                DOMAIN,
                f"{ISSUE_MODEL_UNREACHABLE}_{self.entry.entry_id}",
                is_fixable=False,
                severity=ir.IssueSeverity.ERROR,
                translation_key=ISSUE_MODEL_UNREACHABLE,
                translation_placeholders={"name": self.entry.title, "error": str(err)[:200]},
            )
        self._set_phase(Phase.FAILED)

    def _model_recovered(self) -> None:
        """The model answered: forget past failures and clear the repair."""
        if self._failures >= FAILURES_BEFORE_REPAIR:
            ir.async_delete_issue(self.hass, DOMAIN, f"{ISSUE_MODEL_UNREACHABLE}_{self.entry.entry_id}")
        self._failures = 0
        self._retry_at = 0.0
        self.last_error = None

    # Status

    def cooldowns(self) -> dict[str, int]:
        """Seconds left per tool group (0 = ready)."""
        now = self.now()
        return {group: self.state.ledger.remaining(group, now) for group in ("lift", "neato", "ha")}
