"""Text hygiene shared by the gate, the context builder and the normaliser."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

# Letters that render like Latin ones. Folding them lets "оverseer" written with a
# Cyrillic "о" count as the name a reader sees, and keeps the same trick from faking
# a repeat-free chat line. NFKC already folds fullwidth and mathematical letters.
_CONFUSABLES = str.maketrans(
    # Cyrillic, Greek, Armenian and Latin look-alikes (small capitals among them), each above the
    # letter it reads as. Capitals are folded to these by casefold() first.
    "авеёкмнорстухѕіїјԁԛԝһɡӏαβγεηικνορτυχωϲϳօսցıȷℓᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡʏᴢ",
    "abeekmhopctyxsiijdqwhglabyenikvoptuxwcjougijlabcdefghijklmnopqrstuvwyz",
)

# Markers that chat templates and prompt formats give special meaning to. A chat line
# that carries one is defanged so the model reads it as quoted text, not structure.
_TEMPLATE_MARKERS = re.compile(
    r"<\|[^|>]{0,40}\|>"  # <|im_start|>, <|system|>, <|eot_id|>, <|start_header_id|> ...
    r"|</?s>"  # Llama sentence markers
    r"|\[/?INST\]|<<\s*/?SYS\s*>>"  # Llama 2 instruction markers
    r"|</?(?:system|assistant|user|tool|tool_call|tool_response|function_call|think)\b[^>]{0,40}>"
    r"|\[/?(?:TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS|SYSTEM_PROMPT)\]",
    re.IGNORECASE,
)
_WHITESPACE = re.compile(r"\s+")
# One word and a colon, as a transcript labels whom a line is from or for ("alex:").
SPEAKER_LABEL = r"[^\s:{}]{1,32}:"
_ADDRESSEE = re.compile(rf"^{SPEAKER_LABEL}\s*")
# What a transcript adds to the label of another bot's line, and of a person named as the overseer.
BOT_TAG, HUMAN_TAG = " (bot)", " (human)"
# A label that says a speaker is a bot, as a reader sees it (folded): a bot or AI word between any
# marks, letters spaced or not ("(bot)", "【bot】", "«a bot»", "(b o t)", "[AI]"), or the robot's
# face; and one that says a person is (the transcript's own "(human)"). Only the chat event's `bot`
# field says whose a line is: a name carries neither.
_LABELLED = r"[^\w\s][^\w]*(?:an?\s+)?(?:{words})[^\w]*[^\w\s]"
BOT_LABEL = re.compile(_LABELLED.format(words=r"b\W*o\W*t\W*s?|a\W*i|robot") + "|\U0001f916")
SPEAKER_TAG = re.compile(_LABELLED.format(words=r"b\W*o\W*t\W*s?|a\W*i|robot|humans?|person") + "|\U0001f916")
# Braces become their full-width forms so pasted tool-call JSON can no longer parse
# as JSON anywhere downstream, while a reader (or a model) still sees the braces.
_BRACES = str.maketrans({"{": "｛", "}": "｝"})
CUT_MARKER = "…[cut {} chars]"


def _is_invisible(char: str) -> bool:
    """Format and control characters: zero-width, bidi overrides, tag characters."""
    category = unicodedata.category(char)
    return category in ("Cf", "Cc", "Co", "Cn", "Cs") and char not in "\t\n\r"


_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_invisible(text: str) -> str:
    """Remove characters that render as nothing but change what a program sees."""
    if text.isascii():  # the common case, and the only invisibles ASCII has are controls
        return _ASCII_CONTROLS.sub("", text)
    return "".join(char for char in text if not _is_invisible(char))


def fold(text: str) -> str:
    """Canonical form for matching: what a reader sees, lower-cased, accents dropped."""
    # Case first: a capital look-alike (Cyrillic О, Greek Ο) folds to the small one the table has.
    text = unicodedata.normalize("NFKC", strip_invisible(text)).casefold()
    decomposed = unicodedata.normalize("NFKD", text.translate(_CONFUSABLES))
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _WHITESPACE.sub(" ", bare.casefold()).strip()


def cut(text: str, limit: int) -> str:
    """Cut text to at most limit characters plus a visible marker naming what was lost."""
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + CUT_MARKER.format(len(text) - limit)


def one_line(text: str, limit: int) -> str:
    """One display line: no invisible characters, no line breaks, bounded length."""
    # Cut generously first so a 200 KB message costs no more than a short one.
    head = text[: limit * 4 + 64]
    flat = _WHITESPACE.sub(" ", strip_invisible(unicodedata.normalize("NFKC", head))).strip()
    lost = len(text) - len(head)
    if lost <= 0:
        return cut(flat, limit)
    kept = flat[:limit].rstrip()
    return kept + CUT_MARKER.format(len(text) - len(kept))


def quote_chat(text: str, limit: int) -> str:
    """Render a chat line as inert data for the model's transcript."""
    line = one_line(text, limit)
    line = _TEMPLATE_MARKERS.sub(lambda match: _defang(match.group(0)), line)
    return line.translate(_BRACES)


_LOOK_ALIKES = str.maketrans("<>[]|", "‹›⟦⟧¦")


def _defang(marker: str) -> str:
    """Swap the brackets of a template marker for look-alikes no tokenizer treats as special."""
    return marker.translate(_LOOK_ALIKES)


_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
# Templates that open the block in the prompt leave the reply only its closing tag.
_THINKING_OPENED_BEFORE = re.compile(r"^.*</think>", re.DOTALL | re.IGNORECASE)


def without_thinking(text: str) -> str:
    """Remove a reasoning model's <think> blocks: they are never meant for the room."""
    return _THINKING_OPENED_BEFORE.sub(" ", _THINKING.sub(" ", text)).strip()


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!<>|~])")


def markdown_plain(text: str) -> str:
    """Text from a device or a model, made safe where Home Assistant renders markdown.

    Repairs and notifications render it: with its markup characters escaped it can neither
    link nor format.
    """
    return _MARKDOWN.sub(r"\\\1", text)


# Stored times are read back from a store that may have been edited or written by a bug.
LATEST_TS = 4_102_444_800  # 2100-01-01


def stored_time(value: Any) -> float:
    """Check a stored timestamp: a number (not text, not a boolean), finite, from 1970 to 2100."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"not a timestamp: {value!r}")
    number = float(value)
    if not math.isfinite(number) or not 0 <= number <= LATEST_TS:
        raise ValueError(f"not a timestamp: {value!r}")
    return number


def without_addressee(line: str) -> str:
    """Return the line without whom it is for: "alex: lift lowered" reads "lift lowered"."""
    return _ADDRESSEE.sub("", line, count=1)
