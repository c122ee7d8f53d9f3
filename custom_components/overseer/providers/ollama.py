"""Ollama backend: one /api/chat call per decision through the ollama AsyncClient."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx
import ollama
from homeassistant.util.ssl import get_default_context

from ..const import OLLAMA_KEEP_ALIVE, OLLAMA_NUM_CTX
from ..core.reply import ModelReply
from . import (
    MAX_OUTPUT_TOKENS,
    MAX_REASONING_TOKENS,
    BadResponse,
    ModelNotFound,
    ModelTimeout,
    cannot_connect,
)
from .wire import ollama_messages, typed_reply

LIST_TIMEOUT = 10


def make_client(url: str, timeout: float) -> ollama.AsyncClient:
    """Make a client whose TLS context comes from Home Assistant (creating one blocks)."""
    return ollama.AsyncClient(host=url, timeout=timeout, verify=get_default_context())


async def async_list_models(url: str) -> list[str]:
    """Names of the models the server has; raises CannotConnect or ModelTimeout."""
    client = make_client(url, LIST_TIMEOUT)
    try:
        async with asyncio.timeout(LIST_TIMEOUT):
            response = await client.list()
    except (TimeoutError, httpx.TimeoutException) as err:
        raise ModelTimeout("timed out listing models", "model_list_timeout") from err
    except (ConnectionError, httpx.HTTPError, ollama.ResponseError, ValueError) as err:
        raise cannot_connect(err) from err
    return sorted(str(model.model) for model in response.models if model.model)


class OllamaProvider:
    """Asks an Ollama server; the tools parameter lists exactly the available tools."""

    def __init__(self, url: str, model: str, timeout: float) -> None:
        """Create the client once; it keeps its connection pool between decisions."""
        self._client = make_client(url, timeout)
        self._url = url
        self._model = model
        self._timeout = timeout

    async def async_check(self) -> None:
        """Check that the server answers and has the configured model."""
        models = await async_list_models(self._url)
        if self._model not in models:
            raise ModelNotFound(
                f"{self._model} is not on the server", "model_not_on_server", model=self._model
            )

    async def async_decide(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        *,
        must_call: Sequence[str] = (),
    ) -> ModelReply:
        """One chat request, no streaming; every failure becomes a typed ModelError.

        Ollama's API has no tool_choice: must_call cannot be held.
        """
        response = await self._async_chat(messages, tools=list(tools) or None, num_predict=MAX_OUTPUT_TOKENS)
        message = response.message
        calls = [
            {"name": call.function.name, "arguments": call.function.arguments}
            for call in (message.tool_calls or [])
        ]
        return typed_reply(
            message.content,
            calls,
            prompt_tokens=response.prompt_eval_count,
            completion_tokens=response.eval_count,
        )

    async def async_reason(self, messages: Sequence[dict[str, Any]], schema: dict[str, Any]) -> str:
        """One chat request held to the schema by Ollama's structured outputs (`format`)."""
        response = await self._async_chat(messages, format=schema, num_predict=MAX_REASONING_TOKENS)
        return response.message.content or ""

    async def _async_chat(
        self, messages: Sequence[dict[str, Any]], num_predict: int, **request: Any
    ) -> ollama.ChatResponse:
        """One /api/chat call; every failure becomes a typed ModelError."""
        try:
            async with asyncio.timeout(self._timeout):
                return await self._client.chat(
                    model=self._model,
                    messages=ollama_messages(messages),
                    stream=False,
                    options={"num_ctx": OLLAMA_NUM_CTX, "num_predict": num_predict},
                    keep_alive=OLLAMA_KEEP_ALIVE,
                    **request,
                )
        except (TimeoutError, httpx.TimeoutException) as err:
            seconds = f"{self._timeout:.0f}"
            raise ModelTimeout(
                f"no answer within {seconds} s", "model_no_answer_within", seconds=seconds
            ) from err
        except ConnectionError as err:
            raise cannot_connect(err) from err
        except ollama.ResponseError as err:
            error = ModelNotFound if err.status_code == 404 else BadResponse
            raise error(f"HTTP {err.status_code}: {err.error}") from err
        except (httpx.HTTPError, ValueError) as err:
            # Truncated bodies, malformed JSON and schema mismatches land here.
            raise BadResponse(f"{type(err).__name__}: {err}") from err
