"""The bundled model (Qwen2.5-Coder-1.5B behind llama.cpp's llama-server), shared by the tests here.

`scripts/bench --model URL` points the demo check at any other model instead: OVERSEER_MODEL_URL,
OVERSEER_MODEL_NAME and OVERSEER_MODEL_BACKEND (openai or ollama) name it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
import pytest_socket

from devtools.bundled_model import ModelServer, installed

from ..loopback import _loopback_sockets, loopback_module  # noqa: F401 - fixtures
from ..processes import OUTPUT


@dataclass(frozen=True)
class ModelEndpoint:
    """A model the overseer can be pointed at, and where its server's counters are, if it has any."""

    url: str
    name: str
    backend: str
    metrics_url: str | None


@pytest.fixture(scope="module")
def model_server(request, loopback_module) -> Iterator[ModelEndpoint]:  # noqa: F811 - a fixture
    """The bundled model on a free loopback port, or the model OVERSEER_MODEL_URL names."""
    if url := os.environ.get("OVERSEER_MODEL_URL"):
        # A model the user measures may be on another machine: that host, and loopback, only.
        pytest_socket.socket_allow_hosts(["127.0.0.1", urlsplit(url).hostname or "127.0.0.1"])
        backend = os.environ.get("OVERSEER_MODEL_BACKEND", "openai")
        root = url.rstrip("/").removesuffix("/v1")
        yield ModelEndpoint(url, os.environ["OVERSEER_MODEL_NAME"], backend, f"{root}/metrics")
        return
    if not installed():
        pytest.fail(
            "The bundled model is not installed: scripts/setup installs it (or run scripts/model --install)"
        )
    name = request.module.__name__.rsplit(".", 1)[-1]
    server = ModelServer(log_path=OUTPUT / f"{name}-model-server.log").start()
    try:
        yield ModelEndpoint(server.url, server.model.alias, "openai", server.metrics_url)
    finally:
        ended = server.exit_description()
        server.stop()
    # A server that died mid-module fails its tests in other words ("never settled"): say why.
    if ended is not None:
        pytest.fail(f"The model server {ended} during {name}; see {server.log_path}:\n{server.log_tail()}")
