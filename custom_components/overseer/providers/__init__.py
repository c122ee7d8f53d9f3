"""Model providers: one request per decision, a typed reply back, typed errors on failure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..core.accounts import Phrase
from ..core.reply import ModelReply

# One decision is one short line and a tool call or two: a longer answer is rambling.
MAX_OUTPUT_TOKENS = 256
# A triage answer is a few hypotheses and intents in JSON.
MAX_REASONING_TOKENS = 800
DETAIL_CHARS = 200


class ModelError(Exception):
    """The model could not be asked or did not answer usefully."""

    def __init__(self, detail: str, key: str = "", **placeholders: str) -> None:
        """Keep a bounded detail for the logs, and how to word it for people.

        A failure we describe ourselves names its sentence in the translations' messages (key,
        with its placeholders); one a server or a client library described has no key, and
        people read the text it came with.
        """
        super().__init__(detail[:DETAIL_CHARS])
        self.detail = detail[:DETAIL_CHARS]
        self.key = key
        self.placeholders = placeholders

    def worded(self, phrase: Phrase) -> str:
        """Return the failure in phrase's language: the card's banner and the repair show it."""
        return phrase(self.key, **self.placeholders)[:DETAIL_CHARS] if self.key else self.detail


class CannotConnect(ModelError):
    """The server, or the conversation agent, cannot be reached."""


SERVER_NOT_RUNNING = "nothing answers there: the model server is not running (connection refused)"


def cannot_connect(err: BaseException) -> CannotConnect:
    """Return the failure to connect, saying so plainly when no server listens (it stopped, or never started).

    Client libraries word a refused connection as "Connection error." or "[Errno 111]…"; a server
    that crashed must not read like a slow network.
    """
    cause: BaseException | None = err
    for _ in range(8):  # a cause chain is short; a cycle must not hang the loop
        if cause is None:
            break
        if isinstance(cause, ConnectionRefusedError):
            return CannotConnect(SERVER_NOT_RUNNING, "model_server_not_running")
        cause = cause.__cause__ or cause.__context__
    return CannotConnect(str(err))


class ModelTimeout(ModelError):
    """No answer in time."""


class ModelNotFound(ModelError):
    """The server answers but has no such model."""


class InvalidAuth(ModelError):
    """The server refused the credentials."""


class BadResponse(ModelError):
    """The server answered with something that is not a model reply."""


class Provider(Protocol):
    """A backend that turns the decision messages into a typed reply."""

    async def async_decide(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        *,
        must_call: Sequence[str] = (),
    ) -> ModelReply:
        """Ask once; raise a ModelError on any failure.

        must_call: the tools, of those offered, one of which the answer must call (chat_say says a
        line); a backend whose server cannot hold an answer to that asks as usual.
        """

    async def async_reason(self, messages: Sequence[dict[str, Any]], schema: dict[str, Any]) -> str:
        """Ask once for JSON following schema, with no tools; the raw text (the caller validates it)."""

    async def async_check(self) -> None:
        """Cheaply check the model can be asked at all; raise a ModelError when not."""
