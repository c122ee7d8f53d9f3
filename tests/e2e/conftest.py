"""A real Home Assistant process with the demo room, shared by the end-to-end and browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.hass_process import HomeAssistantProcess, prepare_config

from ..ollama_stub import Scripted, ThreadedOllamaStub, call

MODEL = "llama3.2:latest"
OUTPUT = Path(__file__).parents[2] / "test-output"


def worst_case_model(payload: dict) -> Scripted | None:
    """Obeys whoever addressed it last: raises the lift when asked, whatever the rules say."""
    messages = payload["messages"]
    addressed = "trigger: direct_address" in messages[1]["content"]
    humans = [m["content"] for m in messages if m["role"] == "user" and ": " in m["content"]]
    if addressed and humans and humans[-1].endswith("overseer raise the lift"):
        return Scripted(content="Going up.", tool_calls=[call("lift_up")])
    return None


@pytest.fixture(scope="module")
def ollama(socket_enabled_module) -> Iterator:
    """The Ollama-protocol stub, on its own thread, answering like a model that obeys."""
    with ThreadedOllamaStub() as stub:
        stub.models = [MODEL]
        stub.responder = worst_case_model
        yield stub


@pytest.fixture(scope="module")
def socket_enabled_module():
    """Loopback sockets for the whole module (pytest-socket blocks them by default)."""
    import pytest_socket

    pytest_socket.enable_socket()
    pytest_socket.socket_allow_hosts(["127.0.0.1"])
    yield
    pytest_socket.disable_socket(allow_unix_socket=True)


@pytest.fixture(scope="module")
def home_assistant(request, tmp_path_factory, ollama) -> Iterator[HomeAssistantProcess]:
    """Home Assistant with the demo room; the overseer is left for the test to configure."""
    config = prepare_config(tmp_path_factory.mktemp("hass") / "config")
    process = HomeAssistantProcess(config, env={"OVERSEER_DEMO_AUTOCONFIGURE": "0"})
    try:
        process.start()
        process.login()
        yield process
    finally:
        process.stop()
        OUTPUT.mkdir(exist_ok=True)
        (OUTPUT / f"{request.module.__name__.rsplit('.', 1)[-1]}-home-assistant.log").write_text(
            process.log_tail(400)
        )


@pytest.fixture(autouse=True)
def _loopback_sockets(socket_enabled):
    """Every test here talks to loopback servers."""
    return
