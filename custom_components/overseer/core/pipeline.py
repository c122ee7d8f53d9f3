"""The invisible orchestrator (seed 003) as plain data: who answers, how good it was, who refines.

A pipeline starts from one human line. Every step is a pure function from the pipeline and
what just happened (a router's answer, a bot's answer, a judge's answer, a timeout) to the next
pipeline; `next_step` says what the shell must do now. The hard limits of the seed live here:
at most max_iterations answers, never the same bot twice in one pipeline (its max_iterations
counts "bots that answer per question"), every pipeline ends, and with one participant no model
is asked. Which human lines start a pipeline at all is decided here too, without a model.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from .gate import AddressMatcher, is_question
from .text import fold, one_line, quote_chat

QUESTION_CHARS = 1000
ANSWER_CHARS = 1500
REASON_CHARS = 200
# A judge's or router's answer longer than this is not an answer.
MAX_MODEL_CHARS = 4000

QUALITY_SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "continue": {"type": "boolean"},
        "reason": {"type": "string", "maxLength": REASON_CHARS},
    },
    "required": ["score", "continue", "reason"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class Participant:
    """A conversation agent taking part, as the person who set it up named and described it."""

    agent_id: str
    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class BotResponse:
    """One bot's answer in a pipeline."""

    agent_id: str
    text: str


@dataclass(frozen=True, slots=True)
class QualityScore:
    """The judge's verdict on the latest answer; valid False when its reply was not one."""

    score: float
    proceed: bool
    reason: str
    valid: bool = True


@dataclass(frozen=True, slots=True)
class TaskEvent:
    """What a bot is asked: the question and the answers before its turn."""

    agent_id: str
    question: str
    iteration: int
    previous: tuple[BotResponse, ...] = ()


class Stage(StrEnum):
    """Where a pipeline is; the contract's event stages are what happened last."""

    ROUTING = "routing"
    ANSWERING = "answering"
    EVALUATING = "evaluating"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class PipelineLimits:
    """The orchestrator's options."""

    max_iterations: int = 3
    quality_threshold: float = 0.8
    delegation_timeout: float = 30.0


@dataclass(frozen=True, slots=True)
class Record:
    """One thing that happened, for the log, the status object and the events."""

    stage: str  # routed, answered, evaluated, timeout, finished
    iteration: int
    bot: str | None = None
    score: float | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Pipeline:
    """One human question on its way through the bots."""

    pipeline_id: str
    question: str
    asker: str
    participants: tuple[Participant, ...]
    limits: PipelineLimits
    stage: Stage = Stage.ROUTING
    # The bot asked now (answering) or last (evaluating).
    current: str | None = None
    answers: tuple[BotResponse, ...] = ()
    scores: tuple[QualityScore, ...] = ()
    # Bots given a task so far, in order (those that timed out included).
    asked: tuple[str, ...] = ()
    timed_out: tuple[str, ...] = ()
    records: tuple[Record, ...] = ()
    finish_reason: str = ""
    # The asker's words were longer than a pipeline holds: the question is their beginning.
    truncated: bool = False

    @property
    def iteration(self) -> int:
        """Tasks handed out so far: a timed-out task counts, so the limit holds whatever happens."""
        return len(self.asked)

    def candidates(self) -> tuple[Participant, ...]:
        """Who may be asked next: a bot not yet asked, so no bot answers one question twice.

        A bot asked already has answered (asked again it would repeat itself), timed out, or
        had nothing to add.
        """
        return tuple(p for p in self.participants if p.agent_id not in self.asked)

    def noted(self, record: Record) -> Pipeline:
        """Return the pipeline with one more record."""
        return replace(self, records=(*self.records, record))


# What the shell must do next.


@dataclass(frozen=True, slots=True)
class AskRouter:
    """One model call: which of these bots answers (refining: the answer so far is given)."""

    candidates: tuple[Participant, ...]
    refining: bool


@dataclass(frozen=True, slots=True)
class Dispatch:
    """Hand the task to one bot and wait at most delegation_timeout."""

    task: TaskEvent


@dataclass(frozen=True, slots=True)
class AskJudge:
    """One model call: how good the latest answer is."""

    question: str
    answer: BotResponse


@dataclass(frozen=True, slots=True)
class Done:
    """Nothing more to do."""

    reason: str


type NextStep = AskRouter | Dispatch | AskJudge | Done


class Audience:
    """Which human lines are for the room's bots, and whom they name, decided without a model call.

    A line is theirs when it names one of them (a whole word, an @mention) or asks something
    (gate.is_question). The crowd's chatter ("go go go") would otherwise cost a routing call
    each and hold a real question in the queue behind it.
    """

    def __init__(self, names: Iterable[str], by_bot: Mapping[str, Iterable[str]] | None = None) -> None:
        """Compile one pattern over every name the bots may be addressed by, and one per bot."""
        self.names = tuple(dict.fromkeys(name for name in names if fold(name)))
        self._matcher = AddressMatcher(self.names[0], self.names[1:]) if self.names else None
        self._bots = {
            agent_id: AddressMatcher(known[0], known[1:])
            for agent_id, called in (by_bot or {}).items()
            if (known := tuple(name for name in called if fold(name)))
        }

    def wants(self, text: str) -> bool:
        """Return True when the line addresses a bot or asks a question."""
        return is_question(text) or (self._matcher is not None and self._matcher.addressed(text))

    def named(self, text: str) -> str | None:
        """Return the one bot the line names, if it names exactly one (None: none, or several)."""
        named = [agent_id for agent_id, matcher in self._bots.items() if matcher.addressed(text)]
        return named[0] if len(named) == 1 else None


def addressed_as(participant: Participant) -> tuple[str, str]:
    """Return what people call a participant: its configured name and its agent's object id (@rover_guide)."""
    return participant.name, participant.agent_id.partition(".")[2]


def start(
    pipeline_id: str,
    question: str,
    asker: str,
    participants: Sequence[Participant],
    limits: PipelineLimits,
    named: str | None = None,
    truncated: bool = False,
) -> Pipeline:
    """Start a new pipeline for a human line, routed without a model when there is no choice to make.

    With a single participant, or a line that names one of them ("overseer, raise the lift"),
    the asker chose already: a routing call would only cost the model's time (and a small
    router handed such lines to the other bot). truncated: the words were cut before (queued).
    """
    words, cut_now = bounded_question(question)
    pipeline = Pipeline(
        pipeline_id,
        words,
        one_line(asker, 64),
        tuple(participants),
        limits,
        truncated=truncated or cut_now,
    )
    if not pipeline.participants:
        return finish(pipeline, "no_participants")
    if len(pipeline.participants) == 1:
        return _route_to(pipeline, pipeline.participants[0].agent_id, "single participant")
    if named is not None and any(p.agent_id == named for p in pipeline.participants):
        return _route_to(pipeline, named, "named by the asker")
    return pipeline


def next_step(pipeline: Pipeline) -> NextStep:
    """Return what the shell does now."""
    if pipeline.stage is Stage.FINISHED:
        return Done(pipeline.finish_reason)
    if pipeline.stage is Stage.ANSWERING and pipeline.current is not None:
        return Dispatch(TaskEvent(pipeline.current, pipeline.question, pipeline.iteration, pipeline.answers))
    if pipeline.stage is Stage.EVALUATING:
        return AskJudge(pipeline.question, pipeline.answers[-1])
    return AskRouter(pipeline.candidates(), refining=bool(pipeline.answers))


def routed(pipeline: Pipeline, reply: str) -> Pipeline:
    """Handle the router naming a bot: the first candidate id (or name) it mentions, else a fixed fallback.

    The fallback is the first candidate in the participants' order, recorded as such; a reply
    naming someone who may not be asked now (a bot already asked, a stranger) is no choice.
    """
    if pipeline.stage is not Stage.ROUTING:
        return pipeline  # a late reply: the pipeline has moved on
    candidates = pipeline.candidates()
    if not candidates:
        return finish(pipeline, "no_candidates")
    chosen = choose(reply, candidates)
    if chosen is None:
        return _route_to(pipeline, candidates[0].agent_id, "fallback: the router named no candidate")
    return _route_to(pipeline, chosen, None)


def choose(reply: str, candidates: Sequence[Participant]) -> str | None:
    """Return the candidate a router's reply names: exactly one, by id or name, as whole words.

    Longer names are read first and taken out, so "Home control" is not also "Home"; a full
    stop after the name is the end of a sentence, not part of an id.
    """
    text = reply[:MAX_MODEL_CHARS].strip().lower()
    words = sorted(
        ((word.lower(), p.agent_id) for p in candidates for word in (p.agent_id, p.name) if word.strip()),
        key=lambda item: -len(item[0]),
    )
    named = set()
    for word, agent_id in words:
        pattern = re.compile(rf"(?<![\w.]){re.escape(word)}(?!\.?\w)")
        if pattern.search(text):
            named.add(agent_id)
            text = pattern.sub(" ", text)
    return named.pop() if len(named) == 1 else None


def _route_to(pipeline: Pipeline, agent_id: str, note: str | None) -> Pipeline:
    routed_pipeline = replace(
        pipeline, stage=Stage.ANSWERING, current=agent_id, asked=(*pipeline.asked, agent_id)
    )
    return routed_pipeline.noted(Record("routed", routed_pipeline.iteration, agent_id, reason=note))


def answered(pipeline: Pipeline, agent_id: str, text: str) -> Pipeline:
    """Take the answer of the bot asked (anyone else's text is not this pipeline's answer)."""
    if pipeline.stage is not Stage.ANSWERING or agent_id != pipeline.current:
        return pipeline
    answer = BotResponse(agent_id, one_line(text, ANSWER_CHARS))
    if not answer.text:
        return timed_out(pipeline, agent_id, "empty answer")
    after = replace(pipeline, stage=Stage.EVALUATING, answers=(*pipeline.answers, answer))
    after = after.noted(Record("answered", after.iteration, agent_id))
    # No judge when nothing may follow: it would cost a model call and change nothing.
    if after.iteration >= after.limits.max_iterations:
        return finish(after, "max_iterations")
    if not after.candidates():
        return finish(after, "no_candidates")
    return after


def timed_out(pipeline: Pipeline, agent_id: str, reason: str = "no answer in time") -> Pipeline:
    """Handle the bot asked not answering: someone else is asked, or the pipeline ends."""
    if pipeline.stage is not Stage.ANSWERING or agent_id != pipeline.current:
        return pipeline
    after = replace(pipeline, stage=Stage.ROUTING, current=None, timed_out=(*pipeline.timed_out, agent_id))
    after = after.noted(Record("timeout", after.iteration, agent_id, reason=reason))
    if after.iteration >= after.limits.max_iterations:
        return finish(after, "max_iterations")
    if not after.candidates():
        return finish(after, "no_candidates")
    if len(after.candidates()) == 1:
        return _route_to(after, after.candidates()[0].agent_id, "the only one left")
    return after


def evaluated(pipeline: Pipeline, reply: str) -> Pipeline:
    """Take the judge's reply: stop at the threshold, when it says stop or at the limit; else refine."""
    if pipeline.stage is not Stage.EVALUATING:
        return pipeline
    score = parse_quality(reply)
    after = replace(pipeline, scores=(*pipeline.scores, score))
    bot = pipeline.answers[-1].agent_id
    after = after.noted(Record("evaluated", after.iteration, bot, score.score, score.reason))
    if score.score >= pipeline.limits.quality_threshold:
        return finish(after, "threshold")
    if not score.proceed:
        return finish(after, "judge_stopped")
    # Room for another answer and someone to give it: answered() made sure of both.
    refine = replace(after, stage=Stage.ROUTING, current=None)
    candidates = refine.candidates()
    if len(candidates) == 1:
        return _route_to(refine, candidates[0].agent_id, "the only other participant")
    return refine


def finish(pipeline: Pipeline, reason: str) -> Pipeline:
    """End the pipeline: recorded once."""
    if pipeline.stage is Stage.FINISHED:
        return pipeline
    done = replace(pipeline, stage=Stage.FINISHED, current=None, finish_reason=reason)
    return done.noted(Record("finished", done.iteration, reason=reason))


def parse_quality(reply: str) -> QualityScore:
    """Parse the judge's JSON, strictly: anything else is a score of 0 that may continue, recorded."""
    try:
        if len(reply) > MAX_MODEL_CHARS:
            raise ValueError("too long")
        data = json.loads(reply.strip())
        if not isinstance(data, dict) or set(data) != {"score", "continue", "reason"}:
            raise ValueError("not exactly score, continue and reason")
        score, proceed, reason = data["score"], data["continue"], data["reason"]
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise ValueError("score is not a number")
        if not 0 <= score <= 1:
            raise ValueError("score outside 0..1")
        if not isinstance(proceed, bool) or not isinstance(reason, str):
            raise ValueError("continue is not a boolean or reason not a string")
    except (ValueError, TypeError, OverflowError) as err:  # OverflowError: a 400-digit "score"
        return QualityScore(0.0, True, one_line(f"invalid evaluation: {err}", REASON_CHARS), valid=False)
    return QualityScore(float(score), proceed, one_line(reason, REASON_CHARS))


def task_text(task: TaskEvent, asker: str) -> str:
    """Return what a bot is told: the question and, quoted as data, the answers before it."""
    lines = [f"{asker} asks: {task.question}"]
    for answer in task.previous:
        lines.append(f"An earlier answer ({answer.agent_id}): {quote_chat(answer.text, ANSWER_CHARS)}")
    if task.previous:
        lines.append("Give a better, complete answer to the question.")
    return "\n".join(lines)


def bounded_question(text: str) -> tuple[str, bool]:
    """Return a question as a pipeline holds it, one line and bounded, and whether it was cut."""
    words = one_line(text, QUESTION_CHARS)
    return words, words != one_line(text, len(text))


@dataclass(frozen=True, slots=True)
class Waiting[T]:
    """One identity's words waiting for a pipeline, with whoever asked them (the shell's asker)."""

    asker: T
    identity: str
    text: str
    truncated: bool = False


@dataclass(slots=True)
class Queue[T]:
    """Human lines waiting while a pipeline runs: one entry per identity, bounded, in arrival order.

    Someone who speaks again while waiting has the words folded into their own entry, the newest
    kept; nobody's words fold into, rewrite or push out another's. Past size identities waiting,
    or per_source of one source, a newcomer is not queued (their line stays in the chat) rather
    than take anyone's place.
    """

    size: int = 5
    lines: list[Waiting[T]] = field(default_factory=list)
    # Lines not queued because size others were waiting already, or their source's share.
    turned_away: int = 0
    # Places one source may hold: a relay speaking under many names (automation.x|alex,
    # automation.x|bob, …) would otherwise fill the queue and turn the household away.
    per_source: int = 2

    def push(self, asker: T, identity: str, text: str) -> bool:
        """Queue a line under its identity; False when others fill the queue (nothing changes)."""
        words, truncated = bounded_question(text)
        for index, waiting in enumerate(self.lines):
            if waiting.identity == identity:
                folded = f"{waiting.text} / {words}"
                self.lines[index] = Waiting(
                    asker,
                    identity,
                    folded[-QUESTION_CHARS:],
                    waiting.truncated or truncated or len(folded) > QUESTION_CHARS,
                )
                return True
        source = _source(identity)
        if (
            len(self.lines) >= self.size
            or sum(_source(w.identity) == source for w in self.lines) >= self.per_source
        ):
            self.turned_away += 1
            return False
        self.lines.append(Waiting(asker, identity, words, truncated))
        return True

    def pop(self) -> Waiting[T] | None:
        """Pop the next line to start a pipeline with."""
        return self.lines.pop(0) if self.lines else None


def _source(identity: str) -> str:
    """Return where an identity's lines come from: a user, or a relay whatever name it speaks under."""
    return identity.partition("|")[0]


# The routing and refinement prompts list the candidates where they say <PARTICIPANTS>.
PARTICIPANTS_PLACEHOLDER = "<PARTICIPANTS>"


def listing(candidates: Sequence[Participant]) -> str:
    """List the candidates as the router reads them: id, name and what each is good at."""
    return "\n".join(f"- {p.agent_id}: {p.name}. {p.description}".rstrip() for p in candidates)


def routing_messages(prompt: str, pipeline: Pipeline, step: AskRouter) -> list[dict[str, str]]:
    """Make the router's request: its prompt (routing's, or refinement's) and the question, quoted as data."""
    system = prompt.replace(PARTICIPANTS_PLACEHOLDER, listing(step.candidates))
    user = f"Question: {quote_chat(pipeline.question, 1000)}"
    if step.refining:
        last = pipeline.answers[-1]
        user += f"\nCurrent answer ({last.agent_id}): {quote_chat(last.text, 1500)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def router_schema(step: AskRouter) -> dict[str, object]:
    """Hold the router's reply to the candidates' ids where the backend can (Ollama, llama.cpp)."""
    return {
        "type": "object",
        "properties": {"agent_id": {"type": "string", "enum": [p.agent_id for p in step.candidates]}},
        "required": ["agent_id"],
        "additionalProperties": False,
    }


def judge_messages(prompt: str, step: AskJudge) -> list[dict[str, str]]:
    """Return the judge's request: its prompt, the question and the answer, quoted as data."""
    user = (
        f"Question: {quote_chat(step.question, 1000)}\n"
        f"Answer of {step.answer.agent_id}: {quote_chat(step.answer.text, 1500)}"
    )
    return [{"role": "system", "content": prompt}, {"role": "user", "content": user}]


def progress(pipeline: Pipeline | None, names: Mapping[str, str]) -> str:
    """Return what the pipeline sensor says: [2/3] helper answered · evaluating, or idle."""
    if pipeline is None:
        return "idle"
    where = f"[{max(pipeline.iteration, 1)}/{pipeline.limits.max_iterations}]"
    if pipeline.stage is Stage.ROUTING:
        return f"{where} routing"
    if pipeline.stage is Stage.ANSWERING and pipeline.current:
        return f"{where} asking {names.get(pipeline.current, pipeline.current)}"
    if pipeline.stage is Stage.EVALUATING:
        last = pipeline.answers[-1].agent_id
        return f"{where} {names.get(last, last)} answered · evaluating"
    return f"{where} finished"
