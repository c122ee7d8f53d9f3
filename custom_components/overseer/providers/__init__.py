"""Model providers: one request per decision, plain data back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

RAW_CHARS = 4000
# One decision is one short line and a tool call or two: a longer answer is rambling.
MAX_OUTPUT_TOKENS = 256


def raw_output(text: Any, calls: Any) -> str:
    """The model's reply as one bounded string: text, then the tool calls as JSON."""
    parts = [str(text)] if text else []
    if calls:
        parts.append(json.dumps(calls, ensure_ascii=False, default=str))
    return "\n".join(parts)[:RAW_CHARS]


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What a model answered, before the normaliser looks at it."""

    text: Any
    tool_calls: Any = None
    # What came over the wire, bounded, for the debug card.
    raw: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class ModelError(Exception):
    """The model could not be asked or did not answer usefully.

    kind is a translation key: cannot_connect, timeout, model_not_found, bad_response.
    """

    def __init__(self, kind: str, detail: str) -> None:
        """Keep the category apart from the detail for the status and the repair."""
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


class Provider(Protocol):
    """A backend that turns the decision messages into a reply."""

    async def async_decide(
        self, messages: Sequence[dict[str, str]], tools: Sequence[dict[str, Any]]
    ) -> ModelReply:
        """Ask once; raise ModelError on any failure."""

    async def async_check(self) -> None:
        """Cheaply check the model can be asked at all; raise ModelError when not."""
