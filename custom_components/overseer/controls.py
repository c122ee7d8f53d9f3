"""The control panel: what selects, switches and services change in a room's persisted state.

Authority the way an alarm panel has it: anyone may tighten a guardrail (raise the site mode,
lock the lights on, turn dry run on, switch the overseer off); loosening one, or any other
change of mode, needs an administrator or an automation or script (authority.py). A refusal
raises Unauthorized, changes nothing and is audited (blocked, reason unauthorized).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from homeassistant.auth.permissions.const import POLICY_CONTROL
from homeassistant.core import Context, HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError, Unauthorized
from homeassistant.util.ulid import ulid_now

from .authority import async_trusted
from .const import DOMAIN
from .core.audit import AuditRecord, Outcome
from .core.tools import Refusal
from .core.world import SiteMode
from .identity import caller_identity
from .room_state import RoomState
from .signals import RoomSignals

# The room's audit (the executor's record).
type Recorder = Callable[..., AuditRecord]


class ControlPanel:
    """Each change is persisted and shown at once; the executor reads it at every call."""

    def __init__(
        self, hass: HomeAssistant, state: RoomState, signals: RoomSignals, record: Recorder, name: str
    ) -> None:
        """Set up the controls over the room's state.

        signals persists a change soon and refreshes the entities and the card, and says when the
        room has written its state down for the last time; record audits a refusal.
        """
        self._hass = hass
        self._state = state
        self._signals = signals
        self._changed = signals.changed
        self._record = record
        self._name = name

    @callback
    def _refuse_when_closed(self) -> None:
        """Raise once the room is stopping: a change then would be lost.

        An automation's lockdown must not be lost to a reload: it fails loudly, and can be sent
        again to the room that loads next.
        """
        if self._signals.closed:
            raise HomeAssistantError(
                translation_domain=DOMAIN,
                translation_key="room_stopping",
                translation_placeholders={"name": self._name},
            )

    @callback
    def refuse(self, control: str, value: Any, context: Context | None) -> Unauthorized:
        """Audit a refused change under whose request it was; the error to raise."""
        self._record(
            ulid_now(),
            control,
            {"to": value},
            Outcome.BLOCKED,
            Refusal.UNAUTHORIZED.value,
            source=caller_identity(self._hass, context),
        )
        return Unauthorized(context=context, permission=POLICY_CONTROL)

    async def async_authorize(
        self, context: Context | None, control: str, value: Any, loosens: Callable[[], bool]
    ) -> None:
        """Raise (audited) when the change loosens a guardrail and its caller may not.

        loosens is asked after the caller is known, about the room as it is at that instant.
        """
        self._refuse_when_closed()
        trusted = await async_trusted(self._hass, context)
        if not trusted and loosens():
            raise self.refuse(control, value, context)

    async def async_set_site_mode(self, site_mode: SiteMode, context: Context | None) -> None:
        """Automations lock the room with this; a person may only raise it."""
        await self.async_authorize(
            context,
            "site_mode",
            site_mode.value,
            lambda: self._state.controls.site_mode.loosens_to(site_mode),
        )
        self._state.controls.site_mode = site_mode
        self._changed()

    async def async_set_lights_locked_on(self, locked: bool, context: Context | None) -> None:
        """Lock the room lights on (anyone), or free them (someone trusted)."""
        await self.async_authorize(context, "lights_locked_on", locked, lambda: not locked)
        self._state.controls.lights_locked_on = locked
        self._changed()

    async def async_set_dry_run(self, dry_run: bool, context: Context | None) -> None:
        """Observe only (anyone), or act again (someone trusted)."""
        await self.async_authorize(context, "dry_run", dry_run, lambda: not dry_run)
        self._state.dry_run = dry_run
        self._changed()

    @callback
    def write_memory(self, slot: int, text: str) -> None:
        """Replace one memory slot (the service, an administrator's; the model uses memory_write)."""
        self._refuse_when_closed()
        self._state.memory.write(slot, text)
        self._changed()

    @callback
    def clear_memory(self, slot: int | None) -> None:
        """Empty one memory slot, or all three."""
        self._refuse_when_closed()
        self._state.memory.clear(slot)
        self._changed()
