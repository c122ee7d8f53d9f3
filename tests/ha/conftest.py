"""Fixtures for tests that run inside Home Assistant's test harness."""

import pytest


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations):
    """Let the harness load custom_components/overseer."""
    return
