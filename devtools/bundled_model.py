"""The bundled model: Qwen2.5-Coder-1.5B-Instruct served by llama.cpp's own OpenAI-compatible server.

For trying the overseer on a machine with no GPU and no Ollama, and for the real-model tests.
scripts/model --install builds the server and assembles the model (devtools/model_install.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from .hass_process import REPO, ManagedProcess, child_environment, free_port
from .model_install import DEFAULT_MODEL, MODELS, BundledModel, server_binary

# Which of the bundled models (scripts/model --install --model NAME installs the others).
MODEL_ALIAS = os.environ.get("OVERSEER_BUNDLED_MODEL", DEFAULT_MODEL)
# The GGUF's own template spells its tool-call example with doubled braces, which the model then
# copies; ours is that template with the example as the model must write it.
CHAT_TEMPLATE = Path(__file__).parent / "templates" / "qwen2.5-tools.jinja"
# One slot, and its prompt cache, per family of prompts that share the server: the overseer's
# decisions, the orchestrator's router and its judge. With one slot each family's request evicted
# the others' cache, and the overseer's next decision processed its whole prompt again.
SLOTS = 3
SLOT_TOKENS = 4096
# Reuse a run of at least this many cached tokens found further on in the cache, shifted into
# place. It only skips what the new prompt left out: the request after a decision's calls offers
# chat_say alone, and without it the whole conversation after the tool schemas was processed
# again (623 new tokens a request on the demo's replayed requests; 107 with it).
CACHE_REUSE = 64
THREADS = 2
# A small model at the server's default 0.8 wanders off the question (measured with the demo's
# questions: at 0.2 it answers the asker more often and invents less).
TEMPERATURE = 0.2


def bundled_model() -> BundledModel:
    """Return the model MODEL_ALIAS names (a KeyError names a model the table does not have)."""
    return MODELS[MODEL_ALIAS]


def installed() -> bool:
    """Whether the server is built and the model assembled on this machine."""
    return server_binary().is_file() and bundled_model().path.is_file()


class ModelServer(ManagedProcess):
    """llama-server on 127.0.0.1: a slot and its prompt cache per family of prompts, tool calls on."""

    def __init__(self, port: int | None = None, log_path: Path | None = None) -> None:
        """Prepare, without starting, a server on port (a free one by default)."""
        super().__init__(log_path or REPO / "test-output" / "model-server.log")
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        # Prometheus counters: prompt tokens processed and reused from the cache, tokens generated.
        self.metrics_url = f"http://127.0.0.1:{self.port}/metrics"
        self.model = bundled_model()

    def start(self, timeout: float = 180) -> ModelServer:
        """Start and wait until the model is loaded (/health answers 200 only then)."""
        if not installed():
            raise FileNotFoundError("The bundled model is not installed: run scripts/model --install")
        command = [
            str(server_binary()),
            "--model",
            str(self.model.path),
            "--alias",
            self.model.alias,
            "--jinja",
            "--chat-template-file",
            str(CHAT_TEMPLATE),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--ctx-size",
            str(SLOTS * SLOT_TOKENS),
            "--threads",
            str(THREADS),
            "--parallel",
            str(SLOTS),
            "--cache-reuse",
            str(CACHE_REUSE),
            "--temp",
            str(TEMPERATURE),
            "--no-webui",
            "--metrics",
        ]
        self.launch(
            command, f"http://127.0.0.1:{self.port}/health", timeout, env=child_environment(), cwd=REPO
        )
        return self


def server_counters(metrics_url: str | None) -> dict[str, float] | None:
    """llama-server's running totals (prompt_tokens_total, prompt_tokens_cached_total, …), if it has any.

    Other servers (Ollama, most OpenAI-compatible ones) have no such page: None.
    """
    if metrics_url is None:
        return None
    try:
        response = httpx.get(metrics_url, timeout=10)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    counters: dict[str, float] = {}
    for line in response.text.splitlines():
        name, _, value = line.partition(" ")
        if name.startswith("llamacpp:"):
            try:
                counters[name.removeprefix("llamacpp:")] = float(value)
            except ValueError:
                continue
    return counters or None
