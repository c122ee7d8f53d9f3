"""What the asker's words ask a room device to do, read before the model is asked.

Home Assistant's own sentences (the home-assistant-intents package, matched by hassil) say
which words ask for which action; a small table of ours adds what they lack for this room (the
lift raised and lowered, the vacuum started and sent home, a light made a colour). An answer to
words that ask for an act may do that act or nothing: never its opposite. Only the asker's own
words ask: what they quote, report or ask about ("how do I lower the lift") asks for nothing.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any

from hassil.intents import Intents, SlotList, TextSlotList
from hassil.recognize import RecognizeResult, recognize_all
from hassil.util import remove_punctuation

from .acts import Act, Deed, Device, Kind
from .language import opens_a_question
from .request_words import Role, act_phrases, deed_phrases, expand, role_phrases, says
from .text import fold, strip_invisible
from .unseen import unseen_intents

# Longer text is a story or a paste, not a request; matching it would cost more than it tells.
MAX_REQUEST_CHARS = 300
# Matches compared before the words are called ambiguous: a request matches a handful at most.
_MAX_MATCHES = 16
# Words are read clause by clause when they do not match whole; a long list is read in part.
_CLAUSE = re.compile(r"[,;:.!?]+")
_MAX_CLAUSES = 4
_QUESTION = re.compile(r"[?¿？]")
# Words after an order that are read off its end, at most: "now", "for us", "del todo".
_MAX_TRAILING = 3
# Quotation marks, as each language opens and closes them (“…” „…“ «…» »…« 「…」): any mark of
# a kind opens a quotation and the next of that kind closes it. A single mark quotes only at a
# word's edge, so the apostrophes of "don't", "l'ascenseur" and "don’t" stay words.
_DOUBLE_MARKS = '"“”„‟«»「」『』〝〞〟'
_SINGLE_MARKS = "'‘’‚‛‹›"
_QUOTED = re.compile(
    rf"[{_DOUBLE_MARKS}](?P<double>[^{_DOUBLE_MARKS}]*)[{_DOUBLE_MARKS}]?"
    rf"|(?<!\w)[{_SINGLE_MARKS}](?=\w)(?P<single>.*?)(?:(?<!\s)[{_SINGLE_MARKS}](?!\w)|$)",
    re.DOTALL,
)

# What a quotation leaves in its place: a word no name, deed or sentence has, so that "sam says
# "hi"" still says its words after its verb, as "sam says hi" does.
_QUOTATION = "_"

# Verbs of saying, asking and explaining, in the forms a report or a relay takes: someone says or
# said it ("sam says lower the lift", "sam dice que bajes el ascensor"), tell or ask someone to
# ("dile a sam que…", "sag Sam, …"), explain how ("explícame cómo…"). A clause that reports words
# is someone else's, not the asker's order, and no data we have marks one: Home Assistant's
# sentences are orders, and request_words' tables hold the words around one. English's forms are
# the first person's too ("I said lower the lift"): that asker's order counts when given as one.
_REPORTING: Mapping[str, str] = {
    "en": "say|says|said|saying|tell|tells|told|telling|ask|asks|asked|asking|explain|explains|explained",
    "es": "dice|dicen|dijo|dijeron|decía|dime|dile|diles|decir|pide|piden|pidió|pidieron|pídele|pedir"
    "|pregunta|preguntan|preguntó|preguntar|explica|explícame|explicar",
    "de": "sagt|sagte|sagten|gesagt|sag|sagen|meint|meinte|fragt|fragte|gefragt|frag|fragen|bittet|bat"
    "|gebeten|erklärt|erklärte|erklär|erkläre|erklären",
    "fr": "dit|disent|disait|dire|dis-moi|dis-lui|dites-lui|demande|demandent|demandé|demandait|demander"
    "|explique|expliquez|expliqué|expliquer",
}

# Home Assistant's intent, then the device's kind, give the act the words ask for.
_ACTS: Mapping[str, Mapping[Kind, Act]] = {
    "HassTurnOn": {Kind.LIGHT: Act.ON, Kind.LIFT: Act.OPEN, Kind.VACUUM: Act.START},
    # Turning a vacuum off stops it where it is: no act of ours is that.
    "HassTurnOff": {Kind.LIGHT: Act.OFF, Kind.LIFT: Act.CLOSE},
    "HassLightSet": {Kind.LIGHT: Act.COLOUR},
    "HassVacuumStart": {Kind.VACUUM: Act.START},
    "HassVacuumReturnToBase": {Kind.VACUUM: Act.DOCK},
}
# The domain Home Assistant's sentences require of a name (a lift is a cover, even one run by scripts).
_DOMAINS = {Kind.LIGHT: "light", Kind.LIFT: "cover", Kind.VACUUM: "vacuum"}

# Our sentences, in Home Assistant's intents format and hassil's template syntax, for what its
# data lacks. Rule names start with "our_" so they never replace one of its own. Accents are
# optional when matched (see _bare), so the words are written as people spell them.
_OUR_SENTENCES: Mapping[str, Mapping[str, Any]] = {
    "en": {
        "expansion_rules": {
            "our_name": "[(the|my|our)] {name}",
            "our_move": "(put|bring|send|take|move|run|get)",
            "our_light": "(light|lights|lamp|lamps)",
            "our_colour": "(colour|color)",
            "our_dock": "(base|dock|charger)",
        },
        "intents": {
            "HassTurnOn": [
                {
                    "sentences": [
                        "<our_move> <our_name> up",
                        "<our_move> up <our_name>",
                        "hoist <our_name> [up]",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassTurnOff": [
                {
                    "sentences": [
                        "<our_move> <our_name> down",
                        "<our_move> down <our_name>",
                        "drop <our_name>",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassLightSet": [
                {
                    "sentences": [
                        "(make|set|turn|change|paint) <our_name> [<our_light>] [<our_colour>] [to] {color}",
                        "(make|set|turn|change) [the] <our_colour> of <our_name> [<our_light>] [to] {color}",
                    ],
                    "requires_context": {"domain": "light"},
                }
            ],
            "HassVacuumStart": [
                {
                    "sentences": [
                        "(start|run|launch) [up] <our_name> [(cleaning|vacuuming)]",
                        "(turn|switch) on <our_name>",
                        "(turn|switch) <our_name> on",
                        "(send|set) <our_name> (cleaning|vacuuming|to clean|to vacuum|off)",
                        "(let|have|get) <our_name> (clean|vacuum)",
                    ],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
            "HassVacuumReturnToBase": [
                {
                    "sentences": [
                        "(send|bring|take|return|get) <our_name> [back] (home|to [(its|the)] <our_dock>)",
                        "(send|bring|take|get) <our_name> back",
                        "dock <our_name>",
                    ],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
        },
    },
    "es": {
        "expansion_rules": {
            "our_name": "[(el|la|los|las)] {name}",
            "our_luz": "[(el|la)] (luz|lámpara|foco|bombilla|bombillo)",
            "our_de": "(de|del|de la)",
            "our_pon": "(pon|poné|ponga|poner|cambia|cambiá|cambie|cambiar|deja|dejá|deje|dejar)",
            "our_prende": "(enciende|encendé|encienda|prende|prendé|prenda)",
            "our_lleva": "(pon|poné|ponga|manda|mandá|mande|lleva|llevá|lleve)",
            "our_a_limpiar": "(a (limpiar|aspirar|funcionar|andar|trabajar)|en marcha)",
        },
        "intents": {
            "HassTurnOn": [
                {
                    "sentences": [
                        "(alza|alzá|alce|alzar|eleva|elevá|eleve|elevar) <our_name>",
                        "(haz|hacé|haga|hacer) subir <our_name>",
                        "<our_lleva> <our_name> arriba",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassTurnOff": [
                {
                    "sentences": [
                        "(desciende|descendé|descienda|descender) <our_name>",
                        "(haz|hacé|haga|hacer) bajar <our_name>",
                        "<our_lleva> <our_name> abajo",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassLightSet": [
                {
                    "sentences": [
                        "<our_pon> [<our_luz> <our_de>] <our_name> [(en|a|al|de)] [color] {color}",
                        "<our_pon> [(en|de)] [color] {color} [<our_luz> <our_de>] <our_name>",
                        "<our_prende> [<our_luz> <our_de>] <our_name> (en|de) [color] {color}",
                    ],
                    "requires_context": {"domain": "light"},
                }
            ],
            "HassVacuumStart": [
                {
                    "sentences": [
                        "(pon|poné|ponga|poner|arranca|arrancá|arranque|arrancar|lanza|lanzá|lance|lanzar) "
                        "<our_name> [<our_a_limpiar>]",
                        "(pon|poné|ponga|poner) (en marcha|a funcionar|a limpiar) <our_name>",
                        "(<our_prende>|inicia|iniciá|inicie|activa|activá|active) <our_name> <our_a_limpiar>",
                        "(manda|mandá|mande|mandar|envía|enviá|envíe|enviar) <our_name> <our_a_limpiar>",
                    ],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
            "HassVacuumReturnToBase": [
                {
                    "sentences": [
                        "(manda|mandá|mande|mandar|envía|enviá|envíe|enviar|lleva|llevá|lleve|llevar|"
                        "devuelve|devolvé|devuelva|devolver|regresa|regresá|regrese|regresar) <our_name> "
                        "(a (su|la) (base|estación|cargador)|a casa|de vuelta [a (su|la) base])",
                    ],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
        },
        # Home Assistant's Spanish colours are masculine; a light ("la luz") is made "roja".
        "lists": {
            "color": [
                {"in": "roja", "out": "red"},
                {"in": "blanca", "out": "white"},
                {"in": "negra", "out": "black"},
                {"in": "amarilla", "out": "yellow"},
                {"in": "morada", "out": "purple"},
                {"in": "anaranjada", "out": "orange"},
                {"in": "rosada", "out": "pink"},
            ]
        },
    },
    "de": {
        "expansion_rules": {
            "our_name": "[(der|die|das|den|dem|des)] {name}",
            "our_move": "(fahr|fahre|fahrt|bring|bringe|bringt|beweg|bewege|bewegt|schick|schicke|schickt|"
            "hol|hole|holt|lass|lasse|lasst)",
            "our_up": "(hoch|rauf|herauf|hinauf|nach oben)",
            "our_down": "(runter|herunter|hinunter|nach unten)",
            "our_licht": "[(das|die)] (Licht|Lampe|Leuchte)",
            "our_home": "(nach Hause|heim|zur (Basis|Ladestation|Station)|an die Ladestation|in die Basis)",
        },
        "intents": {
            "HassTurnOn": [
                {
                    "sentences": [
                        "<our_move> <our_name> <our_up>",
                        "<our_up> mit <our_name>",
                        "(heb|hebe|hebt) <our_name> [an]",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassTurnOff": [
                {
                    "sentences": [
                        "<our_move> <our_name> (<our_down>|ab)",
                        "<our_down> mit <our_name>",
                        "(senk|senke|senkt) <our_name> [ab]",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassLightSet": [
                {
                    "sentences": [
                        "(mach|mache|macht|stell|stelle|stellt|schalt|schalte|schaltet) [<our_licht>] "
                        "<our_name> [auf] {color}",
                    ],
                    "requires_context": {"domain": "light"},
                }
            ],
            "HassVacuumStart": [
                {
                    "sentences": ["(lass|lasse|lasst|schick|schicke|schickt) <our_name> (saugen|putzen|los)"],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
            "HassVacuumReturnToBase": [
                {
                    "sentences": [
                        "(schick|schicke|schickt|bring|bringe|bringt|fahr|fahre|fahrt) <our_name> "
                        "(zurück [<our_home>]|<our_home>)",
                    ],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
        },
    },
    "fr": {
        "expansion_rules": {
            "our_le": "(le |la |les |l')",
            "our_name": "[<our_le>]{name}",
            "our_de": "(du |de la |de l'|des |de )",
            "our_mets": "(mets|mettez|mettre|passe|passez|passer|règle|réglez|régler|allume|allumez|allumer)",
            "our_fais": "(fais|faites|faire)",
        },
        "intents": {
            "HassTurnOn": [
                {
                    "sentences": [
                        "<our_fais> monter <our_name>",
                        "(remonte|remontez|remonter|lève|levez|lever|soulève|soulevez|soulever) <our_name>",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassTurnOff": [
                {
                    "sentences": [
                        "<our_fais> descendre <our_name>",
                        "(descendez|redescends|redescendez|redescendre) <our_name>",
                        "(abaisse|abaissez|abaisser) <our_name>",
                    ],
                    "requires_context": {"domain": "cover"},
                }
            ],
            "HassLightSet": [
                {
                    "sentences": [
                        "<our_mets> <our_name> (en|au) {color}",
                        "<our_mets> [<our_le>](lumière|lampe) [<our_de>]{name} (en|au) {color}",
                    ],
                    "requires_context": {"domain": "light"},
                }
            ],
            "HassVacuumStart": [
                {
                    "sentences": [
                        "(mets|mettez|mettre) <our_name> en (marche|route)",
                        "<our_fais> (marcher|démarrer|partir) <our_name>",
                        "(envoie|envoyez|envoyer) <our_name> (nettoyer|aspirer|faire le ménage)",
                    ],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
            "HassVacuumReturnToBase": [
                {
                    "sentences": [
                        "(renvoie|renvoyez|renvoyer|envoie|envoyez|envoyer|ramène|ramenez|ramener|remets|remettez|"
                        "remettre) <our_name> ((à|sur) (sa|la) (base|station)|à la maison)",
                    ],
                    "requires_context": {"domain": "vacuum"},
                }
            ],
        },
    },
}

# Words that open a line to the overseer before its name ("hey overseer, …"), accents folded.
_GREETINGS = frozenset({"hey", "hi", "hello", "ok", "okay", "oye", "hola", "hallo", "he", "salut", "dis"})
_WORD = re.compile(r"\w+")
_NOWHERE = TextSlotList(name=None, values=[])
# The lists asked_deeds fills: the room's names, and no areas or floors.
_FILLED = ("name", "area", "floor")
# A template's "{list}" or "{list:slot}", and its "<rule>".
_LIST_REF = re.compile(r"\{([^{}:]+)(?::[^{}]*)?\}")
_RULE_REF = re.compile(r"<([^<>]+)>")


@dataclass(frozen=True, slots=True)
class Recogniser:
    """The sentences that ask a room device for an act, in one language; built once per language.

    intents is None when Home Assistant has no sentences for the language: nothing is recognised.
    denying: the language's words that deny ("not", "don't", "no", "nunca", "nicht", "pas").
    conditions: its words that make an order wait for something ("if", "as soon as", "cuando").
    deeds: its words that say a deed ("raise", "lower", "bajar"): a second order.
    The rest are matched at a word's place, in the words _WORD reads (folded):
    leads: words that ask nothing before what a clause says ("ok", "and", "then", "pues").
    questions: words that open a question ("how", "can", "cómo", "wie", "comment").
    reporting: words that report someone's words ("says", "dice", "sagt", "dit").
    speaker: the first person, whose saying is no report ("I said", "yo digo").
    """

    intents: Intents | None = None
    denying: frozenset[tuple[str, ...]] = frozenset()
    conditions: frozenset[tuple[str, ...]] = frozenset()
    deeds: frozenset[tuple[str, ...]] = frozenset()
    leads: frozenset[tuple[str, ...]] = frozenset()
    questions: frozenset[tuple[str, ...]] = frozenset()
    reporting: frozenset[tuple[str, ...]] = frozenset()
    # The first person ("I", "yo", "ich", "je"): a saying of theirs is the asker's own words.
    speaker: frozenset[tuple[str, ...]] = frozenset()
    # Phrases (folded words) that say an act, with the acts they may say ("lower": the lift closed).
    acts: Mapping[tuple[str, ...], frozenset[Act]] = field(default_factory=dict)
    # Home Assistant's sentences that ask what the room never shows (core/unseen.py).
    unseen: Intents | None = None


def recogniser_for(language: str, intents: Mapping[str, Any] | None) -> Recogniser:
    """Build the recogniser for a language from Home Assistant's intents data and our sentences."""
    if not intents:
        return Recogniser()
    base = language.partition("-")[0].lower()
    ours = _OUR_SENTENCES.get(base, {})
    rules = {**intents.get("expansion_rules", {}), **ours.get("expansion_rules", {})}
    lists = dict(intents.get("lists", {}))
    for name, values in ours.get("lists", {}).items():
        lists[name] = {"values": [*lists.get(name, {}).get("values", ()), *values]}
    theirs = intents.get("intents", {})
    entries = {
        intent: [
            kept
            for entry in (*theirs.get(intent, {}).get("data", ()), *ours.get("intents", {}).get(intent, ()))
            if (kept := _asking(intent, entry, rules, lists)) is not None
        ]
        for intent in _ACTS
    }
    data = {
        "language": intents.get("language", language),
        "settings": intents.get("settings", {}),
        "skip_words": intents.get("skip_words", []),
        "expansion_rules": rules,
        "lists": lists,
        "intents": {intent: {"data": data} for intent, data in entries.items() if data},
    }
    return Recogniser(
        Intents.from_dict(_bare_data(data)),
        role_phrases(language, Role.NEGATION),
        role_phrases(language, Role.CONDITION),
        deed_phrases(language),
        _read_as_words((*role_phrases(language, Role.LEAD), *role_phrases(language, Role.CONJUNCTION)))
        | {(greeting,) for greeting in _GREETINGS},
        _read_as_words(role_phrases(language, Role.QUESTION)),
        # English underneath, as people mix it in (as request_words' phrases have it).
        _read_as_words(
            tuple(text.split())
            for code in dict.fromkeys(("en", base))
            for text in expand(_REPORTING.get(code, ""))
        ),
        _read_as_words(role_phrases(language, Role.ME)),
        act_phrases(language),
        unseen_intents(intents),
    )


def _read_as_words(phrases: Iterable[tuple[str, ...]]) -> frozenset[tuple[str, ...]]:
    """Return phrases as _WORD reads them: request_words keeps "d'" and "shouldn't" whole, _WORD does not."""
    return frozenset(words for phrase in phrases if (words := tuple(_WORD.findall(fold(" ".join(phrase))))))


def asked_deeds(
    text: str, devices: Sequence[Device], recogniser: Recogniser, addressed_as: Sequence[str] = ()
) -> frozenset[Deed]:
    """Return the acts on a room device the words ask for: one, several that fit, or none.

    Several when one name fits more than one device ("the aux light", two aux lights), or when
    separate clauses each ask for one ("this is alex: raise the lift, and the bench light
    blue"): any of them is what was asked. Act.ANY on each device named by words no sentence
    reads ("the neato needs its dock"). None (the empty set) for words that deny anywhere
    ("don't lower the lift", "roast rover 3, don't touch the lift"), a question no sentence
    reads (a "?", or a clause opening with a question word: "how do I lower the lift"), an
    opinion naming no device, an act with no single device ("the lights"), two acts on one
    device, and words this recogniser cannot read (too long, a language Home Assistant has no
    sentences for): an answer to them may not act on the room.
    Only the asker's own words ask: quoted words (but a name in marks) and a clause that
    reports someone's ("sam says lower the lift", "sam dice que bajes el ascensor") ask for
    nothing, and a clause that only says who speaks ("sam says: lower the lift") makes the
    words someone's; an order in a clause of its own still counts ("sam says hi, lower the lift").
    addressed_as: the overseer's name and aliases, which may open or close the words.
    """
    if recogniser.intents is None or len(text) > MAX_REQUEST_CHARS:
        return frozenset()
    plain = unicodedata.normalize("NFKC", strip_invisible(text))
    quotable = (*(name for device in devices for name in device.names), *addressed_as)
    words = _unaddressed(_bare(_unquoted(plain, quotable)), addressed_as)
    names = _name_list(devices)
    # A denial reverses what a sentence reads ("do not: lower the lift") and makes a named
    # device what is not wanted ("roast rover 3, don't touch the lift"): it asks for nothing.
    if not words or names is None or says(words, recogniser.denying):
        return frozenset()
    by_key = {device.key: device for device in devices}
    whole = _read_order(words, recogniser, names, by_key)
    if whole is not None:
        return whole
    # Home Assistant's sentences match whole words only: read each clause on its own.
    clauses = [clause for part in _CLAUSE.split(words) if (clause := part.strip())]
    reports = [_reports(clause, recogniser) for clause in clauses]
    # A clause that reports and says nothing itself ("sam says: lower the lift", "lower the lift,
    # says sam") reports another clause, before or after it: none is surely the asker's own.
    if _Report.AROUND in reports:
        return frozenset()
    own = [clause for clause, report in zip(clauses, reports, strict=True) if report is _Report.NOTHING]
    several = len(clauses) > 1
    read = (
        [_read_order(clause, recogniser, names, by_key) for clause in own[:_MAX_CLAUSES]] if several else []
    )
    if any(found is not None for found in read):
        deeds = frozenset(deed for found in read if found is not None for deed in found)
        if any(found == frozenset() for found in read) or len({deed.device for deed in deeds}) < len(deeds):
            return frozenset()
        return deeds
    # No sentence reads them ("dock the vacuum now"): any act on a device they name may be what
    # they mean, none on a device they do not name ("roast rover 3" once raised the lift). A
    # question no sentence reads as a request ("is the lift up?", "how do I lower the lift")
    # asks for none: it names an act to learn of it, not to have it done.
    if _QUESTION.search(words) or any(_opens_a_question(clause, recogniser) for clause in own):
        return frozenset()
    said = _WORD.findall(fold(" ".join(own)))
    named = [device for device in devices if _named(said, device)]
    # Words that say an act no sentence reads as an order ("show me how to lower the lift", "the
    # lift, lower it") may ask for that act or nothing: never its opposite. Only words that say
    # no act at all ("the neato needs its dock") leave any act on the device they name.
    acts = _acts_said(said, recogniser.acts)
    if not acts:
        return frozenset(Deed(device.key, Act.ANY) for device in named)
    said_acts: set[Deed] = set()
    for device in named:
        fitting = acts & _KIND_ACTS.get(device.kind, frozenset())
        if len(fitting) > 1:
            return frozenset()
        said_acts.update(Deed(device.key, act) for act in fitting)
    return frozenset(said_acts)


# The acts each kind of device can undergo: a word's act on another kind says nothing of it.
_KIND_ACTS: Mapping[Kind, frozenset[Act]] = {
    Kind.LIFT: frozenset({Act.OPEN, Act.CLOSE}),
    Kind.LIGHT: frozenset({Act.ON, Act.OFF}),
    Kind.VACUUM: frozenset({Act.START, Act.DOCK, Act.LOCATE, Act.CLEAR}),
}


def _acts_said(said: Sequence[str], acts: Mapping[tuple[str, ...], frozenset[Act]]) -> frozenset[Act]:
    """Return the acts the words say, by the phrases of the language that say one ("lower", "up")."""
    lengths = {len(phrase) for phrase in acts}
    return frozenset(
        act
        for length in lengths
        for start in range(len(said) - length + 1)
        for act in acts.get(tuple(said[start : start + length]), ())
    )


class _Report(Enum):
    """Whether a clause reports someone's words, and whose words it reports."""

    NOTHING = auto()
    # Its own words: "sam says hi", "sam dice que bajes el ascensor".
    ITSELF = auto()
    # Another clause's: its verb of saying ends it ("sam says:") or opens it ("…, says sam").
    AROUND = auto()


def _reports(clause: str, recogniser: Recogniser) -> _Report:
    """Return whether and whose words the clause reports (see _REPORTING).

    The asker's own saying is no report: "lower the lift, I said", "as I said, lower the lift",
    "I ask you to lower the lift" are their own words.
    """
    said = _WORD.findall(fold(clause))
    first = _past_leads(said, recogniser)
    found = [
        (start, start + length)
        for start in range(first, len(said))
        if (length := _phrase_at(said, start, recogniser.reporting))
        and not any(
            _phrase_at(said, before, recogniser.speaker) for before in range(max(start - 2, 0), start)
        )
    ]
    if not found:
        return _Report.NOTHING
    if any(start == first or end == len(said) for start, end in found):
        return _Report.AROUND
    return _Report.ITSELF


def _opens_a_question(clause: str, recogniser: Recogniser) -> bool:
    """Return whether the clause opens with a question word, after words that ask nothing ("ok, so how…").

    The room's question words (language.opens_a_question, the gate's) and request_words' words
    that open a question, auxiliaries among them ("can", "should", "is"): a question Home Assistant's
    sentences read as a request ("can you lower the lift") was read before this is asked.
    """
    said = _WORD.findall(fold(clause))
    rest = said[_past_leads(said, recogniser) :]
    return bool(rest) and (_phrase_at(rest, 0, recogniser.questions) > 0 or opens_a_question(" ".join(rest)))


def _past_leads(said: Sequence[str], recogniser: Recogniser) -> int:
    """Return where the words start saying something: past "ok", "and", "then", "hey", "pues"."""
    start = 0
    while start < len(said) and (length := _phrase_at(said, start, recogniser.leads)):
        start += length
    return start


def _phrase_at(said: Sequence[str], start: int, phrases: frozenset[tuple[str, ...]]) -> int:
    """Return the length of the longest of the phrases the words hold at start, 0 for none."""
    return max(
        (len(phrase) for phrase in phrases if tuple(said[start : start + len(phrase)]) == phrase), default=0
    )


def _unquoted(text: str, names: Sequence[str]) -> str:
    """Return the text without what it quotes: quoted words are someone else's, not the asker's order.

    A quotation that is only a name ("turn on "aux1"") is the name, marks dropped. Any other
    ends its clause: what follows it is read as a clause of its own ("sam says "hi", lower the
    lift" asks for the lift lowered, as "sam says hi, lower the lift" does).
    """
    named = {said for name in names if (said := tuple(_WORD.findall(fold(name))))}

    def replace(match: re.Match[str]) -> str:
        quoted = match.group("double") if match.group("double") is not None else match.group("single")
        return f" {quoted} " if tuple(_WORD.findall(fold(quoted))) in named else f" {_QUOTATION} , "

    return _QUOTED.sub(replace, text)


def named_devices(text: str, devices: Sequence[Device]) -> tuple[tuple[Device, str], ...]:
    """Return the devices the words name, each with the name they use ("el elevador" names the lift)."""
    if len(text) > MAX_REQUEST_CHARS:
        return ()
    said = _WORD.findall(fold(text))
    return tuple((device, name) for device in devices if (name := _name_said(said, device)) is not None)


def _named(said: Sequence[str], device: Device) -> bool:
    """Return whether the words (folded) name the device by one of its names."""
    return _name_said(said, device) is not None


def _name_said(said: Sequence[str], device: Device) -> str | None:
    """Return the first of the device's names the words (folded) use, or None."""
    for name in device.names:
        wanted = _WORD.findall(fold(name))
        if wanted and any(
            said[start : start + len(wanted)] == wanted for start in range(len(said) - len(wanted) + 1)
        ):
            return name
    return None


def _read_order(
    words: str, recogniser: Recogniser, names: SlotList, devices: Mapping[str, Device]
) -> frozenset[Deed] | None:
    """Return what the words ask for (see _read), with a few words after the order let go.

    An order opens with its verb and Home Assistant's sentences end with its device; what
    follows ("dock the vacuum now", "baja el ascensor del todo") is read off the end, unless it
    is a condition ("raise the lift if sam wins" waits for something), names a device ("turn
    on the bench and the shelf"), says a deed ("lower the lift or raise it") or reports the
    order as someone's ("lower the lift, sam says").
    """
    assert recogniser.intents is not None
    spans = list(_WORD.finditer(words))
    for dropped in range(min(_MAX_TRAILING, len(spans) - 1) + 1):
        head = words[: spans[-1 - dropped].end()] if dropped else words
        tail = words[len(head) :]
        after = _WORD.findall(fold(tail))
        if dropped and (
            says(tail, recogniser.conditions)
            or says(tail, recogniser.deeds)
            or any(_phrase_at(after, start, recogniser.reporting) for start in range(len(after)))
            or any(_named(after, device) for device in devices.values())
        ):
            return None
        found = _read(head, recogniser.intents, names, devices)
        if found is not None:
            return found
    return None


def _read(
    words: str, intents: Intents, names: SlotList, devices: Mapping[str, Device]
) -> frozenset[Deed] | None:
    """Return the acts the words ask for, none when they are unclear, or None when none matched.

    Unclear: one reading asks for nothing of ours ("turn off" a vacuum), or two acts on one device.
    """
    # The room has no areas or floors: words that name one ask for no device of ours.
    lists: dict[str, SlotList] = {"name": names, "area": _NOWHERE, "floor": _NOWHERE}
    results = recognize_all(words, intents, slot_lists=lists)
    found = {_deed(result, devices) for result in itertools.islice(results, _MAX_MATCHES)}
    if not found:
        return None
    deeds = frozenset(deed for deed in found if deed is not None)
    if None in found or len({deed.device for deed in deeds}) < len(deeds):
        return frozenset()
    return deeds


def fulfils(asked: frozenset[Deed], done: Deed) -> bool:
    """Return whether a call's deed is one of the acts the words asked for (none: it is not).

    A light asked to go on is on when a call sets its colour too; a colour asked for is that colour only.
    """
    return any(
        done.device == deed.device
        and (done == deed or deed.act is Act.ANY or (deed.act is Act.ON and done.act is Act.COLOUR))
        for deed in asked
    )


def _asking(
    intent: str, entry: Mapping[str, Any], rules: Mapping[str, str], lists: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Return the part of an intents data entry that may ask for an act of ours, or None.

    Ours: a device of ours by name, and for a light's colour a colour. The rest (a fan, a scene,
    all the lights, a brightness, an area) would only cost time on every question, and a sentence
    that reads a list or rule we lack would fail it.
    """
    domains = set(_DOMAINS.values())
    required = entry.get("requires_context", {})
    if "area" in required or domains <= _values(entry.get("excludes_context", {}).get("domain")):
        return None
    for named in (required.get("domain"), entry.get("slots", {}).get("domain")):
        if named is not None and not domains & _values(named):
            return None
    needed = {"name", "color"} if intent == "HassLightSet" else {"name"}
    at_hand = {*lists, *entry.get("lists", {}), *_FILLED}
    local = {**rules, **entry.get("expansion_rules", {})}
    sentences = [
        sentence
        for sentence in entry["sentences"]
        if (read := _lists_read(sentence, local)) is not None and needed <= read <= at_hand
    ]
    return {**entry, "sentences": sentences} if sentences else None


def _values(value: Any) -> set[str]:
    """Return a context's values as a set: the data writes one value bare, several as a list."""
    if value is None:
        return set()
    return {str(item) for item in value} if isinstance(value, list) else {str(value)}


def _lists_read(template: str, rules: Mapping[str, str]) -> set[str] | None:
    """Return the slot lists a template reads through its rules; None when it uses a rule not defined."""
    found: set[str] = set()
    seen: set[str] = set()
    pending = [template]
    while pending:
        body = pending.pop()
        found.update(_LIST_REF.findall(body))
        for rule in set(_RULE_REF.findall(body)) - seen:
            if rule not in rules:
                return None
            seen.add(rule)
            pending.append(rules[rule])
    return found


def _deed(result: RecognizeResult, devices: Mapping[str, Device]) -> Deed | None:
    """Return the deed one match asks for; None when it asks for none of ours (a vacuum turned off)."""
    name = result.entities.get("name")
    device = devices.get(name.value) if name is not None else None
    if device is None:
        return None
    act = _ACTS[result.intent.name].get(device.kind)
    if act is Act.COLOUR:
        colour = result.entities.get("color")
        return Deed(device.key, act, str(colour.value)) if colour is not None else None
    return Deed(device.key, act) if act is not None else None


def _name_list(devices: Sequence[Device]) -> SlotList | None:
    """Return the devices' names as hassil's name list: each name gives its device's key."""
    values = {
        (spoken, device.key, _DOMAINS[device.kind])
        for device in devices
        for name in device.names
        if (spoken := remove_punctuation(_bare(name)).strip())
    }
    if not values:
        return None
    return TextSlotList.from_tuples(
        ((spoken, key, {"domain": domain}) for spoken, key, domain in sorted(values)), allow_template=False
    )


def _unaddressed(text: str, addressed_as: Sequence[str]) -> str:
    """Return the words without the overseer's name around them ("hey overseer, …", "…, overseer")."""
    names = sorted({tuple(_WORD.findall(fold(name))) for name in addressed_as} - {()}, key=len, reverse=True)
    spans = list(_WORD.finditer(text))
    words = [fold(span.group()) for span in spans]
    first = 1 if words[:1] and words[0] in _GREETINGS else 0
    begin, stop = 0, len(words)
    for name in names:
        if tuple(words[first : first + len(name)]) == name:
            begin = first + len(name)
            break
    for name in names:
        if stop - len(name) >= begin and tuple(words[stop - len(name) :]) == name:
            stop -= len(name)
            break
    start = spans[begin - 1].end() if begin else 0
    end = spans[stop].start() if stop < len(spans) else len(text)
    return text[start:end].strip()


def _bare(text: str) -> str:
    """Return the text without accents, so "bajá", "baja" and "bája" are one word to the matcher."""
    kept = "".join(char for char in unicodedata.normalize("NFD", text) if not unicodedata.combining(char))
    return unicodedata.normalize("NFC", kept)


def _bare_data(value: Any) -> Any:
    """Return intents data without accents, rule names too; "out" values stay as written."""
    if isinstance(value, str):
        return _bare(value)
    if isinstance(value, list):
        return [_bare_data(item) for item in value]
    if isinstance(value, dict):
        return {_bare(key): item if key == "out" else _bare_data(item) for key, item in value.items()}
    return value
