"""The Home Assistant harness fixtures, shared with tests/ha."""

from ..ha.fixtures import auto_enable_custom_integrations, ollama_stub, room  # noqa: F401 - fixtures
