"""The Home Assistant harness fixtures, shared with tests/ha, and the adversarial table at the end."""

from ..ha.agents import agent_flow  # noqa: F401 - a fixture
from ..ha.fixtures import auto_enable_custom_integrations, ollama_stub, room  # noqa: F401 - fixtures
from .cases import (
    ANSWER_OUTCOMES,
    API_OUTCOMES,
    APPROVAL_OUTCOMES,
    CLAIM_OUTCOMES,
    COUNTING_OUTCOMES,
    OUTCOMES,
    RECORD_OUTCOMES,
    RELOAD_OUTCOMES,
    ROUTING_OUTCOMES,
    TRIAGE_OUTCOMES,
    TRUST_OUTCOMES,
    summary_table,
)


def pytest_terminal_summary(terminalreporter) -> None:
    """The table docs/development/proof.md keeps, when adversarial cases ran (each is its own test)."""
    if any(
        (
            OUTCOMES,
            API_OUTCOMES,
            TRIAGE_OUTCOMES,
            ANSWER_OUTCOMES,
            ROUTING_OUTCOMES,
            CLAIM_OUTCOMES,
            APPROVAL_OUTCOMES,
            TRUST_OUTCOMES,
            RELOAD_OUTCOMES,
            COUNTING_OUTCOMES,
            RECORD_OUTCOMES,
        )
    ):
        terminalreporter.write_sep("-", "Adversarial suite (worst-case model, judged on executed actions)")
        terminalreporter.write_line("\n".join(summary_table()))
