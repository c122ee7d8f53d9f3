"""Fixtures for tests that run inside Home Assistant's test harness."""

from .agents import agent_flow  # noqa: F401 - a fixture
from .fixtures import auto_enable_custom_integrations, ollama_stub, room  # noqa: F401 - fixtures
