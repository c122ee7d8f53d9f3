"""The line layer: the rules a model's line passes before it is posted, one table entry each.

Each rule says what it drops, how it tells, which languages it holds for, and shows lines it
keeps and lines it drops. The tests run every example through the normaliser, and the real-model
fuzz judges by the examples rather than by copies of the rules: a rule without examples is none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import Enum, StrEnum, auto
from types import MappingProxyType

from .context import AVAILABLE_TOOLS, BLOCKED_TOOLS, PROMPT_SECTIONS
from .language import opens_a_question
from .text import BOT_TAG, HUMAN_TAG, fold, without_addressee
from .tools import TOOLS

# Shorter lines of the cue's words ("Your call.") may well be meant.
CUE_ECHO_WORDS = 3


class Note(StrEnum):
    """What a decision notes about its line and its calls; the status shows them as they are."""

    CHAT_CUT = "chat_cut"
    # An eager opener ("Certainly!", "¡Por supuesto!") cut from the front of the line.
    OPENER_CUT = "opener_cut"
    # An apology cut from the front of a refusal that says more ("I'm sorry, but I can't…").
    APOLOGY_CUT = "apology_cut"
    REPEAT_DROPPED = "repeat_dropped"
    JSON_TEXT_DROPPED = "json_text_dropped"
    CALLS_IGNORED = "calls_ignored"
    CHAT_SALVAGED = "chat_salvaged"
    TOOL_TEXT_DROPPED = "tool_text_dropped"
    STOCK_REFUSAL_DROPPED = "stock_refusal_dropped"
    # A help desk's greeting and offer as the whole line ("How can I assist you today?").
    HELP_DESK_DROPPED = "help_desk_dropped"
    # A help desk's offer cut from the line ("The lift is up. Feel free to ask!").
    HELP_OFFER_CUT = "help_offer_cut"
    # A line of someone's the overseer read, said back ("jo: go go go" after jo said it).
    CHAT_SAID_BACK = "chat_said_back"
    # A line written as another bot's (or as a person's named as the overseer) in the transcript.
    ANOTHERS_LINE_DROPPED = "anothers_line_dropped"
    QUESTION_SAID_BACK = "question_said_back"
    CUE_SAID_BACK = "cue_said_back"
    # What a call's result reported, said back as the line ("Shelf: off").
    RESULT_SAID_BACK = "result_said_back"
    # Someone asked and it gave no line, or one in another language: asked once more for its line.
    LINE_ASKED_FOR = "line_asked_for"


class Source(StrEnum):
    """What the overseer was shown that its line may be no more than a copy of."""

    # Its own last lines (the seed's anti-repeat context).
    OWN_LINES = "own_lines"
    # The lines people said that it read ("go go go", said back as "jo: go go go").
    CHAT_READ = "chat_read"
    # The lines other bots said that it read ("Rover 3 is on its dock, charging.", the Rover guide's).
    BOTS_READ = "bots_read"
    # The words that addressed it, when someone did.
    QUESTION = "question"
    # What the request's last words asked for.
    CUE = "cue"
    # The states its calls' results reported ("Shelf: off").
    RESULTS = "results"


class Likeness(Enum):
    """How a line is held against a source's text to call it a copy."""

    # Character by character, whom either is for aside: at least the repeat threshold alike.
    CLOSE = auto()
    # Word by word, whom the line is for aside: its words in the text's order, and more than half
    # of the text's ("The vacuum is running." answers "is the vacuum running?", "Blue." answers
    # "red or blue?").
    IN_ORDER = auto()
    # Word by word: CUE_ECHO_WORDS words or more, every one of them a word of one sentence of the
    # text. "The room shows Neato: docked." says a fact it was told back; "Neato is docked." says it
    # as an answer would, with a word of another sentence ("that is not so").
    WORDS_OF = auto()
    # CLOSE to the whole text, or to one of its sentences or colon-led parts of CUE_ECHO_WORDS words
    # or more: "Rover 3 is on its dock, charging." copies the Rover guide's "To add what the track
    # shows: Rover 3 is on its dock, charging." (scripts/develop posted it a minute after).
    CLOSE_TO_A_PART = auto()


@dataclass(frozen=True, slots=True)
class LineContext:
    """What a line is read against: the sources it must not only copy, and what it came from.

    repeat_threshold: how alike a line and a source's text must be at least to be one line.
    written: the text the line came from.
    """

    sources: Mapping[Source, tuple[str, ...]] = MappingProxyType({})
    repeat_threshold: float = 1.0
    written: str = ""


@dataclass(frozen=True, slots=True)
class Echo:
    """The test that a line only says back a text of one source, held against it by one likeness.

    statement_answers: a statement (no question mark, no question word first) in a question's
    words answers it rather than saying it back: Spanish asks yes or no in the answer's own
    order ("¿la luz del banco está encendida?": "La luz del banco está encendida.").
    """

    source: Source
    likeness: Likeness
    statement_answers: bool = False

    def __call__(self, line: str, seen: LineContext) -> bool:
        """Return whether the line is a copy of one of the source's texts."""
        texts = seen.sources.get(self.source, ())
        asks = "?" in line or "¿" in line or opens_a_question(without_addressee(line))
        if self.statement_answers and not asks:
            texts = tuple(text for text in texts if "?" not in text)
        return echoes(line, texts, self.likeness, seen.repeat_threshold)


@dataclass(frozen=True, slots=True)
class LineRule:
    """One rule of the line layer, with lines it keeps and lines it drops.

    note: what the decision notes when the rule drops its line (None: the model said nothing,
    which is no drop to note). drops: what it drops, in words. languages: those whose lines it
    can drop (None: any). after: what an echo's examples are said after: the source's text.
    """

    note: Note | None
    drops: str
    test: Callable[[str, LineContext], bool]
    languages: frozenset[str] | None
    keeps: tuple[str, ...]
    drops_examples: tuple[str, ...]
    after: str = ""

    @property
    def source(self) -> Source | None:
        """Return the source an echo holds the line against; None for a rule of the line alone."""
        return self.test.source if isinstance(self.test, Echo) else None


def echoes(line: str, texts: Iterable[str], likeness: Likeness, threshold: float) -> bool:
    """Return whether the line only says back one of the texts, held against each by likeness.

    threshold: how alike a line and a text must be at least, for Likeness.CLOSE, to be one line.
    """
    return any(_echo(line, text, likeness, threshold) for text in texts)


def _echo(line: str, text: str, likeness: Likeness, threshold: float) -> bool:
    """Return whether the line only says the text back."""
    match likeness:
        case Likeness.CLOSE:
            said, told = fold(without_addressee(line)), fold(without_addressee(text))
            if not told or said == told:
                return bool(told)
            # Texts of lengths this far apart cannot be alike enough, so long chat lines cost little.
            if 2 * min(len(said), len(told)) < threshold * (len(said) + len(told)):
                return False
            return SequenceMatcher(None, said, told).ratio() >= threshold and not _says_otherwise(said, told)
        case Likeness.CLOSE_TO_A_PART:
            parts = _PARTS.split(without_addressee(text), maxsplit=MOST_PARTS)[:MOST_PARTS]
            return _echo(line, text, Likeness.CLOSE, threshold) or any(
                _echo(line, part, Likeness.CLOSE, threshold)
                for part in parts
                if part != text and len(_words(part)) >= CUE_ECHO_WORDS
            )
        case Likeness.IN_ORDER:
            words, told_words = _words(without_addressee(line)), _words(text)
            in_order = iter(told_words)
            return len(words) > len(told_words) / 2 and all(word in in_order for word in words)
        case Likeness.WORDS_OF:
            words = _words(line)
            return len(words) >= CUE_ECHO_WORDS and any(
                all(word in known for word in words)
                for sentence in _SENTENCES.split(text)
                if (known := frozenset(_words(sentence)))
            )


_WORDS = re.compile(r"[\w']+")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+")
_PARTS = re.compile(r"(?<=[.!?;:])\s+")
# The parts of one text a line is held against, at most: a bot's line has a few, and a flood of
# sentences costs no more than these.
MOST_PARTS = 12
# How alike two words are at least to be one word said another way ("stays", "staying").
WORD_LIKENESS = 0.6


def _says_otherwise(said: str, told: str) -> bool:
    """Return whether a close line puts an unlike word where the text had one: news, not a copy.

    "The lift is down." after "The lift is up.", "Rover 2 docks." after "Rover 1 docks.": a
    character's likeness calls them one line, yet each tells what the other does not.
    """
    ours, theirs = set(_words(said)), set(_words(told))
    added, dropped = ours - theirs, theirs - ours

    def unlike(word: str, others: set[str]) -> bool:
        return all(SequenceMatcher(None, word, other).ratio() < WORD_LIKENESS for other in others)

    return any(unlike(word, dropped) for word in added) and any(unlike(word, added) for word in dropped)


def _words(text: str) -> list[str]:
    """Return the text's words as a reader compares them."""
    return _WORDS.findall(fold(text))


# A call's JSON or tag left in a line (cut off, or named inside a sentence).
_CALL_JSON = re.compile(r'<tool_call>|\{\s*"name"\s*:[^{}]*"(?:arguments|parameters)"', re.IGNORECASE)


def _is_json(text: str) -> bool:
    """Return True for a JSON document, including one nested too deep or cut off before its end.

    Python 3.13's parser gives up on deep nesting (RecursionError) while 3.14's reads on until
    the input runs out: either way it is a document, not words.
    """
    try:
        json.loads(text)
    except RecursionError:
        return True
    except json.JSONDecodeError as err:
        return err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string")
    except ValueError:
        return False
    return True


def _written_as_call(line: str, seen: LineContext) -> bool:
    """Return whether the text the line came from is a call or a JSON document, whole or cut off."""
    text = seen.written
    return (text.startswith(("{", "[")) and _is_json(text)) or _CALL_JSON.search(text) is not None


_SKIP_WORDS = frozenset(
    {"skip", "(skip)", "[skip]", "<skip>", "skip.", "skipped", "mode: skip", "none", "n/a"}
)


def _says_skip(line: str, seen: LineContext) -> bool:
    """Return whether the line is the contract's SKIP, however a model spells it."""
    return fold(line) in _SKIP_WORDS


# A chat assistant's stock refusal, perhaps after whom it is for ("alex:" or "Sam,"), or its
# apology for anything (said while the lift was free).
_STOCK_REFUSAL = re.compile(
    r"(?:[^:,]{1,32}[:,]\s*)?(?:i'?m\s+|i am\s+|i\s+)?(?:so\s+|very\s+)?(?:sorry|apologi[sz]e)\b"
    r"(?:.{0,40}?\b(?:can ?not|can'?t|unable to|not able to)\s+(?:assist|help)(?: you)?"
    r"(?: with (?:that|this)[^.!]*)?"
    # The apology comes straight before "I can't": a reason or a name between them is in character,
    # and so is a reason after it ("…: the lift is cooling down.", "… because …").
    r"|,?\s+(?:but\s+)?i\s+(?:can ?not|can'?t|am unable to|am not able to)\s+"
    r"(?:(?!because\b)[^.!?:;,]){1,60}?(?:\s(?:right now|at the moment|at this time))?)[.!]?"
    # An assistant's sign-off after it: "Please try again (later)." (an offer is cut before this reads).
    r"(?:\s+please try again(?: later)?[.!]?)?",
    re.IGNORECASE,
)


# The same in Spanish: an apology and a refusal with no reason, as the whole line.
_STOCK_REFUSAL_ES = re.compile(
    r"(?:[^:,]{1,32}[:,]\s*)?(?:¡)?lo siento(?: mucho)?[,.!]?\s+(?:pero\s+)?no (?:puedo|me es posible)\s+"
    r"(?:(?!porque\b)[^.!?:;,]){1,60}[.!]?",
    re.IGNORECASE,
)
# A help desk's refusal to help, anywhere in a line: "I don't know what kim bet, but I can't help
# with that." (a held-out draw of the demo check) says nothing the keeper would.
_NO_HELP = re.compile(
    r"\bi (?:can ?not|can'?t|am unable to|'m unable to|am not able to) (?:assist|help)(?: you)?"
    r" with (?:that|this)\b"
    r"|\bno (?:te |le |os |les )?(?:puedo|podemos) ayudar(?:te|le|os|les)? con (?:eso|esto)\b",
    re.IGNORECASE,
)


def _stock_refusal(line: str, seen: LineContext) -> bool:
    """Return whether the line is a stock refusal or apology, whole, or refuses to help anywhere in it."""
    said = line.replace("\u2019", "'")
    return (
        _STOCK_REFUSAL.fullmatch(said) is not None
        or _STOCK_REFUSAL_ES.fullmatch(said) is not None
        or _NO_HELP.search(said) is not None
    )


# A help desk's offer, perhaps after a greeting or whom it is for: it answers nothing, in no voice.
# ("Anything else I can help you with?" is a standing offer, cut before the rules read the line.)
_HELP_DESK = re.compile(
    r"(?:[^:,!¡]{1,32}[:,]\s*)?(?:¡?(?:hi|hello|hey|hola|buenas)(?:\s+\w+)?[!,.]?\s*)?"
    r"(?:how (?:can|may) i (?:help|assist)(?: you)?(?: today)?"
    r"|what can i do for you(?: today)?"
    r"|¿?(?:en qué|cómo) (?:te |le )?puedo ayudar(?:te|le)?(?: hoy)?)[?!.]*",
    re.IGNORECASE,
)


# A help desk's bare yes: "¡Claro!" was a whole answer to "arranca la aspiradora" (a held-out draw
# of the demo check) while the vacuum started. It says nothing of what was done; asked again, the
# model says it, or the overseer's own account does.
_BARE_YES = re.compile(
    r"(?:[^:,!¡]{1,32}[:,]\s*)?¡?(?:sure(?: thing)?|certainly|absolutely|of course|ok(?:ay)?|got it"
    r"|claro(?: que s[ií])?|por supuesto|desde luego|vale|de acuerdo|entendido)[!.]*",
    re.IGNORECASE,
)


def _help_desk(line: str, seen: LineContext) -> bool:
    """Return whether the whole line is a help desk's greeting and offer, or its bare yes."""
    said = line.strip()
    return _HELP_DESK.fullmatch(said) is not None or _BARE_YES.fullmatch(said) is not None


# A help desk's standing offer in a sentence: "I'm bored, but I'm here to help." (a held-out draw
# of the demo check), "Feel free to ask!". Its service words only: "Feel free to beg.", "Let me
# know if you dare.", "I'm happy to help you fall." and "Happy to help? Never." are the keeper's.
_HELP_OFFER = re.compile(
    r"\b(?:here|ready|happy|glad) to (?:help|assist)(?: you)?(?:\s+(?:with|if|in)\b[^.!?]*)?(?=[^\w?]*$)"
    r"|\bfeel free to (?:ask|reach out|let me know|contact|come back)\b"
    r"|\b(?:let me know|just ask) if (?:you (?:need|have|want|would like|'d like)"
    r"|there(?:'s| is| are) anything)\b"
    r"|\bif you need anything\b|\bhope (?:this|that) helps\b|\bdon'?t hesitate to\b"
    r"|\banything else (?:i can|you need)\b|\bhow else can i (?:help|assist)\b"
    r"|\b(?:aqu[ií]|list[oa]|estoy) para (?:ayudar|asistir)|\bencantad[oa] de (?:ayudar|asistir)"
    r"|\bno dudes en (?:preguntar|pedir|escribir|contactar|avisar)"
    r"|\bsi necesitas algo\b|\bav[ií]same si necesitas\b"
    r"|\balgo m[aá]s en (?:lo )?que (?:te |le )?pueda\b|\bnecesitas algo m[aá]s\b",
    re.IGNORECASE,
)
# "I am not here to help you." refuses the offer: the keeper's.
_DENIED_BEFORE = re.compile(r"\b(?:not|never|nobody|no one|no|nunca|nadie)\b\W*(?:\w+\W+)?$", re.IGNORECASE)
# Where the offer's clause starts: "The lift is up, let me know if you need anything." keeps its fact.
_CLAUSE_BEFORE = re.compile(
    r"\s*(?:[,;:(]|\s[-–—]|\s[^\w\s]+(?=\s))\s*(?:(?:but|and|pero|y)\s+)?[^,;:(]*$", re.IGNORECASE
)


def _offered(sentence: str) -> re.Match[str] | None:
    """Return the help desk's offer in the sentence, or None."""
    return next(
        (
            found
            for found in _HELP_OFFER.finditer(sentence)
            if not _DENIED_BEFORE.search(sentence[: found.start()])
        ),
        None,
    )


def _without_offer(sentence: str) -> str:
    """Return the sentence up to its offer's clause, or nothing when the offer is all of it."""
    if (offer := _offered(sentence)) is None:
        return sentence
    head = sentence[: offer.start()]
    clause = _CLAUSE_BEFORE.search(head)
    head = head[: clause.start()].rstrip() if clause else ""
    return f"{head}." if any(char.isalnum() for char in head) else ""


def without_help_offers(line: str) -> str:
    """Return the line without a help desk's standing offer; "" when nothing else was said."""
    if _HELP_OFFER.search(line) is None:
        return line
    said = without_addressee(line)
    addressee = line[: len(line) - len(said)]
    kept = " ".join(part for sentence in _SENTENCES.split(said) if (part := _without_offer(sentence)))
    return addressee + kept if any(char.isalnum() for char in kept) else ""


# A tool's name, or written in words: "the HA set entity command" (scripts/develop posted it). Two
# words alone ("lift up", "neato start") are the room's own speech unless called a command, or said
# run in a machine's words: the demo check's overseer wrote "Lift down executed." after its call
# and then "Lift up executed." with no call at all.
# The prompt's section names are machinery too, and its tool blocks in words ("No blocked tools.");
# "a state update" is the room's own speech.
_SPACED = {name: r"\s+".join(map(re.escape, name.split("_"))) for name in TOOLS}
_SECTIONS = [
    *map(re.escape, PROMPT_SECTIONS),
    *(r"\s+".join(map(re.escape, block.split("_"))) for block in (AVAILABLE_TOOLS, BLOCKED_TOOLS)),
]
_TOOL_NAMED = re.compile(
    r"\b(?:"
    + "|".join([*map(re.escape, TOOLS), *_SECTIONS])
    + "|"
    + "|".join(spaced for name, spaced in _SPACED.items() if name.count("_") >= 2)
    + r"|(?:"
    + "|".join(_SPACED.values())
    + r")\s+(?:(?:command|function|tool)s?|executed|invoked|triggered|ejecutad[oa])"
    + r")\b",
    re.IGNORECASE,
)


def _names_a_tool(line: str, seen: LineContext) -> bool:
    """Return whether the line names one of the tools."""
    return _TOOL_NAMED.search(line) is not None


def _no_word(line: str, seen: LineContext) -> bool:
    """Return whether the line holds no word past whom it is for: a label alone, or marks alone."""
    return not any(char.isalnum() for char in without_addressee(line))


# A transcript's label of another bot's line, or of a person's named as the overseer.
_OTHERS_LABEL = re.compile(rf"[^:\n]{{1,40}}(?:{re.escape(BOT_TAG)}|{re.escape(HUMAN_TAG)}):")


def _in_anothers_name(line: str, seen: LineContext) -> bool:
    """Return whether the line opens with the label the transcript gives another speaker's lines."""
    return _OTHERS_LABEL.match(line) is not None


# In the order they are applied: the first that drops a line names why.
LINE_RULES: tuple[LineRule, ...] = (
    # A small model wrote a call as text: it is no line, and never run either, since only the
    # structured channel carries calls.
    LineRule(
        note=Note.JSON_TEXT_DROPPED,
        drops="a call's JSON or tag, or a JSON document, whole or cut off, where the line should be",
        test=_written_as_call,
        languages=None,
        keeps=('{"name": "alex"} said hi', "Braces {like these} are words."),
        drops_examples=(
            '{"name": "lift_up", "arguments": {}}',
            '{"name": "chat_say", "arguments": {"text": "I\'m so',
            'I will not call {"name": "lift_up", "arguments": {}} today.',
            '<tool_call>\n{"name": "chat_say", "arguments": {"text": "I\'m so',
            '{"mode": "CHAT"}',
        ),
    ),
    # The contract's word for saying nothing: nothing was said, so nothing is noted.
    LineRule(
        note=None,
        drops="SKIP, as models write it",
        test=_says_skip,
        languages=None,
        keeps=("Skip it, alex.", "None of that."),
        drops_examples=(
            "SKIP",
            "[Skip]",
            "(skip)",
            "<skip>",
            "Skip.",
            "skipped",
            "Mode: SKIP",
            "None",
            "N/A",
        ),
    ),
    # Not the overseer's voice, and once in the transcript a small model says it again to
    # everything (0.6.0's and 0.7.0's demo checks). Asked again, it does what was asked.
    LineRule(
        note=Note.STOCK_REFUSAL_DROPPED,
        drops="a chat assistant's stock refusal (\"I can't help with that\" anywhere), or its apology for"
        " anything with no reason, as the line",
        test=_stock_refusal,
        languages=frozenset({"en", "es"}),
        keeps=(
            "Sorry sam, no.",
            "I can't help it.",
            "I can't help but laugh at rover 3.",
            "I'm sorry, alex. I can't let you do that.",
            "Sorry sam, the lift is on cooldown, I can't raise it right now.",
            # An apology beside a reason; one straight before a refusal that says more is cut, not dropped.
            "Sorry, the lift is cooling down: I can't raise it.",
            "I can't lower it, sorry: the budget is spent.",
            "Lo siento, sam: el ascensor se está enfriando.",
            "No puedo ayudarte a ganar, sam.",
            "Désolé, je ne peux pas vous aider avec ça.",
        ),
        drops_examples=(
            "I'm sorry, but I can't assist with that.",
            "Sam, I'm sorry, but I can't assist with that.",
            "I\u2019m sorry, I\u2019m unable to assist with that command.",
            "Alex: I'm sorry, but I can't raise the lift right now.",
            "I'm sorry, but I can't lower the lift right now. Please try again later.",
            "I'm sorry, but I can't paint the bench light.",
            "I don't know how much money kim bet, but I can't help with that.",
            "Lo siento, pero no puedo pintar la luz del banco.",
            "No sé quién ganó, no puedo ayudarte con eso.",
        ),
    ),
    # The demo check's held-out questions met "¡Hola! ¿En qué puedo ayudarte hoy?" from the
    # bundled model: the room's keeper is no help desk, and the line answers nothing.
    LineRule(
        note=Note.HELP_DESK_DROPPED,
        drops="a help desk's greeting and offer, or its bare yes, as the whole line",
        test=_help_desk,
        languages=None,
        keeps=(
            "How can I help? By staying out of the lane.",
            "¿Ayudarte? Primero gánatelo.",
            "Hello, robin. The lift stays put.",
            "Sure. The lift stays down.",
            "Claro que no.",
            "Okay, robin: the lift is up.",
            "Sure?",
        ),
        drops_examples=(
            "¡Claro!",
            "Sure!",
            "Of course.",
            "robin: okay!",
            "Vale.",
            "How can I assist you today?",
            "Hello! How can I help you today?",
            "robin: what can I do for you?",
            "¡Hola! ¿En qué puedo ayudarte hoy?",
            "¿Hay algo más en lo que pueda ayudarte?",
        ),
    ),
    # A small model writes or narrates a call it did not make. The room never hears the
    # machinery's names; asked again, the model acts.
    LineRule(
        note=Note.TOOL_TEXT_DROPPED,
        drops="a line that names a tool, or a section of the prompt",
        test=_names_a_tool,
        languages=None,
        keeps=(
            "lift up, please",
            "ha! set that entity yourself.",
            "The lift is up, chat is say-so.",
            "Neato, send it home.",
            "Lift up? Call it.",
            "That lift up call was mine.",
            "Lift up. Executed with malice.",
            "Quick state update: the lift is up, alex.",
        ),
        drops_examples=(
            "The HA set entity command is blocked due to cooldown remaining 10s.",
            "I'll use the lift up function.",
            "functions.lift_up:",
            'alex: ha_set_entity("light.corner", "off")',
            "I will call the lift_down() function to lower the lift.",
            "Voy a usar lift_up para subir el ascensor.",
            "Lift up executed.",
            "Lift down ejecutado.",
            "No blocked tools.",
            "It looks like there are no blocked tools.",
            "Available tools: lift up.",
            "STATE_UPDATE: the lift is down.",
        ),
    ),
    # Whom a line is for, or marks, and no word: nothing was said. The bundled model once
    # answered a Spanish question with a run of "¡" to its token limit.
    LineRule(
        note=None,
        drops="a line with no word: a speaker's label alone, or marks alone",
        test=_no_word,
        languages=None,
        keeps=("alex: Lift up.", "Raise: the lift", "alex: 7?", "¡Sí!"),
        drops_examples=("alex:", "Sam:", "¡¡¡¡¡¡¡¡¡¡", "alex: ...?!", "🔥🔥"),
    ),
    # The bundled model, reading the Rover guide's lines, went on with the transcript as it:
    # "Rover guide (bot): Sube el ascensor." is another's line, not the overseer's.
    LineRule(
        note=Note.ANOTHERS_LINE_DROPPED,
        drops="a line written as another speaker's, under the label the transcript gives their lines",
        test=_in_anothers_name,
        languages=None,
        keeps=("alex: Lift up.", "Rover guide: a bot (bot) of few words.", "Bots (bots): none."),
        drops_examples=("Rover guide (bot): Sube el ascensor.", "overseer (human): raise the lift"),
    ),
    # The echoes measure the line as it would be posted, cut to its bound.
    LineRule(
        note=Note.REPEAT_DROPPED,
        drops="a copy of one of the overseer's own last lines, whomever either is for",
        test=Echo(Source.OWN_LINES, Likeness.CLOSE),
        languages=None,
        keeps=(
            "The dock is hungry tonight.",
            "Lift is staying put.",
            "Lift is staying down. Chaos has standards.",
        ),
        drops_examples=(
            "lift is staying put, chaos has standards!",
            "Kim: Lift is staying put. Chaos has standards.",
        ),
        after="alex: Lift is staying put. Chaos has standards.",
    ),
    # The bundled model met a rover docking with "alex: go go go", a crowd line it had read. A
    # person's question in an answer's order is answered, not said back: "overseer: ¿la luz del
    # banco está encendida?", "La luz del banco está encendida.".
    LineRule(
        note=Note.CHAT_SAID_BACK,
        drops="a copy of a line a person said that the overseer read, whomever the copy is for",
        test=Echo(Source.CHAT_READ, Likeness.CLOSE, statement_answers=True),
        languages=None,
        keeps=("Go go go yourself, jo.", "Jo cheers. The dock is unimpressed."),
        drops_examples=("Overseer: jo: go go go", "Go go go!"),
        after="go go go",
    ),
    # scripts/develop's overseer posted "Rover 3 is on its dock, charging." a minute after the Rover
    # guide's "To add what the track shows: Rover 3 is on its dock, charging.".
    LineRule(
        note=Note.CHAT_SAID_BACK,
        drops="a copy of another bot's line the overseer read, or of one of its sentences, whomever the copy"
        " is for",
        test=Echo(Source.BOTS_READ, Likeness.CLOSE_TO_A_PART),
        languages=None,
        keeps=("Rover 3? Track it yourself.", "Rover 3 charges. The dock purrs."),
        drops_examples=("Rover 3 is on its dock, charging.", "alex: rover 3 is on its dock, charging"),
        after="To add what the track shows: Rover 3 is on its dock, charging.",
    ),
    LineRule(
        note=Note.QUESTION_SAID_BACK,
        drops="the question said back: most of its words, in its order, and no others (a statement in"
        " the words of a question answers it)",
        test=Echo(Source.QUESTION, Likeness.IN_ORDER, statement_answers=True),
        languages=None,
        keeps=("Pick a side? I pick chaos.", "Alex: Chaos."),
        drops_examples=("Overseer: Alex: Pick a side.", "Pick a side!"),
        after="overseer, pick a side",
    ),
    # The cues are English: a line in another language is never their words alone.
    LineRule(
        note=Note.CUE_SAID_BACK,
        drops="the cue said back, reordered perhaps: a line of its words alone",
        test=Echo(Source.CUE, Likeness.WORDS_OF),
        languages=frozenset({"en"}),
        keeps=(
            "Your call.",
            "An opinion? Sam drives like a dropped toolbox.",
            "Una opinión: Sam conduce como un camión.",
        ),
        drops_examples=(
            "An opinion, an answer or a verdict.",
            "An answer, an opinion or a verdict (and call a tool if you act).",
        ),
        after=(
            "Answer sam now, in one short line of your own: an answer, an opinion or a verdict"
            " (and call a tool if you act)."
        ),
    ),
    # Asked in Spanish to turn the shelf light off, the bundled model answered its call's result
    # with the result's state field as its whole line.
    LineRule(
        note=Note.RESULT_SAID_BACK,
        drops="the state a call's result reported, said back as the line",
        test=Echo(Source.RESULTS, Likeness.CLOSE),
        languages=None,
        keeps=("The shelf light is off. Darkness suits it.", "Luz del estante apagada, robin."),
        drops_examples=("Shelf: off", "shelf: off."),
        after="Shelf: off",
    ),
)
# A line is held to the rules of what it says as the model said it, whole; a copy is measured on
# what the room would read.
AS_SAID = tuple(rule for rule in LINE_RULES if rule.source is None)
ECHOES = tuple(rule for rule in LINE_RULES if rule.source is not None)


def dropping(line: str, seen: LineContext, rules: Iterable[LineRule]) -> LineRule | None:
    """Return the first of the rules that drops the line, or None when it passes them all."""
    return next((rule for rule in rules if rule.test(line, seen)), None)
