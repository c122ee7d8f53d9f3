"""The real tiny model (SmolLM2-135M behind llama.cpp's server), shared by the tests here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.tiny_model import TinyModelServer, model_file

from ..loopback import _loopback_sockets, loopback_module  # noqa: F401 - fixtures
from ..processes import OUTPUT


@pytest.fixture(scope="module")
def tiny_model(request, loopback_module) -> Iterator[TinyModelServer]:  # noqa: F811 - a fixture
    """The bundled model, served on a free loopback port."""
    if model_file() is None:
        pytest.fail(
            "The tiny model is not installed: scripts/setup installs it (or run scripts/model --install)"
        )
    name = request.module.__name__.rsplit(".", 1)[-1]
    server = TinyModelServer(log_path=OUTPUT / f"{name}-tiny-model.log").start()
    try:
        yield server
    finally:
        ended = server.exit_description()
        server.stop()
    # A server that died mid-module fails its tests in other words ("never settled"): say why.
    if ended is not None:
        pytest.fail(
            f"The tiny model's server {ended} during {name}; see {server.log_path}:\n{server.log_tail()}"
        )
