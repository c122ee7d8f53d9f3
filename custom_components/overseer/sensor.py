"""Sensors: loop phase, last trigger and decision, when each cooldown ends, the main metrics."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from homeassistant.components.sensor import (
    DOMAIN as SENSOR_DOMAIN,
)
from homeassistant.components.sensor import (
    SensorDeviceClass,
    SensorEntity,
    SensorEntityDescription,
    SensorStateClass,
)
from homeassistant.const import PERCENTAGE, EntityCategory, UnitOfTime
from homeassistant.core import HomeAssistant
from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.helpers.typing import StateType
from homeassistant.util import dt as dt_util

from .const import DOMAIN, Phase, status_signal
from .core.approvals import pending
from .core.decision import Mode
from .core.gate import TriggerKind
from .core.incidents import active_incidents
from .core.policy import configured_groups
from .core.tools import CooldownGroup
from .core.world import World
from .entity import OverseerEntity, existing
from .health import ModelHealthCoordinator
from .loop import OverseerLoop
from .orchestrator import Orchestrator
from .runtime import OverseerRuntimeData, RoomConfigEntry, orchestrator_of

PARALLEL_UPDATES = 0


@dataclass(frozen=True, kw_only=True)
class OverseerSensorDescription(SensorEntityDescription):
    """A sensor that reads one value off the loop."""

    value_fn: Callable[[OverseerLoop], StateType | datetime]
    # Whether the room has what the sensor is about (a cooldown group needs a configured tool).
    exists_fn: Callable[[World], bool] = lambda _: True
    # Unavailable while the model cannot be asked.
    needs_model: bool = False


# Translation keys of the last_decision states; events and the status keep the contract's modes.
DECISION_STATES = {
    Mode.SKIP: "skip",
    Mode.CHAT: "chat",
    Mode.ACTION: "action",
    Mode.ACTION_CHAT: "action_and_chat",
}


def _metric(key: str, scale: float = 1.0) -> Callable[[OverseerLoop], StateType]:
    """Read one figure from the metrics window."""

    def value(loop: OverseerLoop) -> StateType:
        figure = loop.metrics.snapshot(loop.now())[key]
        return None if figure is None else round(figure * scale, 2)

    return value


def _ready_at(group: CooldownGroup) -> Callable[[OverseerLoop], datetime | None]:
    """When a group's cooldown ends (in the past once it is ready); unknown before its first use."""

    def value(loop: OverseerLoop) -> datetime | None:
        until = loop.state.ledger.cooldown_until.get(group)
        return None if until is None else dt_util.utc_from_timestamp(until)

    return value


def _cooldown(group: CooldownGroup) -> OverseerSensorDescription:
    """When one group is ready again: a timestamp, so nothing is written every second."""
    return OverseerSensorDescription(
        key=f"cooldown_{group}",
        translation_key=f"cooldown_{group}",
        device_class=SensorDeviceClass.TIMESTAMP,
        value_fn=_ready_at(group),
        exists_fn=lambda world: group in configured_groups(world),
    )


SENSORS: tuple[OverseerSensorDescription, ...] = (
    OverseerSensorDescription(
        key="loop_phase",
        translation_key="loop_phase",
        device_class=SensorDeviceClass.ENUM,
        options=[phase.value for phase in Phase],
        value_fn=lambda loop: loop.phase.value,
    ),
    OverseerSensorDescription(
        key="last_trigger",
        translation_key="last_trigger",
        device_class=SensorDeviceClass.ENUM,
        options=[kind.value for kind in TriggerKind],
        value_fn=lambda loop: loop.last.trigger.kind.value if loop.last else None,
    ),
    OverseerSensorDescription(
        key="last_decision",
        translation_key="last_decision",
        device_class=SensorDeviceClass.ENUM,
        options=list(DECISION_STATES.values()),
        value_fn=lambda loop: (
            DECISION_STATES[loop.last.decision.mode] if loop.last and loop.last.decision else None
        ),
    ),
    *(_cooldown(group) for group in CooldownGroup),
    OverseerSensorDescription(
        key="llm_calls_per_minute",
        translation_key="llm_calls_per_minute",
        native_unit_of_measurement="calls/min",
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=_metric("llm_calls_per_minute"),
        needs_model=True,
    ),
    OverseerSensorDescription(
        key="llm_latency",
        translation_key="llm_latency",
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.SECONDS,
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=_metric("llm_latency_avg_s"),
        needs_model=True,
    ),
    OverseerSensorDescription(
        key="blocked_rate",
        translation_key="blocked_rate",
        native_unit_of_measurement=PERCENTAGE,
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=_metric("blocked_rate", 100),
    ),
    OverseerSensorDescription(
        key="open_incidents",
        translation_key="open_incidents",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda loop: len(active_incidents(loop.state.incidents)),
    ),
    OverseerSensorDescription(
        key="pending_approvals",
        translation_key="pending_approvals",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda loop: len(pending(loop.state.approvals.values())),
    ),
)


async def async_setup_entry(
    hass: HomeAssistant, entry: RoomConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    """Add the room's sensors; a cooldown sensor only for a group the room has tools in."""
    if (orchestrator := orchestrator_of(entry)) is not None:
        async_add_entities([PipelineSensor(orchestrator)])
        return
    data = cast(OverseerRuntimeData, entry.runtime_data)
    async_add_entities(
        OverseerSensor(data.loop, data.health, description)
        for description in existing(hass, data.loop, SENSOR_DOMAIN, SENSORS)
    )


class OverseerSensor(OverseerEntity, SensorEntity):
    """One sensor of the room."""

    entity_description: OverseerSensorDescription

    def __init__(
        self,
        loop: OverseerLoop,
        health: ModelHealthCoordinator,
        description: OverseerSensorDescription,
    ) -> None:
        """Bind to the room's loop, and to the model's health for the figures that need it."""
        super().__init__(loop, description)
        self._health = health

    @property
    def native_value(self) -> StateType | datetime:
        """The current value."""
        return self.entity_description.value_fn(self.loop)

    @property
    def available(self) -> bool:
        """Model figures are unavailable while the model cannot be asked."""
        return not self.entity_description.needs_model or self._health.last_update_success


class PipelineSensor(SensorEntity):
    """The orchestrator's pipeline, as a room topic would show it: [2/3] helper answered · evaluating."""

    _attr_has_entity_name = True
    _attr_translation_key = "pipeline"
    _attr_should_poll = False

    def __init__(self, orchestrator: Orchestrator) -> None:
        """One per orchestrator, on its own service device."""
        self._orchestrator = orchestrator
        entry = orchestrator.entry
        self._attr_unique_id = f"{entry.entry_id}_pipeline"
        self._attr_device_info = DeviceInfo(
            identifiers={(DOMAIN, entry.entry_id)},
            name=entry.title,
            entry_type=DeviceEntryType.SERVICE,
            manufacturer="Overseer",
            model="Orchestrator",
        )

    async def async_added_to_hass(self) -> None:
        """Follow the orchestrator's signal."""
        self.async_on_remove(
            async_dispatcher_connect(
                self.hass, status_signal(self._orchestrator.entry.entry_id), self.async_write_ha_state
            )
        )

    @property
    def native_value(self) -> str:
        """What the pipeline is doing now."""
        return self._orchestrator.progress()
