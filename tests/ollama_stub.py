"""A real HTTP server on 127.0.0.1 that speaks Ollama's /api/tags and /api/chat, and, like
Ollama itself, the OpenAI-compatible /v1/models and /v1/chat/completions.

Replies are scripted per test, so the real `ollama` and `openai` clients are exercised end to end.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Scripted:
    """One scripted answer to /api/chat."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    body: str | None = None  # raw body instead of a well-formed reply
    cut_connection: bool = False  # promise a long body, send a little, hang up
    before: Callable[[], Awaitable[None] | None] | None = None  # runs while the request is open


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A tool call as Ollama sends it."""
    return {"function": {"name": name, "arguments": arguments}}


def reasoning(
    *intents: tuple[str, dict[str, Any]],
    safety: str = "reversible",
    fault: str = "the device stopped answering",
    action: str = "Check the device.",
) -> str:
    """A ReasoningResponse as a triage model writes it: intents are (tool, arguments)."""
    return json.dumps(
        {
            "hypotheses": [{"fault": fault, "confidence": 0.7, "reasoning": "from the failed checks"}],
            "tool_intents": [{"name": name, "arguments": arguments} for name, arguments in intents],
            "recommended_action": action,
            "confidence": 0.7,
            "safety_class": safety,
        }
    )


def is_triage(payload: dict[str, Any]) -> bool:
    """A triage request asks for JSON in a schema and offers no tools."""
    return ("format" in payload or "response_format" in payload) and not payload.get("tools")


def is_follow_up(payload: dict[str, Any]) -> bool:
    """Whether a request ends with tool results: an agent's request after its calls.

    Earlier decisions' results inside the transcript make no follow-up: a decision ends with its moment.
    """
    return (payload.get("messages") or [{}])[-1].get("role") == "tool"


# What the second request, for the line or call an answer to someone lacked, says (cycle.py
# LINE_OWED, CALL_ASKED).
LINE_OWED_CUES = ("Not SKIP: ", " asked you for that, and you may do it now: call ")


def is_line_owed(payload: dict[str, Any]) -> bool:
    """Whether a request asks for the line an answer to someone did not have."""
    last = (payload.get("messages") or [{}])[-1]
    return last.get("role") == "user" and any(cue in str(last.get("content")) for cue in LINE_OWED_CUES)


class OllamaStub:
    """Scripted Ollama server; records every chat request it receives."""

    def __init__(self, models: tuple[str, ...] = ("llama3.2:latest", "qwen2.5:7b")) -> None:
        self.models = list(models)
        self.script: deque[Scripted] = deque()
        # Answers to the requests after a decision's calls (its tool results), apart from the
        # decisions' own script: "SKIP" (the default) when none is queued.
        self.after_calls_script: deque[Scripted] = deque()
        # Answers to the requests for an answer's missing line: "SKIP" (the default) when none is queued.
        self.line_owed_script: deque[Scripted] = deque()
        self.requests: list[dict[str, Any]] = []
        # When each chat request arrived, in wall-clock seconds (a frozen clock's, under freezer).
        self.request_times: list[float] = []
        self.in_flight = 0
        # Model listings (/api/tags, /v1/models): how often the model's health was checked.
        self.tags_requests = 0
        self.most_in_flight = 0
        self.default = Scripted(content="SKIP")
        # When nothing is scripted: picks the answer from the request (for long-running tests).
        self.responder: Callable[[dict[str, Any]], Scripted | None] | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0
        # Answers to triage requests, in turn (the last one again once spent); chat's script is apart.
        self.triage_answers: deque[Scripted] = deque()
        # When set, the /v1 endpoints want "Authorization: Bearer <api_key>".
        self.api_key: str | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reply(self, content: str = "", *calls: dict[str, Any], **kwargs: Any) -> None:
        """Queue one answer."""
        self.script.append(Scripted(content=content, tool_calls=list(calls), **kwargs))

    def after_calls(self, content: str = "", *calls: dict[str, Any], **kwargs: Any) -> None:
        """Queue one answer to a request that carries a decision's tool results."""
        self.after_calls_script.append(Scripted(content=content, tool_calls=list(calls), **kwargs))

    def line_owed(self, content: str = "", *calls: dict[str, Any], **kwargs: Any) -> None:
        """Queue one answer to a request for the line an answer to someone did not have."""
        self.line_owed_script.append(Scripted(content=content, tool_calls=list(calls), **kwargs))

    def triage(self, *contents: str, **kwargs: Any) -> None:
        """Answer triage requests with these texts in turn (the last again once spent); chat apart.

        kwargs apply to each answer (status, before …), as for reply().
        """
        self.triage_answers = deque(Scripted(content=content, **kwargs) for content in contents)

    @property
    def decisions(self) -> list[dict[str, Any]]:
        """The requests that open a decision: not triage, not the one after its calls, nor for its line."""
        return [
            payload
            for payload in self.requests
            if not is_triage(payload) and not is_follow_up(payload) and not is_line_owed(payload)
        ]

    @property
    def lines_owed(self) -> list[dict[str, Any]]:
        """The requests for the line an answer to someone did not have."""
        return [payload for payload in self.requests if is_line_owed(payload)]

    @property
    def follow_ups(self) -> list[dict[str, Any]]:
        """The requests after a decision's calls, their results in tool messages."""
        return [payload for payload in self.requests if is_follow_up(payload) and not is_line_owed(payload)]

    @property
    def triage_requests(self) -> list[dict[str, Any]]:
        """The triage requests received, in order."""
        return [payload for payload in self.requests if is_triage(payload)]

    async def start(self, port: int = 0) -> None:
        app = web.Application()
        app.router.add_get("/api/tags", self._tags)
        app.router.add_post("/api/chat", self._chat)
        app.router.add_get("/v1/models", self._openai_models)
        app.router.add_post("/v1/chat/completions", self._openai_chat)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        # The runner lists the addresses its sites listen on: (host, port) for IPv4.
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _tags(self, request: web.Request) -> web.Response:
        self.tags_requests += 1
        return web.json_response(
            {
                "models": [
                    {"name": m, "model": m, "size": 1, "digest": "0", "details": {}} for m in self.models
                ]
            }
        )

    def _refused(self, request: web.Request) -> web.Response | None:
        if self.api_key and request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return web.json_response(
                {"error": {"message": "Incorrect API key", "type": "invalid_request_error"}}, status=401
            )
        return None

    async def _openai_models(self, request: web.Request) -> web.Response:
        self.tags_requests += 1
        if (refused := self._refused(request)) is not None:
            return refused
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": m, "object": "model", "created": 0, "owned_by": "stub"} for m in self.models],
            }
        )

    async def _next(self, payload: dict[str, Any]) -> Scripted:
        """Record the request and run the scripted answer's hook."""
        self.requests.append(payload)
        self.request_times.append(time.time())
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await self._scripted(payload)
        finally:
            self.in_flight -= 1

    async def _scripted(self, payload: dict[str, Any]) -> Scripted:
        if self.triage_answers and is_triage(payload):
            answers = self.triage_answers
            scripted = answers.popleft() if len(answers) > 1 else answers[0]
        elif is_line_owed(payload) and self.line_owed_script:
            scripted = self.line_owed_script.popleft()
        elif is_follow_up(payload) and self.after_calls_script:
            scripted = self.after_calls_script.popleft()
        elif self.script and not is_follow_up(payload) and not is_line_owed(payload):
            scripted = self.script.popleft()
        else:
            scripted = (self.responder(payload) if self.responder else None) or self.default
        if scripted.before is not None:
            result = scripted.before()
            if asyncio.iscoroutine(result):
                await result
        return scripted

    async def _openai_chat(self, request: web.Request) -> web.Response:
        if (refused := self._refused(request)) is not None:
            return refused
        payload = await request.json()
        scripted = await self._next(payload)
        if payload.get("model") not in self.models:
            return web.json_response(
                {"error": {"message": "model not found", "type": "not_found"}}, status=404
            )
        if scripted.body is not None:
            return web.Response(text=scripted.body, status=scripted.status, content_type="application/json")
        if scripted.status != 200:
            return web.json_response({"error": {"message": "scripted failure"}}, status=scripted.status)
        calls = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {
                    "name": c["function"]["name"],
                    "arguments": json.dumps(c["function"]["arguments"]),
                },
            }
            for i, c in enumerate(scripted.tool_calls)
        ]
        return web.json_response(
            {
                "id": "chatcmpl-stub",
                "object": "chat.completion",
                "created": 0,
                "model": payload["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "tool_calls" if calls else "stop",
                        "message": {
                            "role": "assistant",
                            "content": scripted.content,
                            "tool_calls": calls or None,
                        },
                    }
                ],
                "usage": {
                    "prompt_tokens": 321,
                    "completion_tokens": 12,
                    "total_tokens": 333,
                    # As llama-server says it: the prompt tokens it read from its cache.
                    "prompt_tokens_details": {"cached_tokens": 300},
                },
            }
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        payload = await request.json()
        scripted = await self._next(payload)
        if scripted.cut_connection:
            response = web.StreamResponse(
                headers={"Content-Type": "application/json", "Content-Length": "5000"}
            )
            await response.prepare(request)
            await response.write(b'{"model": "x", "message": {"role": "assis')
            request.transport.close()
            return response
        if payload.get("model") not in self.models:
            return web.json_response({"error": f"model '{payload.get('model')}' not found"}, status=404)
        if scripted.body is not None:
            return web.Response(text=scripted.body, status=scripted.status, content_type="application/json")
        if scripted.status != 200:
            return web.json_response({"error": "scripted failure"}, status=scripted.status)
        return web.Response(
            text=json.dumps(
                {
                    "model": payload["model"],
                    "created_at": "2026-11-30T00:00:00Z",
                    "message": {
                        "role": "assistant",
                        "content": scripted.content,
                        "tool_calls": scripted.tool_calls,
                    },
                    "done": True,
                    "done_reason": "stop",
                    "prompt_eval_count": 321,
                    "eval_count": 12,
                }
            ),
            content_type="application/json",
        )


class ThreadedOllamaStub:
    """The same stub on its own event loop thread, for tests that drive a separate process."""

    def __init__(self) -> None:
        self.stub = OllamaStub()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="ollama-stub", daemon=True)

    def __enter__(self) -> OllamaStub:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.stub.start(), self._loop).result(10)
        return self.stub

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.stub.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
