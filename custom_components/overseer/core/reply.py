"""A model's reply as typed values: what every provider hands to the normaliser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call as the model wrote it: a name and an argument object (not yet checked)."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class MalformedCall:
    """A call the provider could not read: no name, or arguments that are not an object."""

    name: str
    # Bounded and printable, for the audit log.
    shown: str


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What a model answered, before the normaliser looks at it."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    malformed: tuple[MalformedCall, ...] = ()
    # The provider saw more calls than it read (a looping model).
    calls_cut: bool = False
    # What came over the wire, bounded, for the debug card.
    raw: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # Of the prompt tokens, those the server read from its prompt cache (OpenAI's
    # usage.prompt_tokens_details.cached_tokens); None where it does not say.
    cached_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Spent:
    """What a decision's requests cost the model server: tokens in (some read from its cache), out.

    Counts are sums over the requests that reported them; unreported says how many did not.
    """

    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    unreported: int = 0

    def add(self, reply: ModelReply) -> Spent:
        """Return the sums with one more request's reply."""
        if reply.prompt_tokens is None or reply.completion_tokens is None:
            return Spent(
                self.requests + 1,
                self.prompt_tokens,
                self.cached_tokens,
                self.completion_tokens,
                self.unreported + 1,
            )
        return Spent(
            self.requests + 1,
            self.prompt_tokens + reply.prompt_tokens,
            self.cached_tokens + (reply.cached_tokens or 0),
            self.completion_tokens + reply.completion_tokens,
            self.unreported,
        )

    def as_dict(self) -> dict[str, int]:
        """Return the sums as the status object and the decision event show them."""
        return {
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "new_tokens": self.prompt_tokens - self.cached_tokens,
            "completion_tokens": self.completion_tokens,
            "unreported": self.unreported,
        }
