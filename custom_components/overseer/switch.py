"""Switches: lights locked on, and dry run (observe only)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from homeassistant.components.switch import SwitchEntity, SwitchEntityDescription
from homeassistant.components.switch.const import DOMAIN as SWITCH_DOMAIN
from homeassistant.const import EntityCategory
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .core.policy import configured_tools
from .core.tools import TOOLS
from .core.world import World
from .entity import OverseerEntity, existing
from .loop import OverseerLoop
from .runtime import OverseerConfigEntry

PARALLEL_UPDATES = 0


@dataclass(frozen=True, kw_only=True)
class OverseerSwitchDescription(SwitchEntityDescription):
    """A switch backed by persisted room state."""

    is_on_fn: Callable[[OverseerLoop], bool]
    set_fn: Callable[[OverseerLoop, bool, Context | None], Awaitable[None]]
    # Whether the room has what the switch is about.
    exists_fn: Callable[[World], bool] = lambda _: True


SWITCHES: tuple[OverseerSwitchDescription, ...] = (
    OverseerSwitchDescription(
        key="lights_locked_on",
        translation_key="lights_locked_on",
        entity_category=EntityCategory.CONFIG,
        is_on_fn=lambda loop: loop.state.controls.lights_locked_on,
        set_fn=lambda loop, on, context: loop.controls.async_set_lights_locked_on(on, context),
        # It holds off the room-control tools, so it exists where the room has one.
        exists_fn=lambda world: any(TOOLS[name].room_control for name in configured_tools(world)),
    ),
    OverseerSwitchDescription(
        key="dry_run",
        translation_key="dry_run",
        entity_category=EntityCategory.CONFIG,
        is_on_fn=lambda loop: loop.state.dry_run,
        set_fn=lambda loop, on, context: loop.controls.async_set_dry_run(on, context),
    ),
)


async def async_setup_entry(
    hass: HomeAssistant, entry: OverseerConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    """Add the room's switches."""
    loop = entry.runtime_data.loop
    async_add_entities(
        OverseerSwitch(loop, description) for description in existing(hass, loop, SWITCH_DOMAIN, SWITCHES)
    )


class OverseerSwitch(OverseerEntity, SwitchEntity):
    """One switch of the room; its value is persisted with the room, so it survives restarts."""

    entity_description: OverseerSwitchDescription

    @property
    def is_on(self) -> bool:
        """Whether it is on."""
        return self.entity_description.is_on_fn(self.loop)

    async def async_turn_on(self, **kwargs: Any) -> None:
        """Turn it on (it tightens: anyone may)."""
        await self.entity_description.set_fn(self.loop, True, self._context)

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Turn it off, if its caller may (it loosens a guardrail)."""
        await self.entity_description.set_fn(self.loop, False, self._context)
