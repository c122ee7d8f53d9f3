"""scripts/develop: a real Home Assistant with the demo room and the overseer, until Ctrl-C."""

from __future__ import annotations

import os
import signal
import sys
import time

from .hass_process import DEMO_CONFIG, DEMO_PASSWORD, DEMO_USER, HomeAssistantProcess

PORT = int(os.environ.get("OVERSEER_DEMO_PORT", "8123"))


def main() -> int:
    """Start, sign the demo user in (onboarding it on first run), and wait."""
    process = HomeAssistantProcess(DEMO_CONFIG, port=PORT)
    print(f"Starting Home Assistant with the demo room (log: {process.log_path}) …", flush=True)
    process.start()
    process.login()
    ollama = os.environ.get("OLLAMA_URL", "http://localhost:11434")
    print(
        f"\n  Open {process.url}/lovelace/arena  and sign in as  {DEMO_USER} / {DEMO_PASSWORD}\n"
        f"  The overseer asks the model at {ollama} (set OLLAMA_URL, OLLAMA_MODEL to change).\n"
        "  Turn on 'Demo crowd' for a busy room, or type in 'Say something in the room chat'.\n"
        "  Ctrl-C stops Home Assistant.\n",
        flush=True,
    )
    stop = False

    def request_stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        while not stop and process.running:
            time.sleep(1)
    finally:
        process.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
