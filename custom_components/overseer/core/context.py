"""What the model reads each decision: system, STATE_UPDATE, transcript, tool blocks."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from .gate import WORLD_EVENT_CHARS, Trigger, TriggerKind
from .policy import Availability, Ledger, Limits, configured_groups
from .text import BOT_TAG, HUMAN_TAG, SPEAKER_TAG, cut, fold, one_line, quote_chat
from .tools import TOOLS
from .world import Entity, RoverField, World

NAME_PLACEHOLDER = "<NAME>"
CHAT_LINE_CHARS = 400
LABEL_CHARS = 40
SYSTEM_PROMPT_CHARS = 6000
# Caps per STATE_UPDATE section so 200 watched entities still make a compact prompt.
MAX_ROVERS = 8
MAX_LIGHTS = 24
MAX_EXTRAS = 30
MAX_INCIDENTS = 5
INCIDENT_CHARS = 120
# Lines older than this many messages are never looked at, whatever the history holds.
LOOKBACK = 1000
CHARS_PER_TOKEN = 4
# The question, said again at the end of the request: long enough to know what was asked.
CUE_CHARS = 160


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat message as received: who, what, whether a bot sent it, when, and whether it was ours.

    fixed: one of our own sentences that the model did not write (an account of what ran, a fallback,
    a guardrail's answer).
    """

    user: str
    text: str
    bot: bool
    ts: float
    own: bool = False
    fixed: bool = False
    # Of the overseer's own line, the model's words in it (its quip): all the model reads back, since
    # the facts before them are the overseer's; empty: the whole text.
    words: str = ""

    @property
    def read(self) -> str:
        """Return the line as the model reads it."""
        return self.words or self.text


@dataclass(frozen=True, slots=True)
class TranscriptBounds:
    """How much conversation a decision sees."""

    turns: int = 30
    minutes: float = 10
    min_human: int = 5
    bot_messages: int = 2


def select_transcript(lines: Sequence[ChatLine], now: float, bounds: TranscriptBounds) -> list[ChatLine]:
    """Return the bounded window, oldest first.

    Holds the recent lines inside transcript_turns and transcript_minutes, plus, whatever
    their age, the last min_human human lines; of the overseer's own lines, its last
    bot_messages only (the seed's "last 1-2 bot messages"): a small model copies whatever line
    of its own it reads, and with every one in the window it answered one question with its
    answer to another. The overseer's fixed sentences are left out: read as its own turns, their
    shape came back as the model's ("Done: roast rover 3." to "roast rover 3 for us"). The result
    never has more than max(turns, min_human + bot_messages) lines.
    """
    recent = [line for line in islice(reversed(lines), LOOKBACK) if not line.fixed]  # newest first
    required: set[int] = set()
    humans = bots = 0
    for index, line in enumerate(recent):
        if humans >= bounds.min_human and bots >= bounds.bot_messages:
            break
        if line.own and bots < bounds.bot_messages:
            bots += 1
            required.add(index)
        elif not line.bot and humans < bounds.min_human:
            humans += 1
            required.add(index)
    room = max(0, bounds.turns - len(required))
    cutoff = now - bounds.minutes * 60
    chosen = set(required)
    for index, line in enumerate(recent):
        if room == 0 or line.ts < cutoff:
            break
        if index not in chosen and not line.own:
            chosen.add(index)
            room -= 1
    return [recent[index] for index in sorted(chosen, reverse=True)]


def speaker(line: ChatLine, name: str) -> str:
    """Return a transcript speaker label no human or other bot can use to pass as the overseer."""
    if line.own:
        return name
    # A colon in a name could pass for the end of the speaker label.
    label = quote_chat(line.user.replace(":", " "), 32) or "someone"
    if line.bot:
        return f"{label}{BOT_TAG}"
    # Whether a line is a bot's is the event's to say: a person's name never carries a tag.
    if SPEAKER_TAG.search(fold(label)):
        return f"{SPEAKER_TAG.sub(' ', fold(label)).strip() or 'someone'}{HUMAN_TAG}"
    return f"{label}{HUMAN_TAG}" if fold(label) == fold(name) else label


def transcript_messages(
    lines: Iterable[ChatLine], name: str, turns: Sequence[CallTurn] = ()
) -> list[dict[str, Any]]:
    """Human lines as user turns and the overseer's as assistant turns, all quoted.

    turns: the overseer's earlier calls and their results, each where it fell among the lines
    (CONTRACT.md, wave 5: the results go back to the model in the decisions after).
    """
    messages: list[dict[str, Any]] = []
    pending = sorted(turns, key=lambda turn: turn.ts)
    first = 0
    for line in lines:
        while pending and pending[0].ts <= line.ts:
            turn = pending.pop(0)
            messages += tool_turn(turn.calls, turn.results, first)
            first += len(turn.calls)
            if not line.own:
                messages.append(_SAID_NOTHING)
        messages.append(
            {
                "role": "assistant" if line.own else "user",
                "content": f"{speaker(line, name)}: {quote_chat(line.read, CHAT_LINE_CHARS)}",
            }
        )
    for turn in pending:
        messages += [*tool_turn(turn.calls, turn.results, first), _SAID_NOTHING]
        first += len(turn.calls)
    return messages


# After its calls' results, the model said nothing of its own (its line was the overseer's facts):
# strict servers (Mistral's) refuse a person's turn straight after a tool result.
_SAID_NOTHING = {"role": "assistant", "content": "SKIP"}


def label(text: str) -> str:
    """Entity names and states come from devices and users: quote them like chat."""
    return quote_chat(text, LABEL_CHARS)


def _flag(state: str) -> str:
    """Binary sensors read on/off; the model reads true/false more naturally."""
    return {"on": "true", "off": "false"}.get(state, state)


def _bounded(items: Sequence[Any], limit: int) -> tuple[Sequence[Any], str | None]:
    """At most limit items, and a note on how many were left out."""
    if len(items) <= limit:
        return items, None
    return items[:limit], f"- …+{len(items) - limit} more"


def _entity(entity: Entity) -> str:
    """name=state, with a short detail such as a light's colour."""
    detail = f"({label(entity.detail)})" if entity.detail else ""
    return f"{label(entity.name)}={label(entity.state)}{detail}"


def _rover_line(name: str, fields: Sequence[tuple[RoverField, Entity]]) -> str:
    """- rover1: driving, driver=alex, docked=false, charging=true."""
    parts: list[str] = []
    for field, entity in fields:
        value = label(_flag(entity.state))
        if field is RoverField.ACTIVITY:
            parts.insert(0, value)
        elif field is RoverField.OTHER:
            parts.append(_entity(entity))
        else:
            parts.append(f"{field.value}={value}")
    return f"- {label(name)}: {', '.join(parts) or 'no data'}"


def _lift_line(world: World) -> str | None:
    """lift: down, busy=false."""
    lift = world.lift
    if lift is None:
        return None
    if lift.cover is not None:
        state = lift.cover.state
        position = {"closed": "down", "open": "up", "opening": "moving up", "closing": "moving down"}
        busy = state in ("opening", "closing")
        return f"lift: {position.get(state, label(state))}, busy={str(busy).lower()}"
    scripts = [s for s in (lift.up_script, lift.down_script) if s is not None]
    if any(s.missing for s in scripts):
        return "lift: unavailable"
    running = any(s.state == "on" for s in scripts)
    return f"lift: {'moving' if running else 'still'}, busy={str(running).lower()}"


def describe_trigger(trigger: Trigger, now: float | None = None) -> str:
    """Return the STATE_UPDATE's trigger line.

    The world events a decision answers are named, each with how long ago it happened (given
    now): they may have waited minutes for the room, which the model cannot tell from its state.
    """
    if not trigger.events:
        return trigger.kind.value
    happened = "; ".join(
        quote_chat(event.detail, WORLD_EVENT_CHARS)
        + (f", {max(round(now - event.since), 0)} s ago" if now is not None else "")
        for event in trigger.events
    )
    if trigger.kind is TriggerKind.WORLD_EVENT:
        return f"{trigger.kind.value}: {happened}"
    return f"{trigger.kind.value}; {TriggerKind.WORLD_EVENT.value}: {happened}"


def render_state_update(world: World, trigger: str, ledger: Ledger, limits: Limits, now: float) -> str:
    """Render the whole STATE_UPDATE: this moment's lines, then the room's (an agent's one message)."""
    moment = render_moment(world, trigger, ledger, limits, now)
    return "\n".join((STATE_UPDATE, moment, render_room(world).partition("\n")[2]))


def render_moment(world: World, trigger: str, ledger: Ledger, limits: Limits, now: float) -> str:
    """Render the lines that change every decision: the time, the trigger, the cooldowns and the budget.

    They close the request, beside the tool blocks, so that what comes before them (the system
    prompt, the room, the chat) stays the same from one decision to the next and a model server's
    prompt cache serves it (CONTRACT.md, wave 5).
    """
    cooldowns = ", ".join(
        f"{group.value}={f'{left}s' if (left := ledger.remaining(group, now)) else 'ready'}"
        for group in configured_groups(world)
    )
    spent = len(ledger.spent(now, limits))
    return "\n".join(
        (
            f"time: {world.local_time}",
            f"trigger: {trigger}",
            f"cooldowns: {cooldowns or 'none'}",
            f"actions: {spent}/{limits.action_budget} used in {int(limits.action_window)}s",
        )
    )


def render_room(world: World) -> str:
    """Render the STATE_UPDATE of what changes at the room's pace: its locks, people, devices, memory."""
    lines = [
        STATE_UPDATE,
        # The lock is named only when it holds: its blocked tools say so too.
        f"site_mode: {world.site_mode.value}{', lights_locked_on=true' if world.lights_locked_on else ''}",
        f"people: {', '.join(label(p) for p in world.active_people[:12]) or 'nobody active'}",
    ]
    if world.rovers:
        rovers, more = _bounded(world.rovers, MAX_ROVERS)
        lines.append("rovers:")
        lines.extend(_rover_line(rover.name, rover.fields) for rover in rovers)
        lines.extend([more] if more else [])
    if lift_line := _lift_line(world):
        lines.append(lift_line)
    if world.vacuum is not None:
        vacuum = world.vacuum
        detail = f", {label(vacuum.detail)}" if vacuum.detail else ""
        lines.append(f"neato: state={label(vacuum.state)}{detail}")
    if world.counter is not None:
        lines.append(f"counter: {label(world.counter.name)}={label(world.counter.state)}")
    if world.lights:
        lights, more = _bounded(world.lights, MAX_LIGHTS)
        lines.append("lights:")
        lines.append("- " + ", ".join(_entity(light) for light in lights))
        lines.extend([more] if more else [])
    if world.extras:
        extras, more = _bounded(world.extras, MAX_EXTRAS)
        lines.append("other:")
        lines.append("- " + ", ".join(_entity(entity) for entity in extras))
        lines.extend([more] if more else [])
    if world.incidents:
        incidents, more = _bounded(world.incidents, MAX_INCIDENTS)
        lines.append("open incidents:")
        lines.extend(f"- {quote_chat(incident, INCIDENT_CHARS)}" for incident in incidents)
        lines.extend([more] if more else [])
    # Every decision of a room that never wrote memory said "1=(empty), 2=(empty), 3=(empty)".
    memory = (
        ", ".join(f"{slot}={label(text) if text else '(empty)'}" for slot, text in enumerate(world.memory, 1))
        if any(world.memory)
        else "empty"
    )
    lines.append(f"memory: {memory}")
    return "\n".join(lines)


# The prompt's own section names: machinery, never the room's talk ("No blocked tools.", said to
# the room by scripts/develop's overseer).
STATE_UPDATE, AVAILABLE_TOOLS, BLOCKED_TOOLS = "STATE_UPDATE", "available_tools", "blocked_tools"
PROMPT_SECTIONS = (STATE_UPDATE, AVAILABLE_TOOLS, BLOCKED_TOOLS)


def render_tool_blocks(availability: Availability) -> tuple[str, str]:
    """Render the available_tools and blocked_tools messages."""
    available = "\n".join(f"- {TOOLS[name].signature}" for name in availability.available) or "- none"
    blocked_lines = []
    for name, block in availability.blocked:
        remaining = f" remaining={block.remaining}s" if block.remaining else ""
        blocked_lines.append(f"- {TOOLS[name].signature} reason={block.reason.value}{remaining}")
    blocked = "\n".join(blocked_lines) or "- none"
    return f"{AVAILABLE_TOOLS}:\n{available}", f"{BLOCKED_TOOLS}:\n{blocked}"


# Moments the overseer may speak into unprompted (a heartbeat or a manual run needs no nudge).
LIVELY = frozenset(
    {TriggerKind.CHALLENGE, TriggerKind.TOPIC_CHANGE, TriggerKind.WORLD_EVENT, TriggerKind.CHAT_BURST}
)


def asker(trigger: Trigger, name: str) -> str:
    """Return how the cues name whoever asked: as the transcript labels them."""
    return speaker(ChatLine(trigger.detail, "", bot=False, ts=trigger.since), name)


def closing_cue(
    trigger: Trigger,
    name: str,
    can_act: bool,
    say_it_in: str = "",
    call: str = "",
    held: tuple[str, str] | None = None,
) -> str | None:
    """Return what the request's last words ask for: the question again, or a line for a lively moment.

    A small model answers the request's last message, which is the tool blocks: without this it
    describes them ("It looks like there are no blocked tools."), refuses them, or stays silent
    when the room comes alive. The question is quoted like every chat line, so it stays data.
    say_it_in: the words that ask for the asker's language (core/language.py), if any.
    call: the offered call that does what the words ask for, written out (requests.py recognised
    it): the bundled model, asked in Spanish to turn a light off, promised to and called nothing.
    held: the asked-for act a guardrail holds, and why ("raise the lift", "it is cooling down for
    40 s"): with the call only listed as blocked, the bundled model claimed the deed or said
    SKIP, and the asker heard the overseer's stock sentence instead of its voice.
    """
    if trigger.owed:
        return f"The room has not heard you for a while: say one short line to it now.{say_it_in}"
    if trigger.kind in LIVELY:
        return "Say one short line to the room if it makes this moment more interesting; else SKIP."
    if trigger.kind is not TriggerKind.DIRECT_ADDRESS:
        return None
    ask = " (and call a tool if you act)" if can_act else ""
    who = asker(trigger, name)
    # Asked what it thinks ("rate that last lap"), the 1.5B model said "I'm sorry, but I can't
    # assist with that." on both tries; told an opinion is an answer, it mostly gives one.
    opinion = "an answer, an opinion or a verdict"
    answer = f"Answer {who} now, in one short line of your own: {opinion}{ask}."
    if call:
        answer += f" If you do what they ask, call {call}."
    if held:
        deed, why = held
        answer += f" You cannot {deed} now: {why}. Tell them so."
    answer += say_it_in
    question = trigger.question
    return f"{who}: {quote_chat(question, CUE_CHARS)}\n{answer}" if question else answer


@dataclass(frozen=True, slots=True)
class CallTurn:
    """One earlier decision's calls and what came of each, as the transcript shows them at its time."""

    ts: float
    calls: tuple[tuple[str, dict[str, Any]], ...]
    results: tuple[str, ...]


def tool_turn(
    calls: Sequence[tuple[str, dict[str, Any]]], results: Sequence[str], first: int = 0
) -> list[dict[str, Any]]:
    """Return the model's calls and each one's result as messages (seed 000: step 7).

    In the OpenAI shape every provider adapts: the assistant's tool_calls, then one tool message
    per call in the same order, its content the result as JSON. first: the number of the first
    call, so the ids of one request's turns differ.
    """
    # Nine letters and digits: what the strictest OpenAI-compatible servers (Mistral's) accept.
    ids = [f"call{index:05d}" for index in range(first, first + len(calls))]
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
                }
                for call_id, (name, arguments) in zip(ids, calls, strict=True)
            ],
        },
        *(
            {"role": "tool", "tool_call_id": call_id, "content": result}
            for call_id, result in zip(ids, results, strict=True)
        ),
    ]


def system_prompt(template: str, name: str) -> str:
    """Return the user's prompt file with <NAME> filled in, bounded like everything else."""
    return cut(template, SYSTEM_PROMPT_CHARS).replace(NAME_PLACEHOLDER, one_line(name, LABEL_CHARS))


def build_messages(
    template: str,
    name: str,
    room: str,
    transcript: Iterable[ChatLine],
    availability: Availability,
    cue: str | None = None,
    moment: str = "",
    turns: Sequence[CallTurn] = (),
) -> list[dict[str, Any]]:
    """Build the seed's four parts for one decision: system, the room, the chat, then this moment.

    The last message holds all that changes every decision (CONTRACT.md, wave 5): the moment's
    lines (render_moment), the tool blocks, and the cue that closes them. turns: the overseer's
    calls of earlier decisions in the chat's window, with their results.
    """
    available, blocked = render_tool_blocks(availability)
    last = "\n\n".join(part for part in (moment, available, blocked, cue) if part)
    return [
        {"role": "system", "content": system_prompt(template, name)},
        {"role": "user", "content": room},
        *transcript_messages(transcript, name, turns),
        {"role": "user", "content": last},
    ]


@dataclass(frozen=True, slots=True)
class InputSummary:
    """How big one model request was."""

    messages: int
    characters: int
    estimated_tokens: int


def summarise(messages: Sequence[dict[str, Any]]) -> InputSummary:
    """Count messages, characters and a rough token estimate (4 characters a token)."""
    characters = sum(
        len(message["content"]) + (len(json.dumps(message["tool_calls"])) if message.get("tool_calls") else 0)
        for message in messages
    )
    return InputSummary(len(messages), characters, math.ceil(characters / CHARS_PER_TOKEN))
