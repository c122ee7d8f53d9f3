"""The invisible orchestrator of a room (seed 003): routes a human line to one bot, judges, refines.

It has no identity of its own: it never speaks, it never answers. A human line in its room
that names a bot or asks something starts a pipeline (one at a time; later lines wait in a
bounded queue); other lines are counted and left to the people. The pure core
(core/pipeline.py) says what to do next, this shell does it: one model call to route,
the task to the bot through Home Assistant's conversation agents, the bot's answer on the
chat bus as that bot, one model call to judge. Overseers taking part start no decision from
human chat by themselves (roster.py): they answer when the orchestrator asks them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import CALLBACK_TYPE, Context, Event, HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.util import dt as dt_util
from homeassistant.util.ulid import ulid_now

from .chat import parse_chat_event
from .compat import async_converse
from .const import EVENT_CHAT_MESSAGE, LOGGER, status_signal
from .core.acts import Act, Device
from .core.language import base_language, language_of
from .core.pipeline import (
    QUALITY_SCHEMA,
    AskJudge,
    AskRouter,
    Audience,
    Dispatch,
    Done,
    Pipeline,
    Queue,
    Waiting,
    addressed_as,
    answered,
    bounded_question,
    evaluated,
    judge_messages,
    next_step,
    progress,
    routed,
    router_schema,
    routing_messages,
    start,
    task_text,
    timed_out,
)
from .core.requests import Recogniser, asked_deeds, named_devices
from .core.text import fold
from .events import fire_chat_message, fire_pipeline
from .identity import chat_identity, line_user
from .providers import ModelError, Provider
from .roster import (
    Asker,
    agent_names,
    asked_for,
    asked_through_assist,
    is_overseer_agent,
    note_answering,
    note_dispatch,
    register_room,
)
from .settings import OrchestratorSettings, Settings

KEEP_PIPELINES = 10
ORCHESTRATOR_PROMPTS = ("routing.md", "quality.md", "refinement.md")


@dataclass
class Run:
    """A pipeline with its timings, for the sensor, the status object and diagnostics."""

    pipeline: Pipeline
    started: float
    # Whose question it is: the overseer asked binds an approval or a grant to them.
    asker: Asker
    finished: float | None = None
    model_seconds: float = 0.0
    bot_seconds: float = 0.0
    told: int = 0
    calls: int = 0
    ended_at: str | None = None

    @property
    def overhead_ms(self) -> float | None:
        """The orchestrator's own time: all of it but the model's and the bots'."""
        if self.finished is None:
            return None
        return round((self.finished - self.started - self.model_seconds - self.bot_seconds) * 1000, 2)


@functools.lru_cache(maxsize=16)
def _audience(names: tuple[tuple[str, tuple[str, ...]], ...]) -> Audience:
    """One compiled Audience per set of names: a room's names change only when an agent is renamed."""
    return Audience((name for _, called in names for name in called), dict(names))


class Orchestrator:
    """One room's orchestrator."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry: ConfigEntry,
        settings: Settings,
        provider: Provider,
        prompts: Mapping[str, str],
        recognisers: Mapping[str, Recogniser],
        devices: Callable[[], Sequence[Device]],
        relay_user: str,
    ) -> None:
        """Read the participants and limits from the entry's options.

        recognisers: Home Assistant's sentences by language, to hear an order with no question
        in it; devices: the room's devices now (its overseer's), the names those orders use;
        relay_user: the user a bot acts as for a line no user of the house stands behind.
        """
        self.hass = hass
        self.entry = entry
        self.settings = settings
        own = OrchestratorSettings.from_options(entry.options)
        self.participants = own.participants
        self.limits = own.limits
        self._provider = provider
        self._prompts = prompts
        self._recognisers = recognisers
        self._devices = devices
        self._relay_user = relay_user
        self.current: Run | None = None
        self.recent: deque[Run] = deque(maxlen=KEEP_PIPELINES)
        self.queue: Queue[Asker] = Queue()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: list[CALLBACK_TYPE] = []
        self._names = {p.agent_id: p.name for p in self.participants}
        # Human lines that were for no bot (neither named one nor asked anything): no pipeline.
        self.ignored = 0

    @callback
    def async_start(self) -> None:
        """Listen to the room's chat and tell overseers taking part that the room is orchestrated."""
        self._unsubscribe = [
            self.hass.bus.async_listen(EVENT_CHAT_MESSAGE, self._on_chat),
            register_room(self.hass, self.settings.room, frozenset(self._names)),
        ]

    async def async_stop(self) -> None:
        """Stop listening; a pipeline under way ends here."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    @callback
    def _on_chat(self, event: Event) -> None:
        chat = parse_chat_event(event.data)
        if chat is None or chat.bot or (chat.room is not None and fold(chat.room) != self.settings.room):
            return
        if asked_for(self.hass, event.context) is not None or asked_through_assist(self.hass, event.context):
            # Its own task's line, or a question an overseer answers from Assist: answered once.
            return
        if not self._for_the_bots(chat.text):
            self.ignored += 1
            self._notify()
            return
        asker = Asker(
            chat.user,
            chat_identity(self.hass, event.context, chat.user),
            user_id=line_user(self.hass, event.context, chat.user),
        )
        if self._task is not None and not self._task.done():
            # Each identity waits with its own words; a full queue takes nobody's place.
            self.queue.push(asker, asker.identity, chat.text)
            self._notify()
            return
        words, truncated = bounded_question(chat.text)
        self._task = self.entry.async_create_background_task(
            self.hass,
            self._async_run_queue(Waiting(asker, asker.identity, words, truncated)),
            f"overseer pipeline {self.entry.title}",
        )

    def _for_the_bots(self, text: str) -> bool:
        """Whether a human line names a bot, asks something, or orders something of the room's devices.

        An order is what Home Assistant's own sentences read as one ("raise the lift", "baja el
        ascensor"), in the line's language: the same recognition the room's overseer answers by.
        """
        audience = self._audience()
        if audience.wants(text):
            return True
        devices = self._devices()
        # An order names its device: Home Assistant's sentences cost hundreds of milliseconds a
        # line on older releases, and the crowd's chatter names none.
        if not named_devices(text, devices):
            return False
        language = language_of(text, self.settings.language or self.hass.config.language)
        recogniser = self._recognisers.get(base_language(language))
        if recogniser is None:
            return False
        deeds = asked_deeds(text, devices, recogniser, audience.names)
        return any(deed.act is not Act.ANY for deed in deeds)

    def _audience(self) -> Audience:
        """Return the bots by every name people call them: as configured here, and as the agent is known.

        An overseer taking part as "Marshal" still hears "overseer, raise the lift" (roster.agent_names).
        """
        names = [
            (
                participant.agent_id,
                (*addressed_as(participant), *agent_names(self.hass, participant.agent_id)),
            )
            for participant in self.participants
        ]
        return _audience(tuple(names))

    async def _async_run_queue(self, first: Waiting[Asker]) -> None:
        """One pipeline, then the lines that came meanwhile, one pipeline each."""
        line: Waiting[Asker] | None = first
        # Meanwhile the room's overseer keeps its own moments back: one model, questions first.
        note_answering(self.hass, self.settings.room, True)
        try:
            while line is not None:
                try:
                    await self._async_run(line)
                except asyncio.CancelledError:
                    raise
                except Exception:  # a bug must not stop the room's orchestration
                    LOGGER.exception("Pipeline failed unexpectedly")
                line = self.queue.pop()
        finally:
            note_answering(self.hass, self.settings.room, False)

    async def _async_run(self, line: Waiting[Asker]) -> None:
        asker = line.asker
        named = self._audience().named(line.text)
        run = Run(
            start(ulid_now(), line.text, asker.name, self.participants, self.limits, named, line.truncated),
            time.monotonic(),
            asker,
        )
        self.current = run
        self._tell(run)
        while not isinstance(step := next_step(run.pipeline), Done):
            if isinstance(step, AskRouter):
                prompt = self._prompts["refinement.md" if step.refining else "routing.md"]
                reply = await self._async_ask_model(
                    run, routing_messages(prompt, run.pipeline, step), router_schema(step)
                )
                run.pipeline = routed(run.pipeline, reply)
            elif isinstance(step, Dispatch):
                run.pipeline = await self._async_dispatch(run, step)
            elif isinstance(step, AskJudge):
                reply = await self._async_ask_model(
                    run, judge_messages(self._prompts["quality.md"], step), QUALITY_SCHEMA
                )
                run.pipeline = evaluated(run.pipeline, reply)
            self._tell(run)
        run.finished = time.monotonic()
        run.ended_at = dt_util.utcnow().isoformat()
        self.recent.appendleft(run)
        self.current = None
        self._tell(run)

    async def _async_ask_model(self, run: Run, messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
        """One model call; a failure is an empty reply (the core falls back and records why)."""
        began = time.monotonic()
        run.calls += 1
        try:
            async with asyncio.timeout(self.settings.request_timeout):
                return await self._provider.async_reason(messages, schema)
        except (ModelError, TimeoutError) as err:
            LOGGER.warning("Orchestrator model call failed: %s", err)
            return ""
        finally:
            run.model_seconds += time.monotonic() - began

    async def _async_dispatch(self, run: Run, step: Dispatch) -> Pipeline:
        """Give the task to the bot, at most delegation_timeout; its answer on the chat bus as that bot."""
        task = step.task
        # The bot acts for the asker, as them: their user's authority, or the relay user's (none to
        # loosen anything) for a line no user of the house stands behind. Whatever the task puts
        # on the bus under this context starts no pipeline.
        context = Context(user_id=run.asker.user_id or self._relay_user)
        note_dispatch(
            self.hass,
            context,
            replace(run.asker, question=run.pipeline.question, pipeline_id=run.pipeline.pipeline_id),
        )
        began = time.monotonic()
        try:
            async with asyncio.timeout(self.limits.delegation_timeout):
                result = await async_converse(
                    self.hass,
                    text=task_text(task, run.pipeline.asker),
                    agent_id=task.agent_id,
                    context=context,
                )
            speech = str(result.response.speech.get("plain", {}).get("speech", ""))
        except TimeoutError:
            return timed_out(run.pipeline, task.agent_id)
        except Exception as err:  # an agent that fails is a bot that did not answer
            LOGGER.warning("Participant %s failed: %s", task.agent_id, err)
            return timed_out(run.pipeline, task.agent_id, f"{type(err).__name__}")
        finally:
            run.bot_seconds += time.monotonic() - began
        pipeline = answered(run.pipeline, task.agent_id, speech)
        if pipeline.answers != run.pipeline.answers and not is_overseer_agent(self.hass, task.agent_id):
            # An overseer posts its own line; any other bot's answer appears once, as that bot.
            fire_chat_message(
                self.hass,
                room=self.settings.room,
                user=self._names[task.agent_id],
                text=pipeline.answers[-1].text,
                bot=True,
                pipeline_id=pipeline.pipeline_id,
            )
        return pipeline

    def _tell(self, run: Run) -> None:
        """Every record not yet told is an overseer_pipeline event; the sensor and card follow."""
        for record in run.pipeline.records[run.told :]:
            fire_pipeline(self.hass, run.pipeline.pipeline_id, record)
        run.told = len(run.pipeline.records)
        self._notify()

    @callback
    def _notify(self) -> None:
        async_dispatcher_send(self.hass, status_signal(self.entry.entry_id))

    def progress(self) -> str:
        """Return the pipeline sensor: [2/3] helper answered · evaluating."""
        return progress(self.current.pipeline if self.current else None, self._names)
