"""The words that tell what a line asks the room to do, per language.

core/requests.py reads the asker's words with Home Assistant's own sentences; these are the
words it reads around them: what denies ("don't"), makes an order wait ("if"), leads a clause
("ok", "and"), opens a question ("how"), says the first person ("I"), says a deed ("raise",
"bajar") and where a deed goes ("up", "home"). English and Spanish are complete, German and
French cover the room's devices; any other language gets English's, and every language gets
English's underneath, because people mix it in.

A phrase is its folded words, as the tokenizer here reads them: "don't", "d'" and "shouldn't"
stay one word. The tables are written in Home Assistant's template syntax.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, auto
from itertools import permutations

from .acts import Act
from .text import fold


class Role(Enum):
    """What a function word does in the asker's words."""

    NEGATION = auto()
    # Opens a question ("should", "está").
    QUESTION = auto()
    # "okay", "so", "listo": words that open a clause and ask nothing themselves.
    LEAD = auto()
    ME = auto()
    CONJUNCTION = auto()
    # Makes the words a condition: "raise the lift if sam wins" waits for something.
    CONDITION = auto()


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
# Apostrophes as people type them; one character each, so positions in the text hold.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})


def _is_word(text: str) -> bool:
    return text[:1].isalnum() or text[:1] == "'"


def _words(text: str) -> tuple[str, ...]:
    """Return the text's words, folded; marks are no words."""
    found = []
    for match in _TOKEN.finditer(unicodedata.normalize("NFC", text).translate(_APOSTROPHES)):
        piece = match.group()
        folded = fold(piece) if _is_word(piece) else piece
        if folded and _is_word(folded):
            found.append(folded)
    return tuple(found)


# --- Templates ------------------------------------------------------------------------------------

# Home Assistant's template syntax: (a|b) alternatives, [optional] parts, (a;b) permutations;
# {list} and <rule> references expand to nothing. Bounded: a value's variants are capped.
_MAX_VARIANTS = 256
_LITERAL = re.compile(r"[^()\[\]|;<>{}]+")


def expand(template: str) -> tuple[str, ...]:
    """Return every text a template says, in Home Assistant's template syntax (capped)."""
    variants, _ = _alternatives(template, 0, "")
    return tuple(dict.fromkeys(" ".join(variant.split()) for variant in variants))


def _product(left: list[str], right: list[str]) -> list[str]:
    return [a + b for a in left for b in right][:_MAX_VARIANTS]


def _alternatives(template: str, pos: int, closing: str) -> tuple[list[str], int]:
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
            inner, pos = _alternatives(template, pos + 1, ")" if char == "(" else "]")
            current = _product(current, [*inner, ""] if char == "[" else inner)
        elif char in "<{":
            end = template.find(">" if char == "<" else "}", pos)
            current = []  # a rule's or a list's words are not ours
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

_OPEN, _CLOSE = (Act.OPEN,), (Act.CLOSE,)
_ON, _OFF = (Act.ON,), (Act.OFF,)
_START, _DOCK, _LOCATE, _CLEAR = (Act.START,), (Act.DOCK,), (Act.LOCATE,), (Act.CLEAR,)
# The act is in the words around it: "turn the light off", "send the vacuum home".
_BY_PARTICLE: tuple[Act, ...] = ()


@dataclass(frozen=True, slots=True)
class _Table:
    """One language's words of ours, as templates in Home Assistant's syntax.

    particles: where a deed goes ("up": the lift open). deeds: the verbs that say a deed, with
    the acts each says (none: its particle says it), in every form words may give it.
    """

    roles: Mapping[Role, str]
    particles: Mapping[Act, str]
    deeds: tuple[tuple[tuple[Act, ...], str], ...]


_EN = _Table(
    roles={
        Role.NEGATION: "not|never|no|nope|cannot|nor|neither|nothing|without|nobody|none|don't|doesn't|didn't"
        "|won't|can't|isn't|aren't|wasn't|weren't|haven't|hasn't|hadn't|dont|doesnt|didnt|cant|isnt",
        Role.QUESTION: "should|shall|do|does|did|want|wanna|is|are|am|can|could|would|will|what|who|how|why"
        "|when|where|which|may|might|must|have|has|need|shouldn't",
        Role.LEAD: "ok|okay|sure|done|so|then|yes|yeah|yep|alright|all right|right|there|here|well|great|good"
        "|fine|voila|boom|hey|oh|also|finally|as requested|as asked|as you wished|there you go",
        Role.ME: "i|we",
        Role.CONJUNCTION: "and|but|though|although|while|whereas|because|since|so|yet|plus",
        Role.CONDITION: "if|unless|once|when|whenever|as soon as|until|in case|provided",
    },
    particles={
        Act.OPEN: "up|upward[s]|up top|to the top",
        Act.CLOSE: "down|downward[s]|to the bottom",
        Act.ON: "on",
        Act.OFF: "off",
        Act.DOCK: "home|back home|[back] to (its|the) (dock|base|station|charger)|[back] to base",
        Act.START: "[(out|off)] to (clean|vacuum|work)",
    },
    deeds=(
        # "lift" is the lift's own noun, so it is no verb here.
        (_OPEN, "raised|lifted|hoisted"),
        (_OPEN, "raising|lifting|hoisting"),
        (_OPEN, "raise|hoist"),
        (_CLOSE, "lowered"),
        (_CLOSE, "dropped"),
        (_CLOSE, "lowering|dropping"),
        (_CLOSE, "lower|drop"),
        (_ON, "turned on"),
        (_ON, "switched on"),
        (_OFF, "turned off"),
        (_OFF, "switched off"),
        (_OFF, "killed"),
        (_OFF, "killing"),
        (_OFF, "kill"),
        (_START, "started|launched|kicked off"),
        (_START, "unleashed|dispatched|deployed|released"),
        (_START, "woke|woken"),
        (_START, "starting|launching|unleashing|dispatching|deploying|kicking off|waking|releasing"),
        (_START, "start|launch|unleash|dispatch|deploy|kick off|wake|release"),
        (_DOCK, "recalled"),
        (_DOCK, "returned|docked"),
        (_DOCK, "recalling|returning|docking"),
        (_DOCK, "recall|return|dock"),
        (_LOCATE, "located|pinged|beeped"),
        (_LOCATE, "locating|pinging|beeping"),
        (_LOCATE, "locate|ping|beep"),
        (_CLEAR, "cleared"),
        (_CLEAR, "clearing|resetting"),
        (_CLEAR, "clear"),
        (_CLEAR, "reset"),
        (_BY_PARTICLE, "turned|changed|made|called|moved|took"),
        (_BY_PARTICLE, "switched|flipped|painted|sent|brought|taken"),
        (_BY_PARTICLE, "set|put"),
        (
            _BY_PARTICLE,
            "turning|switching|setting|changing|making|painting|flipping|sending|bringing|calling|putting"
            "|moving|taking",
        ),
        (_BY_PARTICLE, "turn|switch|change|make|paint|flip|send|bring|call|move|take"),
    ),
)

_ES = _Table(
    roles={
        Role.NEGATION: "no|nunca|ni|jamás|tampoco|nada|sin|ningún|ninguna|ninguno|nadie",
        Role.QUESTION: "quieres|quiere|querés|quieren|debo|debería|puedo|podría|puedes|qué|cómo|cuál|cuándo"
        "|dónde|quién|por qué|hay|está|están|es",
        # Not "si": folded it is also "if", a condition.
        Role.LEAD: "listo|lista|ya|vale|ok|okay|hecho|bueno|bien|claro|perfecto|venga|pues|entonces|ahora"
        "|de acuerdo|ahí va|ahí lo tienes|ahí tienes|enseguida|en seguida|oído|marchando|ahora mismo"
        "|por supuesto|hala|genial|muy bien|como pediste|como pidió|como querías|como quieras|también",
        # The first person's auxiliaries say who speaks too: "he dicho", "hemos pedido".
        Role.ME: "yo|nosotros|nosotras|he|hemos",
        Role.CONJUNCTION: "y|e|pero|aunque|mientras|así que|porque|sino|para|para que",
        Role.CONDITION: "si|cuando|en cuanto|hasta que|apenas|en caso de que|siempre que",
    },
    particles={
        Act.OPEN: "arriba|hacia arriba|para arriba|a lo alto",
        Act.CLOSE: "abajo|hacia abajo|para abajo",
        Act.DOCK: "a (casa|la base|su base|la estación|su estación|cargar)",
        Act.START: "en marcha|a (limpiar|aspirar|trabajar)",
    },
    deeds=(
        # "bajo" is left out: it is also "under" ("bajo el ascensor" is where, not what was done).
        (_OPEN, "subí|subimos|levanté|levantamos|elevé|elevamos|alcé|alzamos"),
        (
            _OPEN,
            "subo|subiré|subiremos|subiendo|levanto|levantaré|levantando|elevo|elevaré|elevando|alzo|alzaré"
            "|alzando",
        ),
        (_OPEN, "(subid|levantad|elevad|alzad)(o|a)[s]"),
        (_OPEN, "subir|levantar|elevar|alzar"),
        (_CLOSE, "bajé|bajamos|descendí|descendimos"),
        (_CLOSE, "bajaré|bajaremos|bajando"),
        (_CLOSE, "(bajad|descendid)(o|a)[s]"),
        (_CLOSE, "bajar|descender"),
        (_ON, "encendí|encendimos|prendí|prendimos|activé|activamos"),
        (_ON, "enciendo|encenderé|encendiendo|prendo|prenderé|prendiendo|activando"),
        (_ON, "(encendid|prendid|activad)(o|a)[s]"),
        (_ON, "encender|prender|activar"),
        (_OFF, "apagué|apagamos|desactivé|desactivamos"),
        (_OFF, "apago|apagaré|apagando|desactivando"),
        (_OFF, "(apagad|desactivad)(o|a)[s]"),
        (_OFF, "apagar|desactivar"),
        (_START, "arranqué|arrancamos|inicié|iniciamos"),
        (_START, "arranco|arrancaré|arrancando|iniciando"),
        (_START, "(arrancad|iniciad)(o|a)[s]"),
        (_START, "arrancar|iniciar"),
        (_DOCK, "devolví|devolvimos"),
        (_DOCK, "devuelvo|devolviendo"),
        (_DOCK, "devuelt(o|a)[s]"),
        (_DOCK, "devolver"),
        # Not "cambio": a noun as well ("un cambio"); nor "dejar" ("dejé la luz encendida" keeps a
        # state, it does nothing).
        (_BY_PARTICLE, "puse|pusimos|cambié|cambiamos|mandé|mandamos|envié|enviamos|pinté|pintamos"),
        (_BY_PARTICLE, "pongo|pondré|poniendo|cambiando|mandando|enviando|pintando"),
        # "Mando la aspiradora a limpiar.": a first person's present, though "el mando" is a remote.
        (_BY_PARTICLE, "mando|envío|mandaré|enviaré"),
        (_BY_PARTICLE, "(puest|cambiad|mandad|enviad|pintad)(o|a)[s]"),
        (_BY_PARTICLE, "poner|cambiar|mandar|enviar|pintar"),
        # The second person's preterite: "Apagaste la luz del rincón."
        (_OPEN, "subiste|levantaste|elevaste|alzaste"),
        (_CLOSE, "bajaste|descendiste"),
        (_ON, "encendiste|prendiste|activaste"),
        (_OFF, "apagaste|desactivaste"),
        (_START, "arrancaste|iniciaste"),
        (_DOCK, "devolviste"),
        (_BY_PARTICLE, "pusiste|cambiaste|mandaste|enviaste|pintaste"),
    ),
)

_DE = _Table(
    roles={
        Role.NEGATION: "nicht|nie|niemals|kein|keine|keinen|keinem|keiner|keines|weder|nichts|ohne|niemand",
        Role.QUESTION: "soll|sollen|sollte|willst|wollt|möchtest|möchten|was|wer|wie|warum|wann|wo|welche"
        "|welcher|welches|ist|sind|hast|habt|kann|kannst|könnte|darf|gibt",
        Role.LEAD: "ok|okay|so|gut|alles klar|klar|erledigt|fertig|ja|jawohl|jetzt|nun|also|sicher|gern"
        "|gerne|bitte schön|bitteschön|hier|na|prima|super|geschafft|wie gewünscht",
        Role.ME: "ich|wir",
        Role.CONJUNCTION: "und|aber|doch|sondern|während|weil|obwohl|denn",
        Role.CONDITION: "wenn|falls|sobald|bis|sofern",
    },
    particles={
        Act.OPEN: "hoch|rauf|herauf|hinauf|nach oben",
        Act.CLOSE: "runter|herunter|hinunter|nach unten",
        Act.ON: "an|ein",
        Act.OFF: "aus",
        Act.DOCK: "nach hause|heim|zur (basis|station|ladestation)|zurück",
    },
    deeds=(
        (_OPEN, "(hoch|rauf|herauf|hinauf)gefahren|angehoben|gehoben|hochgezogen|hochgeholt|hochgeschickt"),
        (_OPEN, "(hoch|rauf|herauf|hinauf)fahren|anheben|heben|hochziehen|hochholen|hebe"),
        (_CLOSE, "(runter|herunter|hinunter)gefahren|abgesenkt|gesenkt|(runter|herunter)gelassen"),
        (_CLOSE, "(runter|herunter|hinunter)fahren|absenken|senken|(runter|herunter)lassen|senke"),
        (_ON, "eingeschaltet|angeschaltet|angemacht|angeknipst|aktiviert"),
        (_ON, "einschalten|anschalten|anmachen|anknipsen|aktivieren"),
        (_OFF, "ausgeschaltet|ausgemacht|ausgeknipst|deaktiviert"),
        (_OFF, "ausschalten|ausmachen|ausknipsen|deaktivieren"),
        (_START, "gestartet|losgeschickt|angeworfen"),
        (_START, "starten|starte|losschicken"),
        (_DOCK, "zurückgeschickt|heimgeschickt"),
        (_DOCK, "zurückschicken|heimschicken"),
        # Not "gelassen": "das Licht an gelassen" keeps a state, it does nothing.
        (_BY_PARTICLE, "gefahren|geschaltet|gemacht|gestellt|eingestellt|gesetzt|geschickt|gefärbt"),
        (
            _BY_PARTICLE,
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
        # "on" is "we" here: "On a demandé l'ascenseur".
        Role.ME: "je|j'|nous|moi|on",
        Role.CONJUNCTION: "et|mais|pourtant|puis|car|parce que|alors que|tandis que|cependant",
        Role.CONDITION: "si|quand|lorsque|dès que|jusqu'à ce que|au cas où|pourvu que",
    },
    particles={
        Act.OPEN: "en haut|vers le haut",
        Act.CLOSE: "en bas|vers le bas",
        Act.DOCK: "à (la|sa) (base|station)|à la maison|au dock",
        Act.START: "en marche|en route",
    },
    deeds=(
        # Not "monte": "l'ascenseur monte" is the lift going up, no deed of anyone's.
        (_OPEN, "monté|levé|élevé|remonté"),
        (_OPEN, "(monté|levé|élevé|remonté)(e|s|es)"),
        (_OPEN, "montons|levons|remontons|monterai|lèverai|remonterai"),
        (_OPEN, "monter|lever|élever|remonter"),
        (_CLOSE, "baissé|abaissé"),
        (_CLOSE, "descendu[e][s]|(baissé|abaissé)(e|s|es)"),
        (_CLOSE, "descends|descendre|baisser|abaisser"),
        (_CLOSE, "descendons|baissons|descendrai|baisserai"),
        (_ON, "allumé"),
        (_ON, "allumé(e|s|es)"),
        (_ON, "allumons|allumerai"),
        (_ON, "allumer"),
        (_OFF, "éteint[e][s]"),
        (_OFF, "éteins|éteindre"),
        (_OFF, "éteignons|éteindrai"),
        (_START, "démarré|lancé"),
        (_START, "(démarré|lancé)(e|s|es)"),
        (_START, "démarrons|lançons|démarrerai|lancerai"),
        (_START, "démarrer|lancer"),
        (_DOCK, "renvoyé[e][s]"),
        (_DOCK, "renvoie|renvoyer"),
        (_BY_PARTICLE, "passé|changé|réglé"),
        (_BY_PARTICLE, "mis[e][s]|envoyé[e][s]|(passé|changé|réglé)(e|s|es)"),
        (_BY_PARTICLE, "mets|envoie|mettre|passer|changer|envoyer|régler"),
        (_BY_PARTICLE, "mettons|envoyons|mettrai|enverrai"),
    ),
)

_TABLES: Mapping[str, _Table] = {"en": _EN, "es": _ES, "de": _DE, "fr": _FR}


# --- A language's phrases -------------------------------------------------------------------------


def role_phrases(language: str, role: Role) -> frozenset[tuple[str, ...]]:
    """Return a language's phrases (folded words) in a role, and English's, as people mix them in."""
    return _phrases(table.roles.get(role, "") for table in _tables_with_english(language))


def deed_phrases(language: str) -> frozenset[tuple[str, ...]]:
    """Return a language's phrases (folded words) that say a deed, and English's: "raise", "bajar"."""
    return _phrases(template for table in _tables_with_english(language) for _, template in table.deeds)


def act_phrases(language: str) -> dict[tuple[str, ...], frozenset[Act]]:
    """Return a language's phrases (folded words), and English's, that say an act, with the acts they say.

    A deed verb names its acts ("lower": the lift closed, "encender": a light on); a particle
    says where a deed goes ("up", "off", "home"). A phrase that is several languages' particle
    says the first one's (English's).
    """
    deeds: dict[tuple[str, ...], set[Act]] = {}
    particles: dict[tuple[str, ...], Act] = {}
    for table in _tables_with_english(language):
        for acts, template in table.deeds:
            for phrase in _phrases((template,)):
                deeds.setdefault(phrase, set()).update(acts)
        for act, template in table.particles.items():
            for phrase in _phrases((template,)):
                particles.setdefault(phrase, act)
    return {
        phrase: frozenset(said)
        for phrase in dict.fromkeys((*deeds, *particles))
        if (said := deeds.get(phrase, set()) | ({particles[phrase]} if phrase in particles else set()))
    }


def says(text: str, phrases: frozenset[tuple[str, ...]]) -> bool:
    """Return whether the text holds one of the phrases, word for word ("don't", "as soon as")."""
    said = _words(text)
    lengths = {len(phrase) for phrase in phrases}
    return any(
        said[start : start + length] in phrases
        for length in lengths
        for start in range(len(said) - length + 1)
    )


def _tables_with_english(language: str) -> tuple[_Table, ...]:
    base = language.replace("_", "-").partition("-")[0].casefold()
    return (_EN, *((_TABLES[base],) if base in _TABLES and base != "en" else ()))


def _phrases(templates: Iterable[str]) -> frozenset[tuple[str, ...]]:
    return frozenset(
        phrase for template in templates for text in expand(template) if (phrase := _words(text))
    )
