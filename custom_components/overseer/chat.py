"""The chat bus, coming in: a line from the bus, validated and bounded (lines go out in events.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .const import INCOMING_TEXT_CHARS, USER_NAME_CHARS
from .core.text import one_line


@dataclass(frozen=True, slots=True)
class IncomingChat:
    """One chat message from the bus, validated and bounded."""

    user: str
    text: str
    bot: bool
    room: str | None


def parse_chat_event(data: Mapping[str, Any]) -> IncomingChat | None:
    """Validate an overseer_chat_message payload; None for anything malformed."""
    user, text, room = data.get("user"), data.get("text"), data.get("room")
    if not isinstance(user, str) or not isinstance(text, str) or not text.strip():
        return None
    if room is not None and not isinstance(room, str):
        return None
    # Keep the raw text (bounded): the context builder decides how it is shown.
    return IncomingChat(
        user=one_line(user, USER_NAME_CHARS) or "someone",
        text=text[:INCOMING_TEXT_CHARS],
        bot=data.get("bot") is True,
        room=room,
    )
