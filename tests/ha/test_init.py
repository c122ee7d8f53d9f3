"""The integration loads in Home Assistant's own test harness."""

from homeassistant.config_entries import ConfigEntryState
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.overseer.const import DOMAIN


async def test_entry_sets_up_and_unloads(hass):
    entry = MockConfigEntry(domain=DOMAIN, title="Overseer", data={"name": "Overseer"})
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert entry.state is ConfigEntryState.NOT_LOADED
