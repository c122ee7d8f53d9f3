"""What a line says of the room's devices, checked against the room and the calls that ran.

Every line the overseer posts that states a configured device's state ("The lift is up.", "la luz
del banco está apagada") or a deed ("I raised the lift.", "He subido el elevador") is read when it
is posted: what the room or the decision's calls show false is never posted. A small model
answers "raise the lift" with "Lift raised." and no call at all; so do big ones
(home-assistant/core#177156).

A line is read clause by clause, in plain word lists: no regular expression runs over a line
but the tokenizer's, so a line costs what its length does. A clause claims something only when
it names a device of the room (a name or alias from Home Assistant's registries, or a kind noun
when the room has one device of that kind) and says what it is or what was done to it in words
this module knows. A question, a negation (but a state plainly denied: "Rover 3 is not
charging"), someone else's deed and words it cannot read claim nothing: a dropped true line is
a defect, a false one posted a worse one, and an unread one neither.

The words are Home Assistant's own where its language data has them (the home-assistant-intents
package: state and colour names, in its template syntax) and a table of ours for the rest: deeds
in the past, present and future, the function words a clause is read by, the lift's and the
vacuum's and the rovers' states. English and Spanish are complete, German and French cover the
deeds and states of the room's devices (French not their denials); any other language gets statements
of state from its data, and English underneath, because models slip into it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Flag, auto
from itertools import permutations
from types import MappingProxyType
from typing import Any

from .acts import LEFT_BY, Act, Deed, Device, Kind, expected_state
from .text import fold, strip_invisible


class Role(Flag):
    """What a function word does in a clause."""

    NEGATION = auto()
    # A state's plain denial, a negation too: "Rover 3 is not charging", "no está cargando" claim
    # the state does not hold, and are judged like any state ("not" before anything else is not).
    NOT = auto()
    # Opens a question ("should", "está"); before a verb, a word of a question makes it no claim.
    QUESTION = auto()
    # "okay", "done", "listo": words a reply opens with, that change nothing it claims.
    LEAD = auto()
    ME = auto()
    # The asker as a deed's doer: "You switched the light off" credits them with what was done.
    YOU = auto()
    PROMISE = auto()
    # The first and second person's auxiliaries: "I've", "he subido", "has subido", "j'ai", "tu as".
    AUX = auto()
    # A deed said without its doer: "was lowered", "ha sido subido", "wurde", "a été".
    PASSIVE = auto()
    COPULA = auto()
    ARTICLE = auto()
    ADVERB = auto()
    # Who did a passive deed: "by Sam".
    AGENT = auto()
    CONJUNCTION = auto()
    # Makes the sentence a condition: "If you win, I'll raise the lift." claims nothing yet.
    CONDITION = auto()
    # Puts a deed before this decision: "I raised the lift earlier" is no call of this one.
    EARLIER = auto()
    # A deed or state that might be, not one that is: "I'd raise the lift", "raising it would be easy".
    MODAL = auto()
    # A deed under way, not done: "is being raised". Only a done deed may be borne out by the room.
    ONGOING = auto()
    # A verb of motion after its direction, the device last: "Up goes the lift", "Down came the lift".
    MOTION = auto()


_NO_ROLE = Role(0)


class Need(Flag):
    """What must come before a deed verb for its clause to say the overseer did the deed."""

    # No other subject: a past or a first-person form says it alone ("Raised the lift", "subí").
    BARE = auto()
    # The first person or a promise: a plain form is an order without one ("I'll raise", "je monte").
    ME = auto()
    # An auxiliary of the first person, or a passive after the device ("he subido", "was lowered").
    AUX = auto()
    # Right after the device, as a headline ("Lift raised.", "Aufzug hochgefahren.").
    HEAD = auto()
    # Nothing: the form says the second person itself, done ("apagaste", "subiste").
    YOU = auto()


@dataclass(frozen=True, slots=True)
class DeedForm:
    """One way a verb says a deed: its acts (none: the clause's particles say it) and what it needs."""

    acts: frozenset[Act]
    needs: Need


@dataclass(frozen=True, slots=True)
class Meaning:
    """What one word or phrase of a language can mean in a clause."""

    roles: Role = _NO_ROLE
    # A state of a kind of device: (Kind.LIFT, "open"), (Kind.LIGHT, "off").
    states: tuple[tuple[Kind, str], ...] = ()
    # A colour, in Home Assistant's English colour names.
    colour: str = ""
    deeds: tuple[DeedForm, ...] = ()
    # Where a deed goes: "up" (the lift open), "off", "home" (the vacuum docked).
    particle: Act | None = None
    kind: Kind | None = None


@dataclass(frozen=True, slots=True)
class Words:
    """One language's words, built once per language by the shell loader.

    lexicon maps a phrase (its folded words) to what it can mean: state words ("up", "arriba",
    "raised": the lift open; "encendida": a light on), colours (to Home Assistant's English
    colour names), deed phrasings (to acts), negations, clause separators and kind nouns ("lift",
    "elevador", "Aufzug", "ascenseur"). longest bounds the phrases tried at each word.
    """

    language: str
    lexicon: Mapping[tuple[str, ...], Meaning]
    longest: int

    def meaning(self, phrase: str) -> Meaning:
        """Return what a phrase, as written, means in this language (an empty Meaning if nothing)."""
        return self.lexicon.get(_words(phrase), Meaning())


def kind_nouns(words: Words) -> dict[str, Kind]:
    """Return the language's one-word nouns for a kind of device, folded: "rovers", "luces", "lift"."""
    return {
        phrase[0]: meaning.kind
        for phrase, meaning in words.lexicon.items()
        if len(phrase) == 1 and meaning.kind is not None
    }


@dataclass(frozen=True, slots=True)
class FalseStatement:
    """A clause of a line that says something false of a device of the room."""

    device: str  # Device.key
    clause: str  # the clause that says it, as written
    claimed: str  # what it says, e.g. "open", "on", "blue", or the Act value for a deed ("open")
    deed: bool  # a deed claimed (nothing that ran did it) rather than a state
    truth: str  # the device's state as the room shows it (for the model's facts): "closed", "on (purple)"
    # A deed this decision's own call did, said as the asker's ("You switched the light off.").
    yours: bool = False


# --- Tokens ---------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\w+n't"  # the English negation stays one word: "didn't", "won't"
    r"|(?:qu|[cdjlmnst])'(?=\w|$)"  # an elided article or pronoun: "l'ascenseur", "j'ai"
    r"|'(?:s|re|ve|ll|m|d)\b"  # an English contraction: "lift's", "I've", "I'll"
    r"|\w+"
    r"|[.!?…;。！？]+"
    r"|[,:()\[\]\"«»“”„—–¿¡、，]"
    r"|(?<=\s)-(?=\s)",
    re.IGNORECASE,
)
_ENDS = frozenset(".!?…;。！？")
# Apostrophes as people type them; one character each, so positions in the line hold.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})
_QUESTION_START = "¿"
_COLON = ":"
# A label before a colon: one word is whom a line is for ("alex: ..."); a device is a headline.
_LABEL_WORDS = 4


@dataclass(frozen=True, slots=True)
class _Token:
    text: str  # folded; a mark as it is
    start: int
    end: int

    @property
    def word(self) -> bool:
        return self.text[:1].isalnum() or self.text[:1] == "'"


def _tokens(text: str) -> list[_Token]:
    found = []
    for match in _TOKEN.finditer(text.translate(_APOSTROPHES)):
        piece = match.group()
        folded = fold(piece) if piece[:1].isalnum() or piece[:1] == "'" else piece
        if folded:
            found.append(_Token(folded, match.start(), match.end()))
    return found


def _words(text: str) -> tuple[str, ...]:
    return tuple(token.text for token in _tokens(unicodedata.normalize("NFC", text)) if token.word)


# --- Templates ------------------------------------------------------------------------------------

# Home Assistant's template syntax: (a|b) alternatives, [optional] parts, <rule> references,
# (a;b) permutations; {list} references expand to nothing. Bounded: a value's variants are capped.
_MAX_VARIANTS = 256
_MAX_RULE_DEPTH = 4
_LITERAL = re.compile(r"[^()\[\]|;<>{}]+")


def expand(template: str, rules: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """Return every text a template says, in Home Assistant's template syntax (capped)."""
    return _expand(template, rules or {}, 0)


def _expand(template: str, rules: Mapping[str, Any], depth: int) -> tuple[str, ...]:
    variants, _ = _alternatives(template, 0, "", rules, depth)
    return tuple(dict.fromkeys(" ".join(variant.split()) for variant in variants))


def _product(left: list[str], right: list[str]) -> list[str]:
    return [a + b for a in left for b in right][:_MAX_VARIANTS]


def _alternatives(
    template: str, pos: int, closing: str, rules: Mapping[str, Any], depth: int
) -> tuple[list[str], int]:
    options: list[str] = []
    parts: list[list[str]] = []
    current = [""]

    def finish() -> None:
        if not parts:
            options.extend(current)
            return
        orders = permutations([*parts, current]) if len(parts) < 4 else iter([(*parts, current)])
        for order in orders:
            joined = [""]
            for part in order:
                joined = _product(joined, [f" {text} " for text in part])
            options.extend(joined)

    while pos < len(template):
        char = template[pos]
        if char == closing:
            pos += 1
            break
        if char == "|":
            finish()
            parts, current = [], [""]
            pos += 1
        elif char == ";":
            parts.append(current)
            current = [""]
            pos += 1
        elif char in "([":
            inner, pos = _alternatives(template, pos + 1, ")" if char == "(" else "]", rules, depth)
            current = _product(current, [*inner, ""] if char == "[" else inner)
        elif char == "<":
            end = template.find(">", pos)
            end = len(template) if end < 0 else end
            rule = rules.get(template[pos + 1 : end])
            # A rule may name rules; one that names itself ends at the depth cap.
            inner = (
                list(_expand(rule, rules, depth + 1))
                if isinstance(rule, str) and depth < _MAX_RULE_DEPTH
                else []
            )
            current = _product(current, inner)
            pos = end + 1
        elif char == "{":
            end = template.find("}", pos)
            current = []  # a list's values are not words of ours
            pos = len(template) if end < 0 else end + 1
        elif char in ")]>}":
            pos += 1  # unbalanced: read past it
        else:
            literal = _LITERAL.match(template, pos)
            text = literal.group() if literal else char
            current = [variant + text for variant in current]
            pos += len(text)
    finish()
    return options[:_MAX_VARIANTS], pos


# --- Our words ------------------------------------------------------------------------------------

_DONE = Need.BARE | Need.AUX
_DONE_HEAD = Need.BARE | Need.AUX | Need.HEAD
_PARTICIPLE = Need.AUX | Need.HEAD
_PLAIN = Need.ME
# A French form that is both a participle and the first person's present: "j'ai monté", "je monte".
_FR_SAME = Need.AUX | Need.ME
# An English form that is both past and plain ("set", "put"): never a bare order's claim.
_EN_SAME = Need.ME | Need.AUX | Need.HEAD

_OPEN, _CLOSE = (Act.OPEN,), (Act.CLOSE,)
_ON, _OFF = (Act.ON,), (Act.OFF,)
_START, _DOCK, _LOCATE, _CLEAR = (Act.START,), (Act.DOCK,), (Act.LOCATE,), (Act.CLEAR,)
# The act is in the clause: "turned the light off", "sent the vacuum home", "puse la luz en azul".
_BY_PARTICLE: tuple[Act, ...] = ()


@dataclass(frozen=True, slots=True)
class _Table:
    """One language's words of ours, as templates in Home Assistant's syntax."""

    roles: Mapping[Role, str]
    states: Mapping[Kind, Mapping[str, str]]
    colours: Mapping[str, str]
    # Words that may lead a colour: "in blue", "en azul", "auf blau".
    colour_preps: str
    particles: Mapping[Act, str]
    kinds: Mapping[Kind, str]
    deeds: tuple[tuple[tuple[Act, ...], Need, str], ...]


_EN = _Table(
    roles={
        Role.NEGATION: "not|never|no|nope|cannot|nor|neither|nothing|without|nobody|none|don't|doesn't|didn't"
        "|won't|can't|isn't|aren't|wasn't|weren't|haven't|hasn't|hadn't|dont|doesnt|didnt|cant|isnt",
        Role.NOT: "not|isn't|aren't|isnt|arent|no longer",
        Role.QUESTION: "should|shall|do|does|did|want|wanna|is|are|am|can|could|would|will|what|who|how|why"
        "|when|where|which|may|might|must|have|has|need|shouldn't",
        Role.LEAD: "ok|okay|sure|done|so|then|yes|yeah|yep|alright|all right|right|there|here|well|great|good"
        "|fine|voila|boom|hey|oh|also|finally|as requested|as asked|as you wished|there you go",
        Role.ME: "i|we",
        Role.YOU: "you|y'all|you all|you guys",
        Role.PROMISE: "'ll|will|shall|going to|gonna|let me|let's|let us|watch me|about to",
        Role.AUX: "have|'ve|am|'m|are|'re|had|been",
        Role.PASSIVE: "was|were|has been|have been|had been|'s been|got|gets|is being|are being|just got",
        # Also the verbs of becoming, done: "The corner light turned blue" says what it is now ("Ask
        # and the light turns blue" does not).
        Role.COPULA: "is|'s|are|'re|stays|stay|remains|remain|sits|turned|has turned|'s turned|became"
        "|has become|'s become|changed to|has changed to|'s changed to|glows|is glowing|'s glowing",
        Role.ARTICLE: "the|a|an|my|your|our|their|its|this|that|these|those|all|both|each|every|all the"
        "|all of the",
        # Also whom or how long a state is for: "The lift is up for you", "off for good".
        Role.ADVERB: "now|already|still|fully|just|all the way|back|again|finally|completely|right now"
        "|currently|officially|at last|safely|once again|indeed|definitely|totally|successfully|happily"
        "|today|tonight|for (you|you all|y'all|everyone|everybody|all of you|the room|now|good|real|today"
        "|tonight|the night|a while)",
        Role.AGENT: "by",
        Role.CONJUNCTION: "and|but|though|although|while|whereas|because|since|so|yet|plus",
        Role.CONDITION: "if|unless|once|when|whenever|as soon as|until|in case|provided",
        Role.EARLIER: "earlier|yesterday|ago|previously|last (time|night|week|round|race)|this morning",
        Role.MODAL: "would|could|should|might|must|can|may|'d|ought",
        Role.ONGOING: "is being|are being|gets",
        Role.MOTION: "goes|go|comes|come|went|came",
    },
    states={
        Kind.LIFT: {
            "open": "up|raised|lifted|at the top|(going|moving|coming|heading|on its way|all the way) up"
            "|rising|ascending|(has|'s) (gone|come|moved) up|(went|rose|came|moved) up",
            "closed": "down|lowered|at the bottom|(going|moving|coming|heading|on its way|all the way) down"
            "|descending|dropping|(has|'s) (gone|come|moved) down|(went|dropped|came|moved) down",
        },
        Kind.LIGHT: {
            "on": "on|lit|lit up|switched on|turned on",
            "off": "off|out|dark|switched off|turned off",
        },
        Kind.VACUUM: {
            "cleaning": "cleaning|vacuuming|running|working|on|busy|on the move|(out|off) cleaning"
            "|(out|off) to (clean|vacuum|work)",
            "docked": "docked|charging|home|at home|back home|at (its|the) (dock|base|station|charger)"
            "|(on|in) (its|the) (dock|base|charger)|parked|back at (its|the) (dock|base)",
            "returning": "returning|(heading|going|on its way|coming) (home|back)"
            "|(heading|going|returning) [back] to (its|the) (dock|base)",
            "idle": "idle|off|resting",
            "paused": "paused|on pause",
            "error": "stuck|jammed|in error|blocked|broken",
        },
        Kind.ROVER: {
            "docked": "docked|[back] (on|at|in) (its|the) (dock|base|station)|home|at home|back home",
            "undocked": "undocked|off (its|the) dock|away from (its|the) dock|[out] on the track",
            "charging": "charging|recharging|on charge|plugged in|topping up",
            "driving": "driving|racing|moving|running|rolling|cruising|lapping|on the move|out driving",
            "idle": "idle|resting|parked|stationary",
        },
    },
    colours={
        "red": "red",
        "orange": "orange",
        "yellow": "yellow",
        "green": "green|lime",
        "cyan": "cyan|aqua",
        "blue": "blue|navy",
        "purple": "purple",
        "pink": "pink",
        "white": "white",
        "violet": "violet",
        "magenta": "magenta|fuchsia",
        "turquoise": "turquoise",
        "teal": "teal",
        "gold": "gold|golden",
        "brown": "brown",
        "black": "black",
    },
    colour_preps="in|to",
    particles={
        Act.OPEN: "up|upward[s]|up top|to the top",
        Act.CLOSE: "down|downward[s]|to the bottom",
        Act.ON: "on",
        Act.OFF: "off",
        Act.DOCK: "home|back home|[back] to (its|the) (dock|base|station|charger)|[back] to base",
        Act.START: "[(out|off)] to (clean|vacuum|work)",
    },
    kinds={
        Kind.LIFT: "lift[s]|elevator[s]",
        Kind.VACUUM: "vacuum[s]|robot vacuum|vacuum cleaner|hoover|roomba",
        Kind.LIGHT: "light[s]|lamp[s]|bulb[s]|led strip[s]",
        Kind.ROVER: "rover[s]",
    },
    deeds=(
        # "lift" is the lift's own noun, so it is no verb here.
        (_OPEN, _DONE_HEAD, "raised|lifted|hoisted"),
        (_OPEN, Need.BARE, "raising|lifting|hoisting"),
        (_OPEN, _PLAIN, "raise|hoist"),
        (_CLOSE, _DONE_HEAD, "lowered"),
        # "The lift dropped" may be the lift's own doing.
        (_CLOSE, _DONE, "dropped"),
        (_CLOSE, Need.BARE, "lowering|dropping"),
        (_CLOSE, _PLAIN, "lower|drop"),
        # Also the light's states ("The light is switched off"), so the phrase keeps its deed.
        (_ON, _DONE, "turned on"),
        (_ON, _DONE_HEAD, "switched on"),
        (_OFF, _DONE, "turned off"),
        (_OFF, _DONE_HEAD, "switched off"),
        (_OFF, _DONE_HEAD, "killed"),
        (_OFF, Need.BARE, "killing"),
        (_OFF, _PLAIN, "kill"),
        # "The vacuum started" may be its own doing, "dispatched" never is.
        (_START, _DONE, "started|launched|kicked off"),
        (_START, _DONE_HEAD, "unleashed|dispatched|deployed|released"),
        (_START, _DONE, "woke|woken"),
        (
            _START,
            Need.BARE,
            "starting|launching|unleashing|dispatching|deploying|kicking off|waking|releasing",
        ),
        (_START, _PLAIN, "start|launch|unleash|dispatch|deploy|kick off|wake|release"),
        (_DOCK, _DONE_HEAD, "recalled"),
        (_DOCK, _DONE, "returned|docked"),
        (_DOCK, Need.BARE, "recalling|returning|docking"),
        (_DOCK, _PLAIN, "recall|return|dock"),
        (_LOCATE, _DONE, "located|pinged|beeped"),
        (_LOCATE, Need.BARE, "locating|pinging|beeping"),
        (_LOCATE, _PLAIN, "locate|ping|beep"),
        (_CLEAR, _DONE, "cleared"),
        (_CLEAR, Need.BARE, "clearing|resetting"),
        (_CLEAR, _PLAIN, "clear"),
        (_CLEAR, _EN_SAME, "reset"),
        # "The light turned blue", "the lift moved up" may be their own doing.
        (_BY_PARTICLE, _DONE, "turned|changed|made|called|moved|took"),
        (_BY_PARTICLE, _DONE_HEAD, "switched|flipped|painted|sent|brought|taken"),
        (_BY_PARTICLE, _EN_SAME, "set|put"),
        (
            _BY_PARTICLE,
            Need.BARE,
            "turning|switching|setting|changing|making|painting|flipping|sending|bringing|calling|putting"
            "|moving|taking",
        ),
        (_BY_PARTICLE, _PLAIN, "turn|switch|change|make|paint|flip|send|bring|call|move|take"),
    ),
)

_ES = _Table(
    roles={
        Role.NEGATION: "no|nunca|ni|jamás|tampoco|nada|sin|ningún|ninguna|ninguno|nadie",
        # "sin estar en el estado de carga": scripts/develop's overseer, of a rover charging.
        Role.NOT: "no|ya no|sin",
        Role.QUESTION: "quieres|quiere|querés|quieren|debo|debería|puedo|podría|puedes|qué|cómo|cuál|cuándo"
        "|dónde|quién|por qué|hay|está|están|es",
        # Not "si": folded it is also "if", and "Si subo el ascensor" claims nothing.
        Role.LEAD: "listo|lista|ya|vale|ok|okay|hecho|bueno|bien|claro|perfecto|venga|pues|entonces|ahora"
        "|de acuerdo|ahí va|ahí lo tienes|ahí tienes|enseguida|en seguida|oído|marchando|ahora mismo"
        "|por supuesto|hala|genial|muy bien|como pediste|como pidió|como querías|como quieras|también",
        # The first person's auxiliaries say who did it too: "Para usted he subido el ascensor".
        Role.ME: "yo|nosotros|nosotras|he|hemos",
        # "has" is the second person's auxiliary alone: "has apagado la luz" ("ha" is anyone's).
        Role.YOU: "tú|usted|ustedes|vosotros|vosotras|has|habéis",
        Role.PROMISE: "voy a|vamos a|déjame|deja que|acabo de|acabamos de|procedo a|me pongo a",
        Role.AUX: "he|hemos|estoy|estamos|has|habéis",
        Role.PASSIVE: "fue|fueron|ha sido|han sido",
        # "El ascensor ha subido": the lift went up, a state the room shows or not. "Se ha puesto
        # azul", "se ha cambiado a azul": it turned blue (the demo check's held-out draws met both
        # of a light that had not). Not "cambia", "pasa": orders as well ("Cambia tú la luz").
        Role.COPULA: "está|están|estar|sigue|siguen|queda|quedan|es|son|ha|han|se ha puesto|se han puesto"
        "|se puso|se pusieron|se ha quedado|se quedó|ha quedado|quedó|[se] (cambió|ha cambiado"
        "|han cambiado)|se volvió|se ha vuelto|pasó|ha pasado|brilla|brillan|luce|lucen",
        Role.ARTICLE: "el|la|los|las|lo|le|les|un|una|unos|unas|del|de|al|a|mi|mis|tu|tus|su|sus|este|esta"
        "|esto|estos|estas|ese|esa|eso|esos|esas|me|te|se|nos|os|todas las|todos los|de la|de los|de las",
        Role.ADVERB: "ya|ahora|todavía|aún|completamente|del todo|de nuevo|otra vez|ahora mismo|por fin"
        "|en [el] estado"
        "|finalmente|totalmente|hoy|esta noche|por ahora|para (ti|vos|usted|ustedes|vosotros|vosotras|todos"
        "|todas)",
        Role.AGENT: "por",
        # "para" opens what a state is for: "La aspiradora se ha encendido para limpiar" says it is on.
        Role.CONJUNCTION: "y|e|pero|aunque|mientras|así que|porque|sino|para|para que",
        # "Sí," alone is "yes": a condition needs words after it (see _conditional).
        Role.CONDITION: "si|cuando|en cuanto|hasta que|apenas|en caso de que|siempre que",
        Role.EARLIER: "antes|ayer|hace|anoche|esta mañana|la última vez|previamente",
        Role.MODAL: "podría|podrías|podríamos|debería|deberías|puedo|puede|podemos|debo|tendría|querría"
        "|subiría|bajaría|encendería|apagaría",
        Role.MOTION: "va|van|viene|vienen",
    },
    states={
        Kind.LIFT: {
            "open": "arriba|(subid|levantad|elevad|alzad)(o|a)[s]|subiendo|en lo alto|arriba del todo"
            "|va (arriba|para arriba|hacia arriba)|va subiendo",
            "closed": "abajo|(bajad|descendid)(o|a)[s]|bajando|descendiendo|abajo del todo"
            "|va (abajo|para abajo|hacia abajo)|va bajando",
        },
        Kind.LIGHT: {
            "on": "(encendid|prendid)(o|a)[s]|se (encendió|prendió|encendieron|prendieron)",
            "off": "apagad(o|a)[s]|a oscuras|se (apagó|apagaron)",
        },
        Kind.VACUUM: {
            "cleaning": "limpiando|aspirando|funcionando|trabajando|en marcha|(encendid|prendid)(o|a)"
            "|(sale|salió|ha salido|se pone|se puso|se ha puesto) a (limpiar|aspirar|trabajar)"
            "|[se] (arrancó|ha arrancado)|se (encendió|prendió)|se puso en marcha",
            "docked": "en (la|su) (base|estación)|cargando|en casa|acoplad(o|a)|aparcad(o|a)|en el cargador",
            "returning": "(volviendo|regresando) [(a (la|su) base|a casa)]|de (vuelta|regreso)"
            "|camino (a casa|de la base|de su base)",
            "idle": "inactiv(o|a)|parad(o|a)|apagad(o|a)|en reposo|quiet(o|a)",
            "paused": "en pausa|pausad(o|a)",
            "error": "atascad(o|a)|bloquead(o|a)|con [un] error|en error|averiad(o|a)",
        },
        Kind.ROVER: {
            "docked": "en (la|su) (base|estación)|en (el|su) (dock|muelle|cargador)|acoplad(o|a)|atracad(o|a)"
            "|en boxes",
            "undocked": "fuera de (la|su) (base|estación)|fuera del (dock|muelle)|desacoplad(o|a)"
            "|en (la|el) (pista|circuito)",
            # "en el estado de carga": scripts/develop's overseer, of a rover charging.
            "charging": "cargando|cargándose|recargando|en carga|en [el] estado de carga|enchufad(o|a)",
            "driving": "conduciendo|corriendo|rodando|circulando|en marcha|en movimiento|moviéndose"
            "|dando vueltas",
            "idle": "inactiv(o|a)|parad(o|a)|quiet(o|a)|en reposo|descansando|aparcad(o|a)",
        },
    },
    colours={
        "red": "roj(o|a)[s]",
        "orange": "naranja[s]|anaranjad(o|a)[s]",
        "yellow": "amarill(o|a)[s]",
        "green": "verde[s]",
        "cyan": "cian|celeste",
        "blue": "azul[es]",
        "purple": "(morad|purpúre)(o|a)[s]|púrpura|lila",
        "pink": "rosa[s]|rosad(o|a)[s]",
        "white": "blanc(o|a)[s]",
        "violet": "violeta[s]",
        "magenta": "magenta",
        "turquoise": "turquesa",
        "gold": "dorad(o|a)[s]",
        "brown": "marrón|café",
        "black": "negr(o|a)[s]",
    },
    colour_preps="en|de|a|al",
    particles={
        Act.OPEN: "arriba|hacia arriba|para arriba|a lo alto",
        Act.CLOSE: "abajo|hacia abajo|para abajo",
        Act.DOCK: "a (casa|la base|su base|la estación|su estación|cargar)",
        Act.START: "en marcha|a (limpiar|aspirar|trabajar)",
    },
    kinds={
        Kind.LIFT: "elevador[es]|ascensor[es]|montacargas|plataforma",
        Kind.VACUUM: "aspiradora[s]|aspirador[es]|robot aspirador|robot de limpieza|roomba",
        Kind.LIGHT: "luz|luces|lámpara[s]|foco[s]|bombilla[s]|bombillo[s]",
        Kind.ROVER: "rover[s]",
    },
    deeds=(
        # "bajo" is left out: it is also "under" ("bajo el ascensor" is where, not what was done).
        # Folded, "bajé", "apagué" read as "baje", "apague" (a polite order): orders are rare in the
        # overseer's mouth, a deed it made up is not. The preterite is a done deed, as English
        # "raised" is (_DONE): the room's state may bear it out.
        (_OPEN, _DONE, "subí|subimos|levanté|levantamos|elevé|elevamos|alcé|alzamos"),
        (
            _OPEN,
            Need.BARE,
            "subo|subiré|subiremos|subiendo|levanto|levantaré|levantando|elevo|elevaré|elevando|alzo|alzaré"
            "|alzando",
        ),
        (_OPEN, _PARTICIPLE, "(subid|levantad|elevad|alzad)(o|a)[s]"),
        (_OPEN, _PLAIN, "subir|levantar|elevar|alzar"),
        (_CLOSE, _DONE, "bajé|bajamos|descendí|descendimos"),
        (_CLOSE, Need.BARE, "bajaré|bajaremos|bajando"),
        (_CLOSE, _PARTICIPLE, "(bajad|descendid)(o|a)[s]"),
        (_CLOSE, _PLAIN, "bajar|descender"),
        (_ON, _DONE, "encendí|encendimos|prendí|prendimos|activé|activamos"),
        (_ON, Need.BARE, "enciendo|encenderé|encendiendo|prendo|prenderé|prendiendo|activando"),
        (_ON, _PARTICIPLE, "(encendid|prendid|activad)(o|a)[s]"),
        (_ON, _PLAIN, "encender|prender|activar"),
        (_OFF, _DONE, "apagué|apagamos|desactivé|desactivamos"),
        (_OFF, Need.BARE, "apago|apagaré|apagando|desactivando"),
        (_OFF, _PARTICIPLE, "(apagad|desactivad)(o|a)[s]"),
        (_OFF, _PLAIN, "apagar|desactivar"),
        (_START, _DONE, "arranqué|arrancamos|inicié|iniciamos"),
        (_START, Need.BARE, "arranco|arrancaré|arrancando|iniciando"),
        (_START, _PARTICIPLE, "(arrancad|iniciad)(o|a)[s]"),
        (_START, _PLAIN, "arrancar|iniciar"),
        (_DOCK, _DONE, "devolví|devolvimos"),
        (_DOCK, Need.BARE, "devuelvo|devolviendo"),
        (_DOCK, _PARTICIPLE, "devuelt(o|a)[s]"),
        (_DOCK, _PLAIN, "devolver"),
        # Not "cambio", "mando", "envío": nouns as well ("un cambio", "el mando"); nor "dejar"
        # ("dejé la luz encendida" keeps a state, it does nothing).
        (_BY_PARTICLE, _DONE, "puse|pusimos|cambié|cambiamos|mandé|mandamos|envié|enviamos|pinté|pintamos"),
        (_BY_PARTICLE, Need.BARE, "pongo|pondré|poniendo|cambiando|mandando|enviando|pintando"),
        # "Mando la aspiradora a limpiar.": a first person's present, with the device and where it
        # goes after it; "el mando" (the remote) names no act, so it claims none.
        (_BY_PARTICLE, Need.BARE, "mando|envío|mandaré|enviaré"),
        (_BY_PARTICLE, _PARTICIPLE, "(puest|cambiad|mandad|enviad|pintad)(o|a)[s]"),
        (_BY_PARTICLE, _PLAIN, "poner|cambiar|mandar|enviar|pintar"),
        # The second person's preterite says the asker did it: "Apagaste la luz del rincón."
        (_OPEN, Need.YOU, "subiste|levantaste|elevaste|alzaste"),
        (_CLOSE, Need.YOU, "bajaste|descendiste"),
        (_ON, Need.YOU, "encendiste|prendiste|activaste"),
        (_OFF, Need.YOU, "apagaste|desactivaste"),
        (_START, Need.YOU, "arrancaste|iniciaste"),
        (_DOCK, Need.YOU, "devolviste"),
        (_BY_PARTICLE, Need.YOU, "pusiste|cambiaste|mandaste|enviaste|pintaste"),
    ),
)

_DE = _Table(
    roles={
        Role.NEGATION: "nicht|nie|niemals|kein|keine|keinen|keinem|keiner|keines|weder|nichts|ohne|niemand",
        Role.NOT: "nicht|nicht mehr",
        Role.QUESTION: "soll|sollen|sollte|willst|wollt|möchtest|möchten|was|wer|wie|warum|wann|wo|welche"
        "|welcher|welches|ist|sind|hast|habt|kann|kannst|könnte|darf|gibt",
        Role.LEAD: "ok|okay|so|gut|alles klar|klar|erledigt|fertig|ja|jawohl|jetzt|nun|also|sicher|gern"
        "|gerne|bitte schön|bitteschön|hier|na|prima|super|geschafft|wie gewünscht",
        Role.ME: "ich|wir",
        Role.PROMISE: "werde|werden|lass mich|lasst uns",
        Role.AUX: "habe|haben|hab",
        Role.PASSIVE: "wurde|wurden|wird",
        Role.COPULA: "ist|sind|bleibt|bleiben|steht|stehen",
        Role.ARTICLE: "der|die|das|den|dem|des|ein|eine|einen|einem|einer|mein|meine|meinen|dein|deine"
        "|unser|unsere|unseren|euer|eure|alle|diese|dieser|diesen|dieses|im|am|beim|vom|zum|zur|es",
        Role.ADVERB: "jetzt|nun|schon|bereits|wieder|noch|gerade|ganz|vollständig|endlich|komplett|gleich"
        "|sofort|soeben|worden|heute|heute abend|vorerst|für (dich|euch|alle|sie|heute)",
        Role.AGENT: "von",
        Role.CONJUNCTION: "und|aber|doch|sondern|während|weil|obwohl|denn",
        Role.CONDITION: "wenn|falls|sobald|bis|sofern",
        Role.EARLIER: "vorhin|gestern|vorher|früher|zuvor|vor kurzem|letztes mal",
        # Folded, "würde" is "wurde": only its subject tells "would" from the passive's "was".
        Role.MODAL: "könnte|könnten|sollte|sollten|ich würde|würde ich|wir würden|würden wir|müsste|kann|muss"
        "|darf|möchte",
        Role.MOTION: "geht|gehen|ging|gingen|kommt|kommen|kam|kamen",
    },
    states={
        Kind.LIFT: {
            "open": "oben|ganz oben|hoch|(hoch|rauf|herauf|hinauf)gefahren|angehoben"
            "|(fährt|geht) (hoch|nach oben|rauf)|auf dem weg nach oben",
            "closed": "unten|ganz unten|runter|(runter|herunter|hinunter)gefahren|abgesenkt|gesenkt"
            "|(fährt|geht) (runter|nach unten|herunter)|auf dem weg nach unten",
        },
        Kind.LIGHT: {
            "on": "an|(an|ein)geschaltet|angemacht",
            "off": "aus|ausgeschaltet|ausgemacht|dunkel",
        },
        Kind.VACUUM: {
            "cleaning": "saugt|putzt|reinigt|läuft|an|im einsatz|in betrieb|bei der arbeit",
            "docked": "(in|an) der (basis|station|ladestation)|angedockt|lädt|zu hause|daheim",
            "returning": "auf dem (weg|rückweg) (nach hause|zur (basis|station|ladestation))"
            "|(fährt|kehrt) zurück|auf dem rückweg",
            "idle": "aus|untätig|bereit|inaktiv",
            "paused": "pausiert|angehalten",
            "error": "steckt fest|blockiert|festgefahren|gestört",
        },
        Kind.ROVER: {
            "docked": "angedockt|(in|an) der (basis|station|ladestation)|im dock",
            "undocked": "abgedockt|auf der strecke",
            "charging": "lädt|wird geladen|am laden",
            "driving": "in fahrt|rollt|rast",
            "idle": "untätig|inaktiv|in ruhe",
        },
    },
    colours={
        "red": "rot",
        "orange": "orange",
        "yellow": "gelb",
        "green": "grün",
        "cyan": "cyan|türkis",
        "blue": "blau",
        "purple": "lila|violett",
        "pink": "pink|rosa",
        "white": "weiß",
        "magenta": "magenta",
        "gold": "golden",
        "brown": "braun",
        "black": "schwarz",
    },
    colour_preps="in|auf",
    particles={
        Act.OPEN: "hoch|rauf|herauf|hinauf|nach oben",
        Act.CLOSE: "runter|herunter|hinunter|nach unten",
        Act.ON: "an|ein",
        Act.OFF: "aus",
        Act.DOCK: "nach hause|heim|zur (basis|station|ladestation)|zurück",
    },
    kinds={
        Kind.LIFT: "aufzug|aufzüge|lift|fahrstuhl|hebebühne|plattform",
        Kind.VACUUM: "staubsauger|saugroboter|sauger|staubsaugerroboter",
        Kind.LIGHT: "licht|lichter|lampe|lampen|leuchte|beleuchtung",
        Kind.ROVER: "rover",
    },
    deeds=(
        (
            _OPEN,
            _PARTICIPLE,
            "(hoch|rauf|herauf|hinauf)gefahren|angehoben|gehoben|hochgezogen|hochgeholt|hochgeschickt",
        ),
        (_OPEN, _PLAIN, "(hoch|rauf|herauf|hinauf)fahren|anheben|heben|hochziehen|hochholen|hebe"),
        (
            _CLOSE,
            _PARTICIPLE,
            "(runter|herunter|hinunter)gefahren|abgesenkt|gesenkt|(runter|herunter)gelassen",
        ),
        (_CLOSE, _PLAIN, "(runter|herunter|hinunter)fahren|absenken|senken|(runter|herunter)lassen|senke"),
        (_ON, _PARTICIPLE, "eingeschaltet|angeschaltet|angemacht|angeknipst|aktiviert"),
        (_ON, _PLAIN, "einschalten|anschalten|anmachen|anknipsen|aktivieren"),
        (_OFF, _PARTICIPLE, "ausgeschaltet|ausgemacht|ausgeknipst|deaktiviert"),
        (_OFF, _PLAIN, "ausschalten|ausmachen|ausknipsen|deaktivieren"),
        (_START, _PARTICIPLE, "gestartet|losgeschickt|angeworfen"),
        (_START, _PLAIN, "starten|starte|losschicken"),
        (_DOCK, _PARTICIPLE, "zurückgeschickt|heimgeschickt"),
        (_DOCK, _PLAIN, "zurückschicken|heimschicken"),
        # Not "gelassen": "das Licht an gelassen" keeps a state, it does nothing.
        (
            _BY_PARTICLE,
            _PARTICIPLE,
            "gefahren|geschaltet|gemacht|gestellt|eingestellt|gesetzt|geschickt|gefärbt",
        ),
        (
            _BY_PARTICLE,
            _PLAIN,
            "fahre|fahren|schalte|schalten|mache|machen|stelle|stellen|schicke|schicken|färbe|färben",
        ),
    ),
)

_FR = _Table(
    roles={
        Role.NEGATION: "ne|n'|pas|jamais|aucun|aucune|ni|rien|non|sans|personne",
        Role.QUESTION: "est-ce|veux|voulez|veut|dois|puis|faut-il|quel|quelle|quels|quelles|comment|pourquoi"
        "|quand|qui|que",
        Role.LEAD: "ok|okay|d'accord|voilà|bon|bien|oui|alors|donc|maintenant|parfait|très bien|c'est fait"
        "|c'est parti|allez|hop|ça y est|c'est bon|et voilà|super|entendu|comme demandé",
        # "on" is "we" here: "On a monté l'ascenseur".
        Role.ME: "je|j'|nous|moi|on",
        # Also the object ("je vous ai monté l'ascenseur"): a clause with the first person is its.
        Role.YOU: "tu|t'|vous|as|avez",
        Role.PROMISE: "vais|allons|laisse-moi|laissez-moi|viens de|venons de",
        Role.AUX: "ai|avons|as|avez",
        Role.PASSIVE: "a été|ont été|été|fut",
        # "L'ascenseur est monté": the lift went up, a state the room shows or not.
        Role.COPULA: "est|sont|reste|restent|demeure",
        Role.ARTICLE: "le|la|les|l'|un|une|des|du|de|d'|de la|au|aux|mon|ma|mes|ton|ta|tes|son|sa|ses|votre"
        "|vos|notre|nos|ce|cet|cette|ces|toutes les|tous les|à|me|m'|te|t'|se|s'|lui|leur",
        Role.ADVERB: "maintenant|déjà|encore|toujours|bien|complètement|enfin|désormais|tout|tout à fait"
        "|à nouveau|de nouveau|aujourd'hui|ce soir|pour (toi|vous|tous|toutes|l'instant|de bon)",
        Role.AGENT: "par",
        Role.CONJUNCTION: "et|mais|pourtant|puis|car|parce que|alors que|tandis que|cependant",
        Role.CONDITION: "si|quand|lorsque|dès que|jusqu'à ce que|au cas où|pourvu que",
        Role.EARLIER: "tout à l'heure|hier|avant|auparavant|plus tôt|la dernière fois|il y a",
        Role.MODAL: "pourrais|pourrait|pourrions|devrais|devrait|voudrais|peux|peut|dois|doit|ferais",
    },
    states={
        Kind.LIFT: {
            "open": "en haut|tout en haut|(levé|monté|remonté|élevé)[e][s]|en train de [re]monter",
            "closed": "en bas|tout en bas|(baissé|descendu|abaissé)[e][s]|descend|en train de descendre",
        },
        Kind.LIGHT: {
            "on": "allumé[e][s]",
            "off": "éteint[e][s]",
        },
        Kind.VACUUM: {
            "cleaning": "en train de (nettoyer|passer l'aspirateur|travailler)|nettoie|en marche|en service"
            "|allumé",
            "docked": "(sur|à|dans) (sa|la) (base|station)|en charge|à la maison",
            "returning": "(rentre|retourne) [(à la base|à sa base|à la maison)]|en route vers (la|sa) base"
            "|sur le chemin du retour",
            "idle": "à l'arrêt|arrêté|inactif|éteint",
            "paused": "en pause",
            "error": "bloqué|coincé|en erreur|en panne",
        },
        Kind.ROVER: {
            "docked": "(sur|à|dans) (sa|la|son) (base|station|dock)|amarré",
            "undocked": "hors de (sa|la|son) (base|station|dock)|en piste",
            "charging": "en charge|en train de charger|se recharge",
            "driving": "en train de rouler|roule|en course",
            "idle": "inactif|au repos",
        },
    },
    colours={
        "red": "rouge[s]",
        "orange": "orange[s]",
        "yellow": "jaune[s]",
        "green": "vert[e][s]",
        "cyan": "cyan",
        "blue": "bleu[e][s]",
        "purple": "violet[te][s]|pourpre[s]",
        "pink": "rose[s]",
        "white": "blanc[s]|blanche[s]",
        "violet": "mauve[s]",
        "magenta": "magenta",
        "turquoise": "turquoise",
        "gold": "doré[e][s]",
        "brown": "marron",
        "black": "noir[e][s]",
    },
    colour_preps="en|au",
    particles={
        Act.OPEN: "en haut|vers le haut",
        Act.CLOSE: "en bas|vers le bas",
        Act.DOCK: "à (la|sa) (base|station)|à la maison|au dock",
        Act.START: "en marche|en route",
    },
    kinds={
        Kind.LIFT: "ascenseur[s]|élévateur[s]|monte-charge|plateforme|lift",
        Kind.VACUUM: "aspirateur[s]|robot aspirateur|robot",
        Kind.LIGHT: "lumière[s]|lampe[s]|éclairage|ampoule[s]|luminaire[s]",
        Kind.ROVER: "rover[s]",
    },
    deeds=(
        # "L'ascenseur monte" is the lift going up: the present needs its "je" to be a deed.
        (_OPEN, _FR_SAME, "monté|levé|élevé|remonté"),
        (_OPEN, Need.AUX, "(monté|levé|élevé|remonté)(e|s|es)"),
        (_OPEN, Need.BARE, "montons|levons|remontons|monterai|lèverai|remonterai"),
        (_OPEN, _PLAIN, "monter|lever|élever|remonter"),
        (_CLOSE, _FR_SAME, "baissé|abaissé"),
        (_CLOSE, Need.AUX, "descendu[e][s]|(baissé|abaissé)(e|s|es)"),
        (_CLOSE, _PLAIN, "descends|descendre|baisser|abaisser"),
        (_CLOSE, Need.BARE, "descendons|baissons|descendrai|baisserai"),
        (_ON, _FR_SAME, "allumé"),
        (_ON, Need.AUX, "allumé(e|s|es)"),
        (_ON, Need.BARE, "allumons|allumerai"),
        (_ON, _PLAIN, "allumer"),
        (_OFF, Need.AUX, "éteint[e][s]"),
        (_OFF, _PLAIN, "éteins|éteindre"),
        (_OFF, Need.BARE, "éteignons|éteindrai"),
        (_START, _FR_SAME, "démarré|lancé"),
        (_START, Need.AUX, "(démarré|lancé)(e|s|es)"),
        (_START, Need.BARE, "démarrons|lançons|démarrerai|lancerai"),
        (_START, _PLAIN, "démarrer|lancer"),
        (_DOCK, Need.AUX, "renvoyé[e][s]"),
        (_DOCK, _PLAIN, "renvoie|renvoyer"),
        (_BY_PARTICLE, _FR_SAME, "passé|changé|réglé"),
        (_BY_PARTICLE, Need.AUX, "mis[e][s]|envoyé[e][s]|(passé|changé|réglé)(e|s|es)"),
        (_BY_PARTICLE, _PLAIN, "mets|envoie|mettre|passer|changer|envoyer|régler"),
        (_BY_PARTICLE, Need.BARE, "mettons|envoyons|mettrai|enverrai"),
    ),
)

_TABLES: Mapping[str, _Table] = {"en": _EN, "es": _ES, "de": _DE, "fr": _FR}
# The acts each kind of device takes; a generic act ("on", "off") becomes its own ("start", "dock").
_KIND_ACTS: Mapping[Kind, Mapping[Act, Act]] = {
    Kind.LIFT: {Act.OPEN: Act.OPEN, Act.CLOSE: Act.CLOSE},
    Kind.LIGHT: {Act.ON: Act.ON, Act.OFF: Act.OFF, Act.COLOUR: Act.COLOUR},
    Kind.VACUUM: {
        Act.START: Act.START,
        Act.ON: Act.START,
        Act.DOCK: Act.DOCK,
        Act.OFF: Act.DOCK,
        Act.LOCATE: Act.LOCATE,
        Act.CLEAR: Act.CLEAR,
    },
    # No tool moves a rover: a deed said of one is never read.
    Kind.ROVER: {},
}


# --- Building a language's words ------------------------------------------------------------------


def words_for(language: str, intents: Mapping[str, Any] | None) -> Words:
    """Build a language's Words from our table and its intents data (None when it has none).

    A language's own words win over the English ones underneath: "on" is "we" in French,
    "an" is "on" in German.
    """
    base = _base_language(language)
    own: dict[tuple[str, ...], Meaning] = {}
    table = _TABLES.get(base)
    if table is not None:
        _add_table(own, table)
    if intents is not None:
        _add_intents(own, intents)
    lexicon: dict[tuple[str, ...], Meaning] = {}
    if base != "en":
        _add_table(lexicon, _EN)
        for phrase in own:
            lexicon.pop(phrase, None)
    lexicon.update(own)
    return Words(language, MappingProxyType(lexicon), max(map(len, lexicon), default=1))


def role_phrases(language: str, role: Role) -> frozenset[tuple[str, ...]]:
    """Return a language's phrases (folded words) in a role, and English's, as people mix them in."""
    return _phrases(table.roles.get(role, "") for table in _tables_with_english(language))


def deed_phrases(language: str) -> frozenset[tuple[str, ...]]:
    """Return a language's phrases (folded words) that say a deed, and English's: "raise", "bajar"."""
    return _phrases(template for table in _tables_with_english(language) for *_, template in table.deeds)


def act_phrases(language: str) -> dict[tuple[str, ...], frozenset[Act]]:
    """Return a language's phrases (folded words), and English's, that say an act, with the acts they say.

    A deed verb names its acts ("lower": the lift closed, "encender": a light on); a particle
    says where a deed goes ("up", "off", "home").
    """
    lexicon: dict[tuple[str, ...], Meaning] = {}
    for table in _tables_with_english(language):
        _add_table(lexicon, table)
    found: dict[tuple[str, ...], frozenset[Act]] = {}
    for phrase, meaning in lexicon.items():
        acts = {act for form in meaning.deeds for act in form.acts}
        if meaning.particle is not None:
            acts.add(meaning.particle)
        if acts:
            found[phrase] = frozenset(acts)
    return found


def _base_language(language: str) -> str:
    return language.replace("_", "-").partition("-")[0].casefold()


def _tables_with_english(language: str) -> tuple[_Table, ...]:
    base = _base_language(language)
    return (_EN, *((_TABLES[base],) if base in _TABLES and base != "en" else ()))


def _phrases(templates: Iterable[str]) -> frozenset[tuple[str, ...]]:
    return frozenset(
        phrase for template in templates for text in expand(template) if (phrase := _words(text))
    )


def says(text: str, phrases: frozenset[tuple[str, ...]]) -> bool:
    """Return whether the text holds one of the phrases, word for word ("don't", "as soon as")."""
    said = _words(unicodedata.normalize("NFC", text))
    lengths = {len(phrase) for phrase in phrases}
    return any(
        said[start : start + length] in phrases
        for length in lengths
        for start in range(len(said) - length + 1)
    )


def _add(
    lexicon: dict[tuple[str, ...], Meaning], template: str, meaning: Meaning, rules: Mapping[str, Any]
) -> None:
    for text in expand(template, rules):
        phrase = _words(text)
        if phrase:
            old = lexicon.get(phrase)
            lexicon[phrase] = meaning if old is None else _merged(old, meaning)


def _merged(old: Meaning, new: Meaning) -> Meaning:
    return Meaning(
        old.roles | new.roles,
        tuple(dict.fromkeys((*old.states, *new.states))),
        old.colour or new.colour,
        tuple(dict.fromkeys((*old.deeds, *new.deeds))),
        old.particle or new.particle,
        old.kind or new.kind,
    )


def _add_table(lexicon: dict[tuple[str, ...], Meaning], table: _Table) -> None:
    for role, template in table.roles.items():
        _add(lexicon, template, Meaning(roles=role), {})
    for kind, values in table.states.items():
        for value, template in values.items():
            _add(lexicon, template, Meaning(states=((kind, value),)), {})
    for colour, template in table.colours.items():
        _add(lexicon, f"[({table.colour_preps}) ]({template})", Meaning(colour=colour), {})
    for act, template in table.particles.items():
        _add(lexicon, template, Meaning(particle=act), {})
    for kind, template in table.kinds.items():
        _add(lexicon, template, Meaning(kind=kind), {})
    for acts, needs, template in table.deeds:
        _add(lexicon, template, Meaning(deeds=(DeedForm(frozenset(acts), needs),)), {})


# Home Assistant's state lists, by the kind of device they describe and what each value means.
_INTENT_STATES: Mapping[str, tuple[Kind, Mapping[str, str]]] = {
    "on_off_states": (Kind.LIGHT, {"on": "on", "off": "off"}),
    # Either way up counts: "the lift is opening" is true of a lift that is open.
    "cover_states": (Kind.LIFT, {"open": "open", "opening": "open", "closed": "closed", "closing": "closed"}),
}
# "{{ slots.name }} is {{ state.state }}": how the language's own answer says a device's state.
_COPULA_IN_ANSWER = re.compile(r"slots\.name[^{}\n]*\}\}([^{}\n]{1,24})\{\{\s*state\.state")


def _list_values(lists: Mapping[str, Any], name: str) -> Iterator[tuple[str, str]]:
    slot = lists.get(name)
    values = slot.get("values") if isinstance(slot, Mapping) else None
    for value in values if isinstance(values, list) else ():
        if isinstance(value, str):
            yield value, value
        elif (
            isinstance(value, Mapping)
            and isinstance(value.get("in"), str)
            and isinstance(value.get("out"), str)
        ):
            yield value["in"], value["out"]


def _add_intents(lexicon: dict[tuple[str, ...], Meaning], intents: Mapping[str, Any]) -> None:
    lists = intents.get("lists")
    lists = lists if isinstance(lists, Mapping) else {}
    rules = intents.get("expansion_rules")
    rules = rules if isinstance(rules, Mapping) else {}
    for name, (kind, meanings) in _INTENT_STATES.items():
        for template, out in _list_values(lists, name):
            if out in meanings:
                _add(lexicon, template, Meaning(states=((kind, meanings[out]),)), rules)
    for template, out in _list_values(lists, "color"):
        _add(lexicon, template, Meaning(colour=out), rules)
    for template, out in _list_values(lists, "on_off_domains"):
        if out == "light":
            _add(lexicon, template, Meaning(kind=Kind.LIGHT), rules)
    responses = intents.get("responses")
    answers = responses.get("intents", {}).get("HassGetState", {}) if isinstance(responses, Mapping) else {}
    for answer in answers.values() if isinstance(answers, Mapping) else ():
        for match in _COPULA_IN_ANSWER.finditer(answer if isinstance(answer, str) else ""):
            copula = _words(match.group(1))
            # One word: "está en" is where a person is, and would swallow "en su base".
            if len(copula) == 1:
                lexicon[copula] = _merged(lexicon.get(copula, Meaning()), Meaning(roles=Role.COPULA))


# --- Reading a line -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Item:
    """One word or phrase of a clause, read."""

    text: str
    meaning: Meaning
    devices: frozenset[str]  # the devices it names
    named: bool  # a word of a device's name (or a kind noun), whichever device it names

    @property
    def known(self) -> bool:
        """Return whether the word may stand before a deed without being its doer."""
        meaning = self.meaning
        return (
            self.named
            or bool(meaning.roles & ~_NOT_BEFORE_A_DEED)
            or bool(meaning.states or meaning.colour or meaning.deeds or meaning.particle or meaning.kind)
        )


# A question word, an agent, a conjunction, a negation or a condition before a verb makes it no claim.
_NOT_BEFORE_A_DEED = Role.QUESTION | Role.AGENT | Role.CONJUNCTION | Role.NEGATION | Role.CONDITION
# What may stand before a state word: "Yes, the lift is now up".
_BEFORE_A_STATE = Role.LEAD | Role.ADVERB | Role.ARTICLE | Role.COPULA
_AFTER_A_STATE = Role.LEAD | Role.ADVERB
_ARTICLE_CHARS = 3


@dataclass(frozen=True, slots=True)
class _Clause:
    tokens: tuple[_Token, ...]
    sentence: int
    question: bool
    # Split from the clause before by a conjunction: "Alex raised and lowered the lift".
    joined: bool


@dataclass(frozen=True, slots=True)
class _Claim:
    device: str
    claimed: str
    deed: bool
    colour: str = ""
    # A deed said as done ("I raised the lift"), not under way or to come ("I'll raise it").
    done: bool = False
    # A state said not to hold: "Rover 3 is not charging".
    negated: bool = False
    # A deed said as the asker's, not the overseer's: "You switched the corner light off."
    yours: bool = False


@dataclass(frozen=True, slots=True)
class _Name:
    device: str
    words: frozenset[str]
    joined: str


def false_statements(
    line: str,
    devices: Sequence[Device],
    ran: Sequence[Deed],
    words: Words,
    refused: Sequence[Deed] = (),
    earlier: Sequence[Deed] = (),
) -> tuple[FalseStatement, ...]:
    """Return what the line states of the room's devices that the room and the calls that ran show false.

    refused: what the decision's calls that did not run would have done. earlier: the overseer's
    own deeds of earlier decisions. A deed said as done is borne out by a call that ran, or by
    an earlier deed of the overseer's whose state the room still shows ("Yes, I raised the
    lift."), never by the room alone (the lift was down all along: "Lift lowered, as you
    wished." is a deed nobody did), nor after this decision's call to do it was refused.
    """
    text = unicodedata.normalize("NFC", strip_invisible(line))
    done = tuple(ran)
    denied = tuple(refused)
    before = tuple(earlier)
    by_key = {device.key: device for device in devices}
    names = _device_names(devices)
    found: dict[tuple[str, str, str, bool], FalseStatement] = {}
    read = [
        (clause, _items(clause.tokens, names, devices, words))
        for clause in _clauses(text, names, devices, words)
    ]
    conditional = {clause.sentence for clause, items in read if _conditional(items)}
    blocked = False
    # The devices the clause before stated something of, for a clause of the same sentence naming
    # none: "Rover 3 is idle and not charging", "Rover 3 is on its dock, charging".
    subject: list[str] = []
    sentence = -1
    for clause, items in read:
        if clause.sentence != sentence:
            subject, sentence = [], clause.sentence
        if clause.joined and _starts_with_verb(items):
            # "Alex raised and lowered the lift": the second deed is Alex's too.
            blocked = clause.question or _negated(items) or blocked
        else:
            blocked = clause.question or _negated(items) or _other_subject(items)
        if blocked or clause.sentence in conditional:
            # A clause that opens with a denial of nothing the room shows leaves the subject to
            # the clause after it: "…, sin ningún driver y sin estar en el estado de carga"
            # (scripts/develop's overseer). One with a subject of its own ("la otra no") ends it.
            if clause.question or clause.sentence in conditional or not _denies_nothing(items):
                subject = []
            continue
        written = text[clause.tokens[0].start : clause.tokens[-1].end]
        if subject and not any(item.devices for item in items):
            claims = list(_carried_claims(items, subject, by_key))
        else:
            claims = list(_claims(items, by_key))
        subject = [claim.device for claim in claims if not claim.deed]
        for claim in claims:
            device = by_key[claim.device]
            truth = _false(claim, device, done, denied, before)
            if truth is not None:
                claimed = f"not {claim.claimed}" if claim.negated else claim.claimed
                statement = FalseStatement(device.key, written, claimed, claim.deed, truth, claim.yours)
                found.setdefault((device.key, written, claimed, claim.deed), statement)
    return tuple(found.values())


def _device_names(devices: Sequence[Device]) -> tuple[_Name, ...]:
    names = []
    for device in devices:
        for name in device.names:
            words = _words(name)
            if words:
                names.append(_Name(device.key, frozenset(words), "".join(words)))
    return tuple(names)


def _clauses(
    text: str, names: tuple[_Name, ...], devices: Sequence[Device], words: Words
) -> Iterator[_Clause]:
    sentence: list[_Token] = []
    count = 0
    for token in _tokens(text):
        sentence.append(token)
        if token.text[0] in _ENDS:
            yield from _sentence_clauses(sentence, count, names, devices, words)
            sentence = []
            count += 1
    if sentence:
        yield from _sentence_clauses(sentence, count, names, devices, words)


def _sentence_clauses(
    sentence: list[_Token], number: int, names: tuple[_Name, ...], devices: Sequence[Device], words: Words
) -> Iterator[_Clause]:
    asks = "?" in sentence[-1].text or "？" in sentence[-1].text
    segments: list[tuple[list[_Token], bool]] = []  # (words, after "¿")
    current: list[_Token] = []
    asked = False
    for token in sentence:
        if token.word:
            current.append(token)
            continue
        if token.text == _COLON and current:
            if len(current) <= _LABEL_WORDS and _names_a_device(current, names, devices, words):
                continue  # "Lift: raised." is one headline
            if len(current) == 1:
                current = []  # whom the line is for: "alex: the lift is up"
                continue
        if current:
            segments.append((current, asked))
        current = []
        asked = asked or token.text == _QUESTION_START
    if current:
        segments.append((current, asked))
    clauses: list[tuple[list[_Token], bool, bool]] = []  # (words, after "¿", joined)
    for segment, after_mark in segments:
        clauses.extend((part, after_mark, joined) for part, joined in _split_at_conjunctions(segment, words))
    if not clauses:
        return
    opener = words.lexicon.get((clauses[0][0][0].text,), Meaning())
    asked_from_start = asks and not any(mark for _, mark, _ in clauses) and bool(opener.roles & Role.QUESTION)
    for index, (part, after_mark, joined) in enumerate(clauses):
        question = asks and (after_mark or asked_from_start or index == len(clauses) - 1)
        yield _Clause(tuple(part), number, question, joined)


def _split_at_conjunctions(segment: list[_Token], words: Words) -> Iterator[tuple[list[_Token], bool]]:
    """Yield the parts a conjunction joins, each with whether a part came before it."""
    start, joined, index = 0, False, 0
    texts = [token.text for token in segment]
    while index < len(segment):
        length = _conjunction_at(texts, index, words)
        if not length:
            index += 1
            continue
        if index > start:
            yield segment[start:index], joined
            joined = True
        index += length
        start = index
    if start < len(segment):
        yield segment[start:], joined


def _conjunction_at(texts: list[str], index: int, words: Words) -> int:
    for length in range(min(words.longest, len(texts) - index), 0, -1):
        meaning = words.lexicon.get(tuple(texts[index : index + length]))
        if meaning is not None and meaning.roles & Role.CONJUNCTION:
            return length
    return 0


def _names_a_device(
    tokens: list[_Token], names: tuple[_Name, ...], devices: Sequence[Device], words: Words
) -> bool:
    return any(item.devices for item in _items(tuple(tokens), names, devices, words))


def _named(texts: list[str], names: tuple[_Name, ...]) -> list[frozenset[str]]:
    """Return, word by word, the devices the clause names with that word."""
    present = set(texts)
    # "aux 1" for "Aux1"; not "aspirador a" for "aspiradora".
    pairs = {
        texts[i] + texts[i + 1]: i
        for i in range(len(texts) - 1)
        if texts[i][-1].isdigit() != texts[i + 1][0].isdigit()
    }
    matches: list[tuple[_Name, list[int]]] = []
    for name in names:
        if name.words <= present:
            matches.append((name, [i for i, text in enumerate(texts) if text in name.words]))
        elif name.joined in present:
            matches.append((name, [i for i, text in enumerate(texts) if text == name.joined]))
        elif name.joined in pairs:
            matches.append((name, [pairs[name.joined], pairs[name.joined] + 1]))
    # "Aux 2" names the second light, not also one called "Aux".
    kept = [
        (name, positions)
        for name, positions in matches
        if not any(name.words < other.words and other.device != name.device for other, _ in matches)
    ]
    found: list[set[str]] = [set() for _ in texts]
    for name, positions in kept:
        for position in positions:
            found[position].add(name.device)
    return [frozenset(devices) for devices in found]


def _items(
    tokens: tuple[_Token, ...], names: tuple[_Name, ...], devices: Sequence[Device], words: Words
) -> list[_Item]:
    texts = [token.text for token in tokens]
    named = _named(texts, names)
    single = {kind: [d.key for d in devices if d.kind is kind] for kind in Kind}
    items: list[_Item] = []
    index = 0
    while index < len(texts):
        if named[index]:
            items.append(_Item(texts[index], Meaning(), named[index], True))
            index += 1
            continue
        length, meaning = 1, Meaning()
        for size in range(min(words.longest, len(texts) - index), 0, -1):
            if any(named[index : index + size]):
                continue
            found = words.lexicon.get(tuple(texts[index : index + size]))
            if found is not None:
                length, meaning = size, found
                break
        kind = meaning.kind
        owners = single[kind] if kind is not None else []
        items.append(
            _Item(
                " ".join(texts[index : index + length]),
                meaning,
                frozenset(owners) if len(owners) == 1 else frozenset(),
                kind is not None,
            )
        )
        index += length
    return items


def _negated(items: list[_Item]) -> bool:
    """Return whether the clause denies or doubts what it says: a negation or a modal anywhere.

    One plain denial right before a state, or before the copula right before it, is a claim of its
    own ("Rover 3 is not charging", "no está cargando"), read as one (_state_claims).
    """
    denials = [
        index
        for index, item in enumerate(items)
        if not item.named and item.meaning.roles & (Role.NEGATION | Role.MODAL)
    ]
    return bool(denials) and not (len(denials) == 1 and _denies_a_state(items, denials[0]))


def _denies_nothing(items: list[_Item]) -> bool:
    """Return whether the clause opens with a negation and names no device, state, colour or deed."""
    return (
        bool(items)
        and not items[0].named
        and bool(items[0].meaning.roles & Role.NEGATION)
        and not any(
            item.devices or item.meaning.states or item.meaning.colour or item.meaning.deeds for item in items
        )
    )


def _denies_a_state(items: list[_Item], index: int) -> bool:
    if not _denial(items[index]) or items[index].meaning.roles & Role.MODAL:
        return False
    # Only a copula between: "not just charging" says it charges, and more.
    for item in items[index + 1 :]:
        if item.named:
            return False
        if item.meaning.states or item.meaning.colour:
            return True
        if not item.meaning.roles & Role.COPULA or item.meaning.roles & Role.ADVERB:
            return False
    return False


def _denial(item: _Item) -> bool:
    return not item.named and bool(item.meaning.roles & Role.NOT)


def _conditional(items: list[_Item]) -> bool:
    """Return whether the clause makes its sentence a condition ("si" alone is "sí", a yes)."""
    return len(items) > 1 and any(item.meaning.roles & Role.CONDITION for item in items if not item.named)


def _is_verb(item: _Item) -> bool:
    return bool(item.meaning.deeds) and not item.named


def _skip_leads(items: list[_Item]) -> list[_Item]:
    index = 0
    while (
        index < len(items)
        and items[index].meaning.roles & (Role.LEAD | Role.ADVERB)
        and not items[index].named
    ):
        index += 1
    return items[index:]


def _starts_with_verb(items: list[_Item]) -> bool:
    rest = _skip_leads(items)
    return bool(rest) and _is_verb(rest[0])


def _other_subject(items: list[_Item]) -> bool:
    """Return whether the clause opens with a word of its own: a name, "someone", "thanks"."""
    rest = _skip_leads(items)
    return bool(rest) and not rest[0].known and not _article_like(rest, 0)


def _article_like(items: list[_Item], index: int) -> bool:
    """Return whether an unknown word is a short one right before a name ("la", "de", "het").

    A language without a table of ours has its articles unknown: a statement of state still
    reads "La luce del banco è accesa" by the name, its copula and its state word.
    """
    item = items[index]
    return (
        not item.known
        and len(item.text) <= _ARTICLE_CHARS
        and index + 1 < len(items)
        and items[index + 1].named
    )


def _claims(items: list[_Item], by_key: Mapping[str, Device]) -> Iterator[_Claim]:
    mentioned = [
        key for key in dict.fromkeys(key for item in items for key in sorted(item.devices)) if key in by_key
    ]
    if not mentioned:
        return
    deeds = _deed_claims(items, mentioned, by_key)
    if deeds is not None:
        yield from deeds
        return
    yield from _state_claims(items, mentioned, by_key)


def _deed_claims(
    items: list[_Item], mentioned: list[str], by_key: Mapping[str, Device]
) -> list[_Claim] | None:
    """Return the deeds the clause says the overseer did, or None when it says no deed."""
    if any(_denial(item) for item in items):
        return None  # "I have not lowered the lift" says no deed, "Lift not raised." a state
    for index, verb in enumerate(items):
        if not _is_verb(verb):
            continue
        before = items[:index]
        if not all(item.known for item in before):
            return None  # someone else did it, or words we cannot read
        if any(item.meaning.roles & Role.EARLIER for item in items):
            return []  # a deed of an earlier decision: none of this one's calls is its record
        roles = _NO_ROLE
        device_seen = passive = copula = False
        for item in before:
            if item.devices:
                device_seen = True
            elif device_seen and item.meaning.roles & Role.PASSIVE:
                passive = True
            elif device_seen and item.meaning.roles & Role.COPULA:
                copula = True
            roles |= item.meaning.roles
        if copula and not passive:
            return None  # "The lift is raised": a state
        if passive and any(item.meaning.roles & Role.AGENT for item in items[index + 1 :]):
            return None  # "lowered by Sam"
        head = bool(before) and bool(_skip_adverbs(before)[-1:] and _skip_adverbs(before)[-1].named)
        # The asker as the subject ("You switched it off", "has apagado"), not an object ("para
        # usted he subido"), a passive's ("vous a été monté") or a state's ("you have the lift raised").
        you = _asker_first(before) and not roles & Role.ME and not passive and not head
        me = bool(roles & (Role.ME | Role.PROMISE)) or you
        aux = bool(roles & Role.AUX) or passive
        forms = [form for form in verb.meaning.deeds if _satisfied(form.needs, device_seen, me, aux, head)]
        if not forms:
            continue
        you = you or any(form.needs & Need.YOU for form in forms)
        done = not roles & (Role.PROMISE | Role.ONGOING) and any(
            _done(form.needs, aux, head) for form in forms
        )
        # The deed reaches as far as words we read: "the bench light blue", not "near the shelf".
        after = items[index + 1 :]
        reach = [*before, *after[: next((n for n, item in enumerate(after) if not item.known), len(after))]]
        objects = {key for item in reach for key in item.devices}
        if not objects:
            return None  # the verb's object is something else: "I started a rumour about the Neato"
        rest = [item for item in reach if not item.devices]
        particles = {item.meaning.particle for item in rest if item.meaning.particle is not None}
        colours = {item.meaning.colour for item in rest if item.meaning.colour}
        acts: set[Act] = set()
        for form in forms:
            acts |= form.acts or particles
        if colours:
            acts.add(Act.COLOUR)
        return [
            claim
            for key in mentioned
            if key in objects and (claim := _deed_claim(by_key[key], acts, colours, done, you)) is not None
        ]
    return None


def _asker_first(before: list[_Item]) -> bool:
    """Return whether the words before a verb open, past any leads, with the second person."""
    rest = _skip_leads(before)
    return bool(rest) and not rest[0].named and bool(rest[0].meaning.roles & Role.YOU)


def _skip_adverbs(items: list[_Item]) -> list[_Item]:
    end = len(items)
    while end and items[end - 1].meaning.roles & Role.ADVERB and not items[end - 1].named:
        end -= 1
    return items[:end]


def _done(needs: Need, aux: bool, head: bool) -> bool:
    """Return whether a form says a deed done: one an auxiliary may carry, read as a past or a participle.

    "I raised", "he subido", "Lift raised", "j'ai monté", "apagaste" are done; "je monte", "I set"
    (a first person's present, or a past no one can tell from it) are not.
    """
    return bool(needs & Need.YOU or (needs & Need.AUX and (aux or head or needs & Need.BARE)))


def _satisfied(needs: Need, device_seen: bool, me: bool, aux: bool, head: bool) -> bool:
    return bool(
        (needs & Need.BARE and (not device_seen or me or aux))
        or (needs & Need.ME and me)
        or (needs & Need.AUX and aux)
        or (needs & Need.HEAD and head)
        or needs & Need.YOU
    )


def _deed_claim(device: Device, acts: set[Act], colours: set[str], done: bool, yours: bool) -> _Claim | None:
    own = {_KIND_ACTS[device.kind][act] for act in acts if act in _KIND_ACTS[device.kind]}
    if device.kind is Kind.LIGHT and Act.COLOUR in own:
        # A colour turns a light on: "encendí la luz en azul" sets a colour, "turned it off blue" nothing.
        own.discard(Act.ON)
        if len(colours) != 1:
            return None
    if len(own) != 1:
        return None
    act = own.pop()
    colour = next(iter(colours)) if act is Act.COLOUR else ""
    return _Claim(device.key, act.value, True, colour, done, yours=yours)


def _state_claims(items: list[_Item], mentioned: list[str], by_key: Mapping[str, Device]) -> Iterator[_Claim]:
    kinds = {by_key[key].kind for key in mentioned}
    for index, item in enumerate(items):
        if item.named or not (any(kind in kinds for kind, _ in item.meaning.states) or item.meaning.colour):
            continue
        before, after = items[:index], items[index + 1 :]
        if not any(other.devices for other in before):
            yield from _inverted_claims(before, item, after, mentioned, by_key)
            return
        # A verb of becoming is one too: "The light turned blue" says what it is now.
        if any(_is_verb(other) and not other.meaning.roles & Role.COPULA for other in before):
            return
        if not all(
            other.named
            or other.meaning.roles & _BEFORE_A_STATE
            or _denial(other)
            or _article_like(items, position)
            for position, other in enumerate(before)
        ):
            return
        negated = any(_denial(other) for other in before)
        last = _skip_adverbs([other for other in before if not _denial(other)])[-1:]
        if not last or not (last[0].named or last[0].meaning.roles & Role.COPULA):
            return
        colours = [other.meaning.colour for other in after if other.meaning.colour and not other.named]
        if not all(
            other.meaning.roles & _AFTER_A_STATE or other.meaning.colour for other in after if not other.named
        ):
            return
        named_before = [key for key in mentioned if any(key in other.devices for other in before)]
        for key in named_before:
            claim = _state_claim(by_key[key], item.meaning, colours, negated)
            if claim is not None:
                yield claim
        return


def _carried_claims(items: list[_Item], subject: list[str], by_key: Mapping[str, Device]) -> Iterator[_Claim]:
    """Yield the states a clause naming nothing says of the devices of the clause before it.

    "Rover 3 is idle and not charging": the second clause is Rover 3's too. Only a state and the
    words that lead to it count: "and the party is on" has a subject of its own.
    """
    index = next((n for n, item in enumerate(items) if item.meaning.states or item.meaning.colour), None)
    if index is None:
        return
    before, after = items[:index], items[index + 1 :]
    # Not a lead either: "Rover 3 is charging now, then racing again" says what comes next.
    if not all(_denial(other) or other.meaning.roles & (Role.COPULA | Role.ADVERB) for other in before):
        return
    if not all(other.meaning.roles & _AFTER_A_STATE for other in after):
        return
    negated = any(_denial(other) for other in before)
    for key in subject:
        claim = _state_claim(by_key[key], items[index].meaning, [], negated)
        if claim is not None:
            yield claim


def _inverted_claims(
    before: list[_Item], state: _Item, after: list[_Item], mentioned: list[str], by_key: Mapping[str, Device]
) -> Iterator[_Claim]:
    """Yield the states a clause says with its direction first: "Up goes the lift", "Off go the lights".

    Only a verb of motion may stand between, and only the device's words after it: "Up it goes",
    "There goes the lift, up" name nothing there, and say nothing.
    """
    if _skip_leads(before) or not after or after[0].named or not after[0].meaning.roles & Role.MOTION:
        return
    if not all(other.named or other.meaning.roles & (Role.ARTICLE | _AFTER_A_STATE) for other in after[1:]):
        return
    for key in mentioned:
        claim = _state_claim(by_key[key], state.meaning, [])
        if claim is not None:
            yield claim


def _state_claim(
    device: Device, meaning: Meaning, colours_after: list[str], negated: bool = False
) -> _Claim | None:
    values = {value for kind, value in meaning.states if kind is device.kind}
    if device.kind is Kind.LIGHT:
        colours = {meaning.colour, *colours_after} - {""} if (meaning.colour or values == {"on"}) else set()
        if len(colours) > 1:
            return None
        if colours:
            colour = colours.pop()
            # "Not blue" is any other colour, or off: nothing here reads it.
            return None if negated else _Claim(device.key, colour, False, colour)
    if len(values) != 1:
        return None
    return _Claim(device.key, values.pop(), False, negated=negated)


# --- Judging --------------------------------------------------------------------------------------

_UP, _DOWN = frozenset({"open", "opening"}), frozenset({"closed", "closing"})
# A vacuum claim and the states that bear it out. Docked and on its way there are one side: after
# "send it home" ran, "The vacuum is docked." is as true as "The lift is up." after "lift_up".
_VACUUM_TRUE: Mapping[str, frozenset[str]] = {
    "cleaning": frozenset({"cleaning"}),
    "docked": frozenset({"docked", "returning"}),
    "returning": frozenset({"returning", "docked"}),
    "idle": frozenset({"idle", "docked", "paused", "returning"}),
    "paused": frozenset({"paused", "idle"}),
    "error": frozenset({"error"}),
}
_VACUUM_STATES = frozenset().union(*_VACUUM_TRUE.values())
# The states whose every word means the state itself, so denying one says the room does not show
# it. Not the lift's or the vacuum's: "The lift isn't rising, it's up", "Neato isn't charging,
# it's full" deny a motion or a sign of the state, and are true of it; nor a rover's driving
# ("isn't racing, it's cruising") or its worked-out idle.
_DENIABLE: Mapping[Kind, frozenset[str]] = {
    Kind.LIGHT: frozenset({"on", "off"}),
    Kind.ROVER: frozenset({"docked", "charging"}),
}
# A colour said and the room's colour names (core.world's palette) it may show as: a light set to
# "violet" reads as "pink", one set to "turquoise" as "cyan". Colours outside this table (black,
# or a CSS name only a call used) are never judged: nothing here can place them.
_NEAR: Mapping[str, frozenset[str]] = {
    **{
        name: frozenset({name})
        for name in ("red", "orange", "yellow", "green", "cyan", "blue", "purple", "pink", "white")
    },
    "violet": frozenset({"pink", "purple"}),
    "magenta": frozenset({"pink", "purple"}),
    "turquoise": frozenset({"cyan"}),
    "teal": frozenset({"green", "cyan"}),
    "gold": frozenset({"yellow", "orange"}),
    "brown": frozenset({"red", "orange", "purple"}),
}


def _false(
    claim: _Claim,
    device: Device,
    ran: tuple[Deed, ...],
    refused: tuple[Deed, ...],
    earlier: tuple[Deed, ...],
) -> str | None:
    """Return the device's state as the room shows it when the claim is false; None when true or unknown."""
    now = expected_state(device, ran)
    truth = _described(now)
    if claim.yours:
        # The asker may have done it themselves, out of sight; not after this decision's call did
        # it, or did something else to that device.
        return truth if claim.done and any(deed.device == device.key for deed in ran) else None
    if claim.deed:
        # What ran is known whatever the device reads, so a deed is judged even of a device that
        # cannot be read (a lift run by scripts).
        if any(_bears_out(claim, deed) for deed in ran if deed.device == device.key):
            return None
        tried = any(_bears_out(claim, deed) for deed in refused if deed.device == device.key)
        did = any(_bears_out(claim, deed) for deed in earlier if deed.device == device.key)
        return None if claim.done and did and not tried and _shows(claim, now) else truth
    if not device.known:
        return None
    if claim.negated:
        # Judged by the room alone, and only where it shows the state outright: "not on yet" is
        # true of a light a call of this decision just turned on.
        if any(deed.device == device.key for deed in ran):
            return None
        return _described(device) if _shows_outright(claim, device) else None
    verdict = _state_true(claim, now)
    return truth if verdict is False else None


def _shows_outright(claim: _Claim, device: Device) -> bool:
    if claim.claimed not in _DENIABLE.get(device.kind, ()):
        return False
    if device.kind is Kind.ROVER:
        return dict(device.facts).get(claim.claimed) is True
    return device.state == claim.claimed


def _shows(claim: _Claim, device: Device) -> bool:
    """Return whether the device shows the state the claimed deed leaves it in ("I raised it": it is up)."""
    left = LEFT_BY.get(Act(claim.claimed))
    return (
        left is not None
        and device.known
        and _state_true(_Claim(device.key, left, False, claim.colour), device) is True
    )


def _bears_out(claim: _Claim, deed: Deed) -> bool:
    if claim.claimed == Act.COLOUR.value:
        return deed.act is Act.COLOUR and (not claim.colour or _same_colour(claim.colour, deed.value))
    if claim.claimed == Act.ON.value:
        return deed.act in (Act.ON, Act.COLOUR)
    return deed.act.value == claim.claimed


def _same_colour(said: str, value: str) -> bool:
    if said == value or said not in _NEAR or value not in _NEAR:
        return True
    return bool(_NEAR[said] & _NEAR[value])


def _state_true(claim: _Claim, device: Device) -> bool | None:
    state = device.state
    if device.kind is Kind.ROVER:
        return dict(device.facts).get(claim.claimed)
    if device.kind is Kind.LIFT:
        if state not in _UP | _DOWN:
            return None
        return state in (_UP if claim.claimed == "open" else _DOWN)
    if device.kind is Kind.VACUUM:
        if state not in _VACUUM_STATES:
            return None
        return state in _VACUUM_TRUE.get(claim.claimed, frozenset())
    if state not in ("on", "off"):
        return None
    if not claim.colour:
        return state == claim.claimed
    if state == "off":
        return False
    if not device.colour or claim.colour not in _NEAR:
        return None
    # The room's colour is a palette name, or a name a call of this decision just set ("turquoise").
    return _same_colour(claim.colour, device.colour)


def _described(device: Device) -> str:
    if device.kind is Kind.LIGHT and device.state == "on" and device.colour:
        return f"on ({device.colour})"
    return device.state
