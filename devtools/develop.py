"""scripts/develop: a real Home Assistant with the demo room and the overseer, until Ctrl-C."""

from __future__ import annotations

import os
import signal
import sys
import time

import httpx

from .bundled_model import MODEL_ALIAS, ModelServer, installed
from .hass_process import DEMO_CONFIG, DEMO_PASSWORD, DEMO_USER, HomeAssistantProcess

PORT = int(os.environ.get("OVERSEER_DEMO_PORT", "8123"))
MODEL_PORT = int(os.environ.get("MODEL_PORT", "8000"))


def ollama_answers(url: str) -> bool:
    """Whether an Ollama server answers at url."""
    try:
        return httpx.get(f"{url.rstrip('/')}/api/tags", timeout=3).status_code == 200
    except httpx.HTTPError:
        return False


def main() -> int:
    """Pick a model, start Home Assistant, sign the demo user in, and wait."""
    ollama = os.environ.get("OLLAMA_URL", "http://localhost:11434")
    env: dict[str, str] = {}
    model_server: ModelServer | None = None
    if ollama_answers(ollama):
        model_line = f"Ollama at {ollama} (OLLAMA_MODEL picks the model)"
    elif installed():
        model_server = ModelServer(port=MODEL_PORT, log_path=DEMO_CONFIG / "model-server.log").start()
        env = {
            "OVERSEER_DEMO_BACKEND": "openai",
            "OVERSEER_DEMO_URL": model_server.url,
            "OVERSEER_DEMO_MODEL": MODEL_ALIAS,
        }
        model_line = (
            f"no Ollama at {ollama}, so the bundled {model_server.model.title} at {model_server.url}.\n"
            "  A small model on the CPU: it takes 10-30 s an answer. Start Ollama (or set OLLAMA_URL)\n"
            "  and run scripts/develop again to use a bigger one."
        )
    else:
        model_line = (
            f"Ollama at {ollama}, which does not answer: the card will say so.\n"
            "  scripts/model --install adds a bundled model for trying it out without Ollama."
        )
    process = HomeAssistantProcess(DEMO_CONFIG, port=PORT, env=env)
    print(f"Starting Home Assistant with the demo room (log: {process.log_path}) …", flush=True)
    try:
        process.start()
        process.login()
        print(
            f"\n  Open {process.url}/lovelace/arena  and sign in as  {DEMO_USER} / {DEMO_PASSWORD}\n"
            f"  The overseer asks {model_line}\n"
            "  Type in 'Say something in the room chat', or turn on 'Demo crowd' for a busy room.\n"
            "  Two bots share the room, the Overseer and the Rover guide: the room's orchestrator\n"
            "  routes each line to one of them, scores the answer and has the other improve it when\n"
            "  it falls short ('Pipeline' under Chat; OVERSEER_DEMO_ORCHESTRATOR=0 leaves it out).\n"
            "  Press 'Jam the brush' under 'Faults to try': the overseer opens an incident, asks the\n"
            "  model to triage it and shows the timeline in the card's Incidents section.\n"
            "  Ctrl-C stops everything.\n",
            flush=True,
        )
        stop = False

        def request_stop(*_: object) -> None:
            nonlocal stop
            stop = True

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        while not stop and process.running:
            time.sleep(1)
    finally:
        process.stop()
        if model_server is not None:
            model_server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
