"""A real Home Assistant process with the demo room, shared by the end-to-end and browser tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.hass_process import HomeAssistantProcess

from ..loopback import _loopback_sockets, loopback_module  # noqa: F401 - fixtures
from ..ollama_stub import ThreadedOllamaStub
from ..processes import demo_home_assistant
from .scripted_model import MODEL, worst_case_model


@pytest.fixture(scope="module")
def ollama(loopback_module) -> Iterator:  # noqa: F811 - a fixture
    """The Ollama-protocol stub, on its own thread, answering like a model that obeys."""
    with ThreadedOllamaStub() as stub:
        stub.models = [MODEL]
        stub.responder = worst_case_model
        yield stub


@pytest.fixture(scope="module")
def home_assistant(request, tmp_path_factory, ollama) -> Iterator[HomeAssistantProcess]:
    """Home Assistant with the demo room; the overseer is left for the test to configure."""
    name = request.module.__name__.rsplit(".", 1)[-1]
    with demo_home_assistant(name, tmp_path_factory.mktemp(name)) as process:
        yield process
