"""Shared by the tests that drive a real Home Assistant process over its REST API."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp

from devtools.hass_process import HomeAssistantProcess, prepare_config

from .contract import options_sections

OUTPUT = Path(__file__).parents[1] / "test-output"
ROVER_ENTITIES = [
    f"{domain}.rover_{index}_{field}"
    for index in (1, 2, 3)
    for domain, field in (
        ("sensor", "activity"),
        ("sensor", "driver"),
        ("binary_sensor", "docked"),
        ("binary_sensor", "charging"),
    )
]
LIGHTS = [f"light.{name}" for name in ("shelf", "bench", "corner", "aux1", "aux2", "window")]


@contextmanager
def demo_home_assistant(
    name: str, folder: Path, extend: Callable[[Path], Path] = lambda config: config
) -> Iterator[HomeAssistantProcess]:
    """Home Assistant with the demo room, signed in; the overseer is left for the test to configure.

    extend adds to the demo's configuration folder what a test needs besides (a device of its own).
    """
    process = HomeAssistantProcess(
        extend(prepare_config(folder / "config")), env={"OVERSEER_DEMO_AUTOCONFIGURE": "0"}
    )
    try:
        process.start()
        process.login()
        yield process
    finally:
        process.stop()
        OUTPUT.mkdir(exist_ok=True)
        (OUTPUT / f"{name}-home-assistant.log").write_text(process.log_tail(400))


def flow_step(ha: HomeAssistantProcess, path: str, payload: dict[str, Any]) -> dict[str, Any]:
    """One config-flow step over REST, as the frontend sends it."""
    response = ha.post(path, payload)
    assert response.status_code == 200, response.text
    return response.json()


def configure_overseer(
    ha: HomeAssistantProcess,
    backend: str,
    url: str,
    model: str,
    timing: dict[str, int] | None = None,
    **options: Any,
) -> str:
    """Create the entry exactly as the UI does, then map the demo room in its options.

    options: more of the form as section__field=value (guardrails__approval_tools=[…]).
    """
    result = flow_step(
        ha, "/api/config/config_entries/flow", {"handler": "overseer", "show_advanced_options": False}
    )
    assert result["step_id"] == "user"
    flow = f"/api/config/config_entries/flow/{result['flow_id']}"
    assert (
        flow_step(ha, flow, {"name": "Overseer", "room": "Arena", "backend": backend})["step_id"] == backend
    )
    assert flow_step(ha, flow, {"url": url})["step_id"] == "model"
    created = flow_step(ha, flow, {"model": model})
    assert created["type"] == "create_entry", created
    entry_id = created["result"]["entry_id"]

    result = flow_step(ha, "/api/config/config_entries/options/flow", {"handler": entry_id})
    timing = {"gate_interval": 1, "heartbeat": 600, "request_timeout": 30, **(timing or {})}
    form = options_sections(
        room__rover_entities=ROVER_ENTITIES,
        room__light_entities=LIGHTS,
        **{f"timing__{key}": value for key, value in timing.items()},
        incidents__verify_after=5,  # a fix is checked soon: the tests wait in real time
        **options,
    )
    done = flow_step(ha, f"/api/config/config_entries/options/flow/{result['flow_id']}", form)
    assert done["type"] == "create_entry", done
    if form["room"].get("light_entities"):
        # The options reload the entry after the flow has answered, and until then the loop of
        # the entry as created (no lights, but idle) would read a first question and be unloaded
        # under it: wait for the reloaded room, the one with lights to set.
        status = {"type": "overseer/status", "entry_id": entry_id}
        ha.wait_for(
            lambda: "ha_set_entity" in ha.websocket(status).get("tools", {}),
            what="the overseer reloaded with its room's options",
        )
    return entry_id


def state(ha: HomeAssistantProcess, entity_id: str) -> str | None:
    """An entity's state string, or None."""
    found = ha.state(entity_id)
    return found["state"] if found else None


def configure_orchestrator(
    ha: HomeAssistantProcess,
    url: str,
    model: str,
    participants: list[dict[str, str]],
    limits: dict[str, float] | None = None,
    backend: str = "ollama",
) -> str:
    """The demo room's orchestrator, created as the UI does: its backend, then its participants.

    participants: {agent_id, name, description} each, named and described on the options' second step.
    backend: "ollama", or "openai" for an OpenAI-compatible server (no API key).
    """
    result = flow_step(
        ha, "/api/config/config_entries/flow", {"handler": "overseer", "show_advanced_options": False}
    )
    flow = f"/api/config/config_entries/flow/{result['flow_id']}"
    first = {"name": "Orchestrator", "room": "Arena", "backend": backend, "kind": "orchestrator"}
    assert flow_step(ha, flow, first)["step_id"] == backend
    assert flow_step(ha, flow, {"url": url})["step_id"] == "model"
    created = flow_step(ha, flow, {"model": model})
    assert created["type"] == "create_entry", created
    entry_id = created["result"]["entry_id"]

    result = flow_step(ha, "/api/config/config_entries/options/flow", {"handler": entry_id})
    assert result["step_id"] == "orchestrator", result
    options = f"/api/config/config_entries/options/flow/{result['flow_id']}"
    chosen = {"max_iterations": 3, "quality_threshold": 0.8, "delegation_timeout": 30, **(limits or {})}
    named = flow_step(ha, options, {"agents": [p["agent_id"] for p in participants], **chosen})
    assert named["step_id"] == "participants", named
    fields = {}
    for index, participant in enumerate(participants):
        fields[f"name_{index}"] = participant["name"]
        fields[f"description_{index}"] = participant.get("description", "")
    done = flow_step(ha, options, fields)
    assert done["type"] == "create_entry", done
    return entry_id


class Bus:
    """The process's event bus as a websocket subscriber sees it, on a thread of its own."""

    def __init__(self, ha: HomeAssistantProcess, *event_types: str) -> None:
        self.events: list[dict[str, Any]] = []
        self._ha = ha
        self._types = event_types
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._listen(),))

    def __enter__(self) -> Bus:
        self._thread.start()
        assert self._ready.wait(15), "the websocket subscription did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        if self._ws is not None:
            asyncio.run_coroutine_threadsafe(self._ws.close(), self._loop).result(10)
        self._thread.join(10)
        self._loop.close()

    async def _listen(self) -> None:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"{self._ha.url}/api/websocket") as ws,
        ):
            self._ws = ws
            await ws.receive_json()  # auth_required
            await ws.send_json({"type": "auth", "access_token": self._ha.token})
            assert (await ws.receive_json())["type"] == "auth_ok"
            for number, event_type in enumerate(self._types, 1):
                await ws.send_json({"id": number, "type": "subscribe_events", "event_type": event_type})
                assert (await ws.receive_json())["success"]
            self._ready.set()
            async for message in ws:
                if message.type is aiohttp.WSMsgType.TEXT and (data := message.json())["type"] == "event":
                    self.events.append(data["event"])

    def bot_events(self) -> list[dict[str, Any]]:
        """The bots' lines on the chat bus, as their events' data."""
        return [
            e["data"]
            for e in self.events
            if e["event_type"] == "overseer_chat_message" and e["data"].get("bot")
        ]

    def bot_lines(self) -> list[tuple[str, str]]:
        """The bots' lines on the chat bus, as (user, text)."""
        return [(data["user"], data["text"]) for data in self.bot_events()]

    def stages(self) -> list[tuple[str, str | None]]:
        """The overseer_pipeline events, as (stage, bot)."""
        return [
            (e["data"]["stage"], e["data"].get("bot"))
            for e in self.events
            if e["event_type"] == "overseer_pipeline"
        ]
