"""Loopback sockets for tests that talk to servers in other processes or threads.

pytest-homeassistant-custom-component blocks sockets before every test; these fixtures open
them again for 127.0.0.1 only, for module-scoped servers and for each test.
"""

from __future__ import annotations

import pytest
import pytest_socket


@pytest.fixture(scope="module")
def loopback_module():
    """Loopback sockets while module-scoped fixtures start their servers."""
    pytest_socket.enable_socket()
    pytest_socket.socket_allow_hosts(["127.0.0.1"])
    yield
    pytest_socket.disable_socket(allow_unix_socket=True)


@pytest.fixture(autouse=True)
def _loopback_sockets(socket_enabled):
    """Every test in a folder that imports this talks to loopback servers."""
    return
