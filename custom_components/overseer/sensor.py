"""Sensors: loop phase, last trigger and decision, cooldowns and the main metrics."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from homeassistant.components.sensor import (
    SensorDeviceClass,
    SensorEntity,
    SensorEntityDescription,
    SensorStateClass,
)
from homeassistant.const import PERCENTAGE, EntityCategory, UnitOfTime
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.helpers.typing import StateType

from .const import Phase
from .coordinator import OverseerCoordinator
from .core.decision import Mode
from .core.gate import TriggerKind
from .entity import OverseerEntity
from .models import OverseerConfigEntry

PARALLEL_UPDATES = 0


@dataclass(frozen=True, kw_only=True)
class OverseerSensorDescription(SensorEntityDescription):
    """A sensor that reads one value off the coordinator."""

    value_fn: Callable[[OverseerCoordinator], StateType]


def _metric(key: str, scale: float = 1.0) -> Callable[[OverseerCoordinator], StateType]:
    """Read one figure from the metrics window."""

    def value(coordinator: OverseerCoordinator) -> StateType:
        figure = coordinator.metrics.snapshot(coordinator.now())[key]
        return None if figure is None else round(figure * scale, 2)

    return value


def _cooldown(group: str) -> OverseerSensorDescription:
    """Seconds left on one tool group's cooldown."""
    return OverseerSensorDescription(
        key=f"cooldown_{group}",
        translation_key=f"cooldown_{group}",
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.SECONDS,
        value_fn=lambda coordinator: coordinator.cooldowns()[group],
    )


SENSORS: tuple[OverseerSensorDescription, ...] = (
    OverseerSensorDescription(
        key="loop_phase",
        translation_key="loop_phase",
        device_class=SensorDeviceClass.ENUM,
        options=[phase.value for phase in Phase],
        value_fn=lambda coordinator: coordinator.phase.value,
    ),
    OverseerSensorDescription(
        key="last_trigger",
        translation_key="last_trigger",
        device_class=SensorDeviceClass.ENUM,
        options=[kind.value for kind in TriggerKind],
        value_fn=lambda coordinator: coordinator.last.trigger.kind.value if coordinator.last else None,
    ),
    OverseerSensorDescription(
        key="last_decision",
        translation_key="last_decision",
        device_class=SensorDeviceClass.ENUM,
        options=[mode.value for mode in Mode],
        value_fn=lambda coordinator: (
            coordinator.last.decision.mode.value if coordinator.last and coordinator.last.decision else None
        ),
    ),
    _cooldown("lift"),
    _cooldown("neato"),
    _cooldown("ha"),
    OverseerSensorDescription(
        key="llm_calls_per_minute",
        translation_key="llm_calls_per_minute",
        native_unit_of_measurement="calls/min",
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=_metric("llm_calls_per_minute"),
    ),
    OverseerSensorDescription(
        key="llm_latency",
        translation_key="llm_latency",
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.SECONDS,
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=_metric("llm_latency_avg_s"),
    ),
    OverseerSensorDescription(
        key="blocked_rate",
        translation_key="blocked_rate",
        native_unit_of_measurement=PERCENTAGE,
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=_metric("blocked_rate", 100),
    ),
)


async def async_setup_entry(
    hass: HomeAssistant, entry: OverseerConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    """Add the room's sensors."""
    coordinator = entry.runtime_data.coordinator
    async_add_entities(OverseerSensor(coordinator, description) for description in SENSORS)


class OverseerSensor(OverseerEntity, SensorEntity):
    """One sensor of the room."""

    entity_description: OverseerSensorDescription

    @property
    def native_value(self) -> StateType:
        """The current value."""
        return self.entity_description.value_fn(self.coordinator)
