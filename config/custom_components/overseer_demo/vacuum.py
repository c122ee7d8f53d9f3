"""The robot vacuum: cleans for a while, then goes home."""

from __future__ import annotations

from typing import Any

from homeassistant.components.vacuum import StateVacuumEntity, VacuumActivity, VacuumEntityFeature
from homeassistant.core import callback
from homeassistant.helpers.event import async_call_later

from .entity import DemoEntity

RUN_SECONDS = 30
RETURN_SECONDS = 8


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """The vacuum; the demo's jam button reaches it through the room."""
    neato = Neato(entry.runtime_data)
    entry.runtime_data.vacuum = neato
    async_add_entities([neato])


class Neato(DemoEntity, StateVacuumEntity):
    """A vacuum with start, return to base and locate."""

    _attr_supported_features = (
        VacuumEntityFeature.START
        | VacuumEntityFeature.RETURN_HOME
        | VacuumEntityFeature.LOCATE
        | VacuumEntityFeature.STATE
    )

    def __init__(self, room) -> None:
        super().__init__(room, "Neato", "vacuum", None)
        self._attr_activity = VacuumActivity.DOCKED
        self._later = None

    def _then(self, seconds: float, activity: VacuumActivity, after=None) -> None:
        if self._later:
            self._later()

        @callback
        def step(_: Any) -> None:
            self._later = None
            self._attr_activity = activity
            self.async_write_ha_state()
            if after:
                after()

        self._later = async_call_later(self.hass, seconds, step)

    @callback
    def jam(self) -> None:
        """A demo fault: the brush jams; the vacuum reports an error until started or sent home."""
        if self._later:
            self._later()
            self._later = None
        self._attr_activity = VacuumActivity.ERROR
        self._attr_extra_state_attributes = {"status": "Brush stuck"}
        self.async_write_ha_state()

    async def async_start(self) -> None:
        self._attr_extra_state_attributes = {}
        self._attr_activity = VacuumActivity.CLEANING
        self.async_write_ha_state()
        self._then(
            RUN_SECONDS, VacuumActivity.RETURNING, lambda: self._then(RETURN_SECONDS, VacuumActivity.DOCKED)
        )

    async def async_return_to_base(self, **kwargs: Any) -> None:
        self._attr_extra_state_attributes = {}
        self._attr_activity = VacuumActivity.RETURNING
        self.async_write_ha_state()
        self._then(RETURN_SECONDS, VacuumActivity.DOCKED)

    async def async_locate(self, **kwargs: Any) -> None:
        """Beep (in the log)."""

    async def async_will_remove_from_hass(self) -> None:
        if self._later:
            self._later()
