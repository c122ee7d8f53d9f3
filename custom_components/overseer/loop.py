"""The room's clock: the gate timer, one decision in flight at most, back-off, the controls."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers.event import async_track_time_interval
from homeassistant.util import dt as dt_util
from homeassistant.util.ulid import ulid_now

from .const import LOGGER, OverseerMode, Phase
from .controls import ControlPanel
from .core.accounts import Phrase
from .core.gate import Gate, Trigger
from .core.metrics import Metrics
from .core.world import World
from .cycle import Cycle, CycleParts, async_run_cycle
from .events import fire_chat_typing
from .executor import Executor
from .health import ModelHealthCoordinator
from .incidents import IncidentDesk
from .inputs import RoomInputs
from .providers import ModelError, Provider
from .room_state import RoomState
from .settings import Settings
from .signals import RoomSignals
from .triage import Triage


@dataclass(frozen=True, slots=True)
class LoopParts:
    """What the loop drives, built beside it in setup (and held by the entry's runtime data)."""

    gate: Gate
    metrics: Metrics
    inputs: RoomInputs
    executor: Executor
    health: ModelHealthCoordinator
    incidents: IncidentDesk
    triage: Triage
    signals: RoomSignals
    phrase: Phrase


class OverseerLoop:
    """Owns one room's clock and the single in-flight decision; the room's parts it drives."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry: ConfigEntry,
        settings: Settings,
        provider: Provider,
        state: RoomState,
        prompts: dict[OverseerMode, str],
        parts: LoopParts,
    ) -> None:
        """Wire the pure core to this room's Home Assistant state."""
        self.hass = hass
        self.entry = entry
        self.settings = settings
        self.state = state
        self.gate = parts.gate
        self.metrics = parts.metrics
        self.inputs = parts.inputs
        self.executor = parts.executor
        self._health = parts.health
        self._incidents = parts.incidents
        self._triage = parts.triage
        self._signals = parts.signals
        self.controls = ControlPanel(hass, state, parts.signals, self.executor.record, entry.title)
        self._parts = CycleParts(
            hass,
            settings,
            state,
            provider,
            prompts,
            self.executor,
            self.metrics,
            self.world,
            self.now,
            self._set_phase,
            self._model_answered,
            parts.phrase,
        )
        self.phase = Phase.IDLE
        self.running = False
        self.last: Cycle | None = None
        # Who waits for decisions to end (Assist's questions): a handful at most, each removed after.
        self._decided: list[Callable[[Cycle], None]] = []
        self.last_error: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._shown: tuple[frozenset[str], int, int] = (frozenset(), 0, 0)
        self._unsubscribe: list[CALLBACK_TYPE] = []

    @staticmethod
    def now() -> float:
        """Wall-clock seconds; persisted cooldowns must survive a restart."""
        return dt_util.utcnow().timestamp()

    @callback
    def async_start(self) -> None:
        """Listen to the room, check the model in the background and start the gate timer."""
        self._unsubscribe = [
            *self.inputs.async_listen(),
            self._health.async_add_listener(self._signals.notify),
            self._incidents.async_track(),
            async_track_time_interval(
                self.hass,
                self._tick,
                timedelta(seconds=self.settings.gate_interval),
                name=f"overseer gate {self.entry.title}",
                cancel_on_shutdown=True,
            ),
        ]
        self.running = True
        self.entry.async_create_background_task(
            self.hass, self._health.async_refresh(), f"overseer model check {self.entry.title}"
        )
        self._signals.notify()

    async def async_stop(self) -> None:
        """Stop listening, end or hand on the calls in flight, cancel the decision, hand the state on.

        Every call sent (the decision's, an agent's, an approved one, triage's) has its cooldown
        and budget in the last write; one still running goes on, recorded by the room loaded when
        it returns (executor.async_close). Anything else this room tries to write after it is dropped.
        """
        self.running = False
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        await self._health.async_shutdown()
        await self.executor.async_close()
        await self._async_cancel_decision()
        await self._signals.async_close()
        self._signals.notify()

    async def _async_cancel_decision(self) -> None:
        """Cancel the decision in flight, if any, and wait until it is gone."""
        task, self._task = self._task, None
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    # Controls that need the loop: the mode flip and the trigger service

    async def async_set_mode(self, mode: OverseerMode) -> None:
        """One flip: the old overseer's decision in flight is cancelled before the new runs."""
        if mode is self.state.mode:
            return
        await self._async_cancel_decision()
        self.state.mode = mode
        self.phase = Phase.IDLE
        self._signals.changed()

    @callback
    def request_decision(self) -> None:
        """Request a decision at the next tick, whatever the gate thinks (the trigger service)."""
        self.gate.request_manual(self.now())

    @property
    def busy(self) -> bool:
        """A decision is in flight."""
        return self._task is not None and not self._task.done()

    @callback
    def _tick(self, _: datetime) -> None:
        """Every gate_interval: maybe start a decision; say when a cooldown has run out."""
        now = self.now()
        # What changes with no decision, told once a tick however busy the chat: a cooldown
        # ending, a spent action leaving the window, new chat for the card's live tail.
        shown = (*self.state.ledger.visible(now, self.settings.limits), self.inputs.received)
        if shown != self._shown:
            self._signals.notify()
        self._shown = shown
        if self.state.mode is OverseerMode.OFF:
            return
        held = self.busy or now < self._health.retry_at
        # Triage shares the single flight; the desk says when it is triage's turn.
        if not held and (incident_id := self._incidents.take_triage(now, self.gate.addressed_pending)):
            self._task = self.entry.async_create_background_task(
                self.hass, self._triage.async_run(incident_id), "overseer triage"
            )
            return
        trigger = self.gate.tick(now, busy=held, questions_first=self.inputs.questions_first())
        if trigger is None:
            if self.phase is Phase.POSTED and not self.busy:
                self._set_phase(Phase.IDLE)  # the line is out; the loop waits again
            return
        self._task = self.entry.async_create_background_task(
            self.hass, self._async_decide(trigger), f"overseer decision {self.entry.title}"
        )

    @callback
    def async_listen_decisions(self, listener: Callable[[Cycle], None]) -> CALLBACK_TYPE:
        """Call listener with each decision that ran to its end: what Assist's answer is read from."""
        self._decided.append(listener)
        return lambda: self._decided.remove(listener)

    def world(self) -> World:
        """Return the room as it is now."""
        return self.inputs.world()

    def _set_phase(self, phase: Phase) -> None:
        """Move to a loop phase and show it."""
        self.phase = phase
        self._signals.notify()

    async def _async_decide(self, trigger: Trigger) -> None:
        """One decision cycle; whatever goes wrong, the loop survives."""
        cycle = Cycle(decision_id=ulid_now(), trigger=trigger, mode=self.state.mode)
        self.last = cycle
        try:
            await async_run_cycle(self._parts, cycle, tuple(self.inputs.transcript))
            for listener in tuple(self._decided):
                listener(cycle)
        except ModelError as err:
            self._model_failed(cycle, err)
        except asyncio.CancelledError:
            fire_chat_typing(self.hass, room=self.settings.room, user=self.settings.name, typing=False)
            raise
        except Exception as err:  # a bug must not stop the loop or Home Assistant
            LOGGER.exception("Decision %s failed unexpectedly", cycle.decision_id)
            self.last_error = f"{type(err).__name__}: {err}"[:300]
            self._set_phase(Phase.FAILED)

    def _model_answered(self) -> None:
        """Forget past failures as soon as the model replies."""
        self._health.record_success()
        self.last_error = None

    def _model_failed(self, cycle: Cycle, err: ModelError) -> None:
        """Back off exponentially and keep the question for when the model answers again."""
        delay = self._health.record_failure(err, self.settings.gate_interval)
        self.gate.requeue(cycle.trigger)
        self.metrics.record_failure(self.now(), cycle.latency or 0.0)
        self.last_error = f"{type(err).__name__}: {err}"[:300]
        LOGGER.warning("Model call failed (%s); retrying in %.0f s", err, delay)
        self._set_phase(Phase.FAILED)
