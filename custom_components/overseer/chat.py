"""The chat bus: human lines in and the overseer's lines out on the same event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from homeassistant.core import HomeAssistant

from .const import EVENT_CHAT_MESSAGE, EVENT_CHAT_TYPING, INCOMING_TEXT_CHARS, USER_NAME_CHARS
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


def post_line(hass: HomeAssistant, room: str, name: str, text: str, decision_id: str) -> None:
    """Publish one of the overseer's lines where every bridge already listens."""
    hass.bus.async_fire(
        EVENT_CHAT_MESSAGE,
        {"room": room, "user": name, "text": text, "bot": True, "decision_id": decision_id},
    )


def set_typing(hass: HomeAssistant, room: str, name: str, typing: bool) -> None:
    """Tell bridges the overseer is (no longer) writing."""
    hass.bus.async_fire(EVENT_CHAT_TYPING, {"room": room, "user": name, "bot": True, "typing": typing})
