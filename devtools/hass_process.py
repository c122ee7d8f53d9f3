"""Run a real Home Assistant process on loopback with the demo config, and talk to it over HTTP.

Used by scripts/develop and by the end-to-end and browser tests. Everything stays on
127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aiohttp
import httpx

REPO = Path(__file__).resolve().parents[1]
DEMO_CONFIG = REPO / "config"
INTEGRATION = REPO / "custom_components" / "overseer"
DEMO_FILES = ("configuration.yaml", "ui-lovelace.yaml")
DEMO_USER = "demo"
DEMO_PASSWORD = "demo"


# The Python whose Home Assistant the process runs: the test leg's own, or another release's
# (scripts/test --ha-release drives Home Assistant 2026.11.0, which no test harness pins yet,
# from the newest leg's pytest).
HASS_PYTHON_VARIABLE = "OVERSEER_HASS_PYTHON"


def hass_python() -> str:
    """Return the interpreter of the Home Assistant under test."""
    return os.environ.get(HASS_PYTHON_VARIABLE) or sys.executable


def hass_command(*args: str) -> list[str]:
    """Return the command line of `python -m homeassistant args`."""
    return [hass_python(), "-m", "homeassistant", *args]


def hass_run(code: str, *args: str) -> str:
    """Return what a line of Python prints in the interpreter of the Home Assistant under test."""
    return subprocess.run(
        [hass_python(), "-c", code, *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def hass_version() -> str:
    """Return the version of the Home Assistant under test, as it reports it."""
    return hass_run("from homeassistant.const import __version__; print(__version__)")


def child_environment() -> dict[str, str]:
    """Return the environment for child processes, without pytest-cov's hooks.

    A child must not write coverage data that the test run would then fail to combine.
    """
    return {key: value for key, value in os.environ.items() if not key.startswith("COV_CORE_")}


def free_port() -> int:
    """Return a TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prepare_config(target: Path) -> Path:
    """Copy the demo config to target (a fresh folder), linking the integration under development.

    scripts/develop runs on config/ itself, whose relative link is committed.
    """
    target.mkdir(parents=True, exist_ok=True)
    for name in DEMO_FILES:
        shutil.copy2(DEMO_CONFIG / name, target / name)
    shutil.copytree(
        DEMO_CONFIG / "custom_components" / "overseer_demo",
        target / "custom_components" / "overseer_demo",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (target / "custom_components" / "overseer").symlink_to(INTEGRATION, target_is_directory=True)
    return target


class UnknownCommandError(RuntimeError):
    """The Home Assistant asked has no such websocket command (an older release)."""


class ManagedProcess:
    """A child process on loopback that is ready once an HTTP endpoint answers 200."""

    def __init__(self, log_path: Path) -> None:
        """Prepare, without starting, a process that logs to log_path."""
        self.log_path = log_path
        self._process: subprocess.Popen[bytes] | None = None

    def launch(
        self, command: list[str], ready_url: str, timeout: float, env: dict[str, str], cwd: Path
    ) -> None:
        """Start command and wait until ready_url answers; fail early if the process exits."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"{command[0]} {self.exit_description()}; see {self.log_path}:\n{self.log_tail()}"
                )
            try:
                if httpx.get(ready_url, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"{ready_url} did not answer within {timeout} s:\n{self.log_tail()}")

    @property
    def running(self) -> bool:
        """The process was started and has not exited."""
        return self._process is not None and self._process.poll() is None

    def exit_description(self) -> str | None:
        """How the process ended ("was killed by SIGILL (Illegal instruction)"); None while it runs.

        A model server built for another CPU dies on its first completion: that must read as what
        it is, not as a model that never answers.
        """
        if self._process is None or (code := self._process.poll()) is None:
            return None
        if code < 0:
            number = -code
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return f"was killed by {name} ({signal.strsignal(number)})"
        return f"exited with code {code}"

    def stop(self) -> None:
        """Stop gracefully, or kill after 30 s."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)

    def log_tail(self, lines: int = 40) -> str:
        """Return the end of the process log, for failure messages."""
        if not self.log_path.exists() or not self.log_path.is_file():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


class HomeAssistantProcess(ManagedProcess):
    """One `python -m homeassistant` on a free loopback port."""

    def __init__(
        self, config_dir: Path, port: int | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        """Prepare, without starting, a process for config_dir on port (a free one by default)."""
        super().__init__(config_dir / "hass-process.log")
        self.config_dir = config_dir
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token: str | None = None
        self._env = dict(env or {})

    def start(self, timeout: float = 180) -> HomeAssistantProcess:
        """Start and wait until the login providers answer (login() then waits for RUNNING)."""
        self.seed_demo_user()
        self.launch(
            hass_command("--config", str(self.config_dir), "--skip-pip"),
            f"{self.url}/auth/providers",
            timeout,
            env={**child_environment(), **self._env, "OVERSEER_DEMO_PORT": str(self.port)},
            cwd=self.config_dir,
        )
        return self

    # HTTP

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str) -> httpx.Response:
        """GET with the access token."""
        return httpx.get(f"{self.url}{path}", headers=self._headers(), timeout=30)

    def post(self, path: str, payload: Any = None, **kwargs: Any) -> httpx.Response:
        """POST JSON with the access token."""
        return httpx.post(f"{self.url}{path}", json=payload, headers=self._headers(), timeout=60, **kwargs)

    def seed_demo_user(self) -> None:
        """Before the first start: the demo login, and onboarding marked done.

        The onboarding API would also set up integrations that need the internet (weather,
        radio, text to speech), so the demo skips it: the user is created with Home
        Assistant's own auth script and becomes an administrator at its first login.
        """
        storage = self.config_dir / ".storage"
        if (storage / "onboarding").exists():
            return
        subprocess.run(
            hass_command(
                "--script", "auth", "--config", str(self.config_dir), "add", DEMO_USER, DEMO_PASSWORD
            ),
            check=True,
            capture_output=True,
        )
        (storage / "onboarding").write_text(
            json.dumps(
                {
                    "version": 4,
                    "minor_version": 1,
                    "key": "onboarding",
                    "data": {"done": ["user", "core_config", "analytics", "integration"]},
                }
            )
        )

    def login(self, username: str = DEMO_USER, password: str = DEMO_PASSWORD) -> str:
        """Sign in through the login flow the frontend uses; returns an access token."""
        client_id = f"{self.url}/"
        flow = httpx.post(
            f"{self.url}/auth/login_flow",
            json={"client_id": client_id, "handler": ["homeassistant", None], "redirect_uri": client_id},
            timeout=30,
        ).json()
        result = httpx.post(
            f"{self.url}/auth/login_flow/{flow['flow_id']}",
            json={"client_id": client_id, "username": username, "password": password},
            timeout=30,
        ).json()
        if result.get("type") != "create_entry":
            raise RuntimeError(f"login failed: {result}")
        tokens = httpx.post(
            f"{self.url}/auth/token",
            data={"grant_type": "authorization_code", "code": result["result"], "client_id": client_id},
            timeout=30,
        )
        tokens.raise_for_status()
        self.token = tokens.json()["access_token"]
        self.wait_for(
            lambda: self.get("/api/config").json().get("state") == "RUNNING", timeout=120, what="startup"
        )
        self.confirm_http_config()
        return self.token

    def confirm_http_config(self) -> None:
        """Keep the demo's loopback address and port, as a person does in the dialog that asks.

        From 2026.10 Home Assistant moves the YAML http section into its storage as a pending
        config on the first start; unconfirmed, it restarts five minutes later on its default
        config (every interface, port 8123), and 2026.11's frontend covers the page with a
        dialog asking for confirmation. Older versions have no such command.
        """
        try:
            config = self.websocket({"type": "http/config"})
        except UnknownCommandError:
            return
        if config["active_config_type"] == "pending" and config["pending"]["error"] is None:
            self.websocket({"type": "http/config/promote"})

    def wait_for(
        self, predicate, timeout: float = 30, interval: float = 0.25, what: str = "condition"
    ) -> Any:
        """Poll until predicate() is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(interval)
        raise TimeoutError(f"timed out waiting for {what}\n{self.log_tail()}")

    def websocket(self, payload: dict[str, Any]) -> Any:
        """One websocket command's result, as the frontend would ask it."""

        async def ask() -> Any:
            async with (
                aiohttp.ClientSession() as session,
                session.ws_connect(f"{self.url}/api/websocket") as ws,
            ):
                await ws.receive_json()  # auth_required
                await ws.send_json({"type": "auth", "access_token": self.token})
                if (await ws.receive_json())["type"] != "auth_ok":
                    raise RuntimeError("websocket authentication failed")
                await ws.send_json({"id": 1, **payload})
                reply = await ws.receive_json()
                if not reply.get("success"):
                    if (reply.get("error") or {}).get("code") == "unknown_command":
                        raise UnknownCommandError(payload["type"])
                    raise RuntimeError(f"{payload['type']} failed: {reply.get('error')}")
                return reply["result"]

        # A loop of its own, without asyncio.run: that would unset the thread's current loop,
        # which the test harness still relies on for the tests that follow.
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(ask())
        finally:
            loop.close()

    def state(self, entity_id: str) -> dict[str, Any] | None:
        """Return an entity's state object, or None."""
        response = self.get(f"/api/states/{entity_id}")
        return response.json() if response.status_code == 200 else None
