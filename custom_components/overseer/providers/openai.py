"""OpenAI-compatible backend: llama.cpp server, LM Studio, vLLM, LocalAI or Ollama's /v1."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from typing import Any

import openai
from homeassistant.core import HomeAssistant
from homeassistant.helpers.httpx_client import get_async_client
from openai.types.chat import ChatCompletion

from ..core.reply import ModelReply
from . import (
    MAX_OUTPUT_TOKENS,
    MAX_REASONING_TOKENS,
    BadResponse,
    CannotConnect,
    InvalidAuth,
    ModelError,
    ModelNotFound,
    ModelTimeout,
    cannot_connect,
)
from .wire import typed_reply

LIST_TIMEOUT = 10

type SchemaSpelling = Callable[[dict[str, Any]], dict[str, Any]]
# How servers say they do not take a response_format spelling (llama-cpp-python: a validation error).
FORMAT_REFUSED = re.compile(r"response_format|json_schema|schema|validation", re.IGNORECASE)
# How a refused request's error reads (a 400 or a 422): the server will not take what was asked.
REFUSED_REQUEST = ("HTTP 400", "HTTP 422")
# OpenAI's (also vLLM, LM Studio, llama.cpp's server), then llama-cpp-python's.
SCHEMA_SPELLINGS: tuple[SchemaSpelling, ...] = (
    lambda schema: {"type": "json_schema", "json_schema": {"name": "reasoning_response", "schema": schema}},
    lambda schema: {"type": "json_object", "schema": schema},
)
# Servers that need no key still want the header.
NO_KEY = "no-key"


def make_client(hass: HomeAssistant, url: str, api_key: str, timeout: float) -> openai.AsyncOpenAI:
    """Return a client on Home Assistant's shared HTTP client; the loop does the retrying, not openai."""
    return openai.AsyncOpenAI(
        base_url=url,
        api_key=api_key or NO_KEY,
        # openai 3 types it as an httpx2 client; it takes Home Assistant's httpx one, as core's
        # openai_conversation passes it.
        http_client=get_async_client(hass),  # type: ignore[arg-type,unused-ignore]
        max_retries=0,
        timeout=timeout,
    )


def _error(err: Exception) -> ModelError:
    """Our typed error for whatever the openai client raised."""
    if isinstance(err, openai.APITimeoutError | TimeoutError):
        return ModelTimeout("no answer in time", "model_no_answer_in_time")
    if isinstance(err, openai.APIConnectionError):
        return cannot_connect(err)
    if isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError):
        return InvalidAuth(
            f"HTTP {err.status_code}: the server refused the API key",
            "model_key_refused",
            status=str(err.status_code),
        )
    if isinstance(err, openai.NotFoundError):
        return ModelNotFound(f"HTTP 404: {err}")
    if isinstance(err, openai.APIStatusError):
        return BadResponse(f"HTTP {err.status_code}: {err}")
    return BadResponse(f"{type(err).__name__}: {err}")


async def async_list_models(hass: HomeAssistant, url: str, api_key: str) -> list[str]:
    """Model ids from /v1/models; raises CannotConnect, ModelTimeout or InvalidAuth."""
    client = make_client(hass, url, api_key, LIST_TIMEOUT)
    try:
        async with asyncio.timeout(LIST_TIMEOUT):
            page = await client.models.list()
    except (openai.OpenAIError, TimeoutError, ValueError) as err:
        error = _error(err)
        # A 404 or a malformed answer on /models means this is not an OpenAI-compatible base URL.
        if isinstance(error, ModelNotFound | BadResponse):
            raise CannotConnect(error.detail, error.key, **error.placeholders) from err
        raise error from err
    return sorted(str(model.id) for model in page.data if model.id)


class OpenAIProvider:
    """Chat completions with the available tools; the same normaliser reads the answer."""

    def __init__(self, hass: HomeAssistant, url: str, model: str, api_key: str, timeout: float) -> None:
        """Create the client once."""
        self._hass = hass
        self._url = url
        self._api_key = api_key
        self._model = model
        self._timeout = timeout
        self._client = make_client(hass, url, api_key, timeout)
        # How this server wants a JSON schema asked for, once known.
        self._spelling: SchemaSpelling | None = None
        # The server refused a request held to a call (tool_choice "required" or the format).
        self._refuses_must_call = False

    async def async_check(self) -> None:
        """Check that the server answers and lists the configured model."""
        if self._model not in await async_list_models(self._hass, self._url, self._api_key):
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
        """Ask for one chat completion; every failure becomes a typed ModelError.

        must_call asks in both ways a server may hold an answer to a call: tool_choice "required"
        (OpenAI), and a response format that is a call of one of those tools as JSON, the way a
        small model writes its calls in its text (llama.cpp's server ignored "required" for the
        bundled model's template and let it write on to the token limit). The tools offered stay
        the same, so the prompt does too. A server that refuses such a request is asked as usual,
        now and from then on.
        """
        extra: dict[str, Any] = {"tools": list(tools), "tool_choice": "auto"} if tools else {}
        held = self._call_format(tools, must_call) if must_call and not self._refuses_must_call else None
        if held is not None:
            try:
                return self._reply(
                    await self._async_complete(
                        messages,
                        MAX_OUTPUT_TOKENS,
                        **extra | {"tool_choice": "required", "response_format": held},
                    )
                )
            except BadResponse as err:
                if not err.detail.startswith(REFUSED_REQUEST):
                    raise  # a busy or broken server: not a reason to ask differently for good
                self._refuses_must_call = True
        return self._reply(await self._async_complete(messages, MAX_OUTPUT_TOKENS, **extra))

    def _call_format(self, tools: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, Any] | None:
        """Return a response format for one call of one of the named tools, or None when none is offered."""
        calls = [
            {
                "type": "object",
                "properties": {"name": {"const": function["name"]}, "arguments": function["parameters"]},
                "required": ["name", "arguments"],
            }
            for tool in tools
            if (function := tool.get("function")) and function["name"] in names
        ]
        return (self._spelling or SCHEMA_SPELLINGS[0])({"anyOf": calls}) if calls else None

    @staticmethod
    def _reply(response: ChatCompletion) -> ModelReply:
        """Return the typed reply of a chat completion with tools."""
        message = response.choices[0].message
        # Arguments arrive as a JSON string; the wire reader parses them, the normaliser checks them.
        calls = [
            {"name": function.name, "arguments": function.arguments}
            for call in (message.tool_calls or [])
            if (function := getattr(call, "function", None)) is not None
        ]
        usage = response.usage
        return typed_reply(
            message.content,
            calls,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            cached_tokens=getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None),
        )

    async def async_reason(self, messages: Sequence[dict[str, Any]], schema: dict[str, Any]) -> str:
        """One chat completion held to the schema by `response_format`.

        A server that refuses OpenAI's spelling is asked once in llama-cpp-python's; the spelling
        that worked is kept for the next calls.
        """
        *first, last = [self._spelling] if self._spelling else SCHEMA_SPELLINGS
        for spelling in first:
            try:
                return await self._async_reason_as(spelling, messages, schema)
            except BadResponse as err:
                if not FORMAT_REFUSED.search(err.detail):
                    raise  # a busy or broken server: not a reason to ask differently for good
        return await self._async_reason_as(last, messages, schema)

    async def _async_reason_as(
        self, spelling: SchemaSpelling, messages: Sequence[dict[str, Any]], schema: dict[str, Any]
    ) -> str:
        response = await self._async_complete(
            messages, MAX_REASONING_TOKENS, response_format=spelling(schema)
        )
        self._spelling = spelling
        return response.choices[0].message.content or ""

    async def _async_complete(
        self, messages: Sequence[dict[str, Any]], max_tokens: int, **request: Any
    ) -> ChatCompletion:
        """One chat completion with at least one choice; every failure becomes a typed ModelError."""
        try:
            async with asyncio.timeout(self._timeout):
                response = await self._client.chat.completions.create(
                    model=self._model,
                    messages=list(messages),  # type: ignore[arg-type]
                    max_tokens=max_tokens,
                    **request,
                )
        except (openai.OpenAIError, TimeoutError, ValueError) as err:
            raise _error(err) from err
        if not response.choices:
            raise BadResponse("the answer had no choices", "model_no_choices")
        return response
