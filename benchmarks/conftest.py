"""The Home Assistant harness for benchmarks that need a real hass (run by scripts/bench)."""

import asyncio

import pytest

from tests.ha.conftest import auto_enable_custom_integrations  # noqa: F401 - a fixture


@pytest.fixture(autouse=True)
def enable_event_loop_debug():
    """Measure the loop as Home Assistant runs it: without asyncio's debug mode (the harness turns it on)."""
    asyncio.get_event_loop().set_debug(False)
