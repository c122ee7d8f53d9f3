"""The integration loads in Home Assistant's own test harness."""

from homeassistant.config_entries import ConfigEntryState

from .harness import setup_overseer


async def test_entry_sets_up_and_unloads(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    assert entry.state is ConfigEntryState.LOADED
    assert hass.states.get("sensor.arena_loop_phase").state == "idle"
    assert hass.states.get("select.arena_site_mode").state == "open"
    assert hass.states.get("switch.arena_dry_run").state == "off"
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert entry.state is ConfigEntryState.NOT_LOADED
