"""The Home Assistant harness for benchmarks that need a real hass (run by scripts/bench)."""

from tests.ha.conftest import auto_enable_custom_integrations  # noqa: F401 - a fixture
