"""Selects: the site mode automations lock the room with, and which overseer runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from homeassistant.components.select import SelectEntity, SelectEntityDescription
from homeassistant.const import EntityCategory
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .const import OverseerMode
from .core.world import SiteMode
from .entity import OverseerEntity
from .loop import OverseerLoop
from .runtime import OverseerConfigEntry

PARALLEL_UPDATES = 0


async def _set_site_mode(loop: OverseerLoop, option: str, context: Context | None) -> None:
    await loop.controls.async_set_site_mode(SiteMode(option), context)


async def _set_mode(loop: OverseerLoop, option: str, context: Context | None) -> None:
    mode = OverseerMode(option)
    # Switching the overseer off is a lock anyone may put on; any other change frees it to act.
    await loop.controls.async_authorize(
        context, "mode", option, lambda: mode is not OverseerMode.OFF and mode is not loop.state.mode
    )
    await loop.async_set_mode(mode)


@dataclass(frozen=True, kw_only=True)
class OverseerSelectDescription(SelectEntityDescription):
    """A select backed by persisted room state."""

    current_fn: Callable[[OverseerLoop], str]
    select_fn: Callable[[OverseerLoop, str, Context | None], Awaitable[None]]


SELECTS: tuple[OverseerSelectDescription, ...] = (
    OverseerSelectDescription(
        key="site_mode",
        translation_key="site_mode",
        options=[mode.value for mode in SiteMode],
        entity_category=EntityCategory.CONFIG,
        current_fn=lambda loop: loop.state.controls.site_mode.value,
        select_fn=_set_site_mode,
    ),
    OverseerSelectDescription(
        key="mode",
        translation_key="mode",
        options=[mode.value for mode in OverseerMode],
        entity_category=EntityCategory.CONFIG,
        current_fn=lambda loop: loop.state.mode.value,
        select_fn=_set_mode,
    ),
)


async def async_setup_entry(
    hass: HomeAssistant, entry: OverseerConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    """Add the room's selects."""
    loop = entry.runtime_data.loop
    async_add_entities(OverseerSelect(loop, description) for description in SELECTS)


class OverseerSelect(OverseerEntity, SelectEntity):
    """One select of the room; its value is persisted with the room, so it survives restarts."""

    entity_description: OverseerSelectDescription

    @property
    def current_option(self) -> str:
        """The selected option."""
        return self.entity_description.current_fn(self.loop)

    async def async_select_option(self, option: str) -> None:
        """Change it, if its caller may (Home Assistant has already checked the option is valid)."""
        await self.entity_description.select_fn(self.loop, option, self._context)
