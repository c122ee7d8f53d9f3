"""Which language a line is in, so the overseer answers in the asker's.

Function words tell a language apart in the few words a chat line has ("¿está encendida la
luz?", "is the lift up?") where a content word cannot: the room's device names are the same in
every language. Only the languages the overseer speaks in full are told apart; any other line,
or one too short to tell, is in the room's language.
"""

from __future__ import annotations

import re

from .text import fold

# The most frequent function words of each language, folded (accents off), minus those two of
# them share ("no", "a", "de" …): a word counts for one language only.
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the is are was were be to of and or what who why how you your it its this that do does did "
        "can will would please not my me we us they with for on off up down at in".split()
    ),
    "es": frozenset(
        "el la los las es son esta estan fue que quien por porque como tu tus su sus eso esto hace "
        "puedes podrias por favor mi me nosotros ellos con para arriba abajo en una uno y o pon sube "
        "baja enciende apaga luz elevador ascensor ya elige dime opinas crees va gana un del al".split()
    ),
    "de": frozenset(
        "der die das ist sind war und oder was wer warum wie du dein es dies kannst bitte nicht mein "
        "mich wir uns sie mit fur auf an aus hoch runter im ein eine licht aufzug".split()
    ),
    "fr": frozenset(
        "le les est sont etait et ou quoi qui pourquoi comment tu ton ta il elle ce cette peux "
        "sil plait pas mon moi nous ils avec pour sur dans une lumiere ascenseur allume eteins".split()
    ),
}
# Spanish and French open questions and exclamations with their own marks.
_MARKS = {"¿": "es", "¡": "es"}
_WORD = re.compile(r"\w+")


def language_of(text: str, default: str) -> str:
    """Return the language the text is written in among those the overseer speaks, else default.

    default is a language code as Home Assistant has it ("es", "en-GB"); the answer is a base
    code ("es") when the text tells, default unchanged when it does not.
    """
    # fold drops the accents too: "está" and "esta" are one word here.
    words = _WORD.findall(fold(text))
    scores = {language: sum(word in known for word in words) for language, known in _FUNCTION_WORDS.items()}
    for mark, language in _MARKS.items():
        if mark in text:
            scores[language] += 2
    best = max(scores, key=lambda language: scores[language])
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] == 0 or ranked[0] == ranked[1]:
        return default
    return best


# The words that open a question rather than a statement, folded (accents off: people type
# "que hora es" as often as "qué hora es"), in the languages told apart.
QUESTION_WORDS = frozenset(
    "what which who whom whose where when why how "
    "que cual cuales quien quienes donde adonde cuando como cuanto cuanta cuantos cuantas "
    "was welche welcher welches wer wo woher wohin wann warum wieso weshalb wie "
    "quoi quel quelle quels quelles qui ou quand pourquoi comment combien".split()
)
# Questions whose first word alone asks nothing: Spanish asks "why" in two ("por favor" asks no
# question), French asks yes or no with "est-ce que".
_QUESTION_PAIRS = frozenset({("por", "que"), ("est", "ce")})


def opens_a_question(text: str) -> bool:
    """Return whether the text opens with a question word ("Which side are you on", "¿Qué hora es").

    Spanish asks yes or no in a statement's own order ("¿la luz está encendida?"); a question
    word is what tells a question from its answer once the marks are gone.
    """
    words = _WORD.findall(fold(text))
    return bool(words) and (words[0] in QUESTION_WORDS or tuple(words[:2]) in _QUESTION_PAIRS)


def base_language(language: str) -> str:
    """Return the language without its region ("es-419" → "es")."""
    return language.replace("_", "-").partition("-")[0].lower()


# The languages a cue can ask the model to answer in, by name (the cues are English).
LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "de": "German", "fr": "French"}
# The languages the overseer reads and answers in whole: the room's language option offers these.
SPOKEN_LANGUAGES = tuple(LANGUAGE_NAMES)


def say_it_in(language: str, room_language: str) -> str:
    """Return the cue's words asking for the answer in the asker's language, or "" when none are needed.

    The cues are English and the prompts in the room's language: an English question in an
    English room needs no word; any other asks for its language by name.
    """
    asked, room = base_language(language), base_language(room_language)
    if asked not in LANGUAGE_NAMES or (asked == "en" and room == "en"):
        return ""
    return f" Say it in {LANGUAGE_NAMES[asked]}."
