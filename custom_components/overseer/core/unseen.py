"""What the room cannot see: a question about a thing no device of the room shows.

The weather, a score, a bet, last night's match: the room holds no entity that knows them, so
any answer the model gave would be made up (the bundled model said "The weather is sunny." and
"La partida terminó en un empate."). Such a question is answered with the overseer's own fact
that the room does not show it, and no words of the model's. It is recognised by Home
Assistant's own sentences where it has them (HassGetWeather: the room has no weather entity),
and otherwise by the topic's words below, per language, for a question that names no device of
the room and asks nothing of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from hassil.intents import Intents, SlotList, TextSlotList
from hassil.recognize import recognize_all

from .language import QUESTION_WORDS
from .text import fold

# Home Assistant's intents that ask of a kind of entity the overseer's room never has.
UNSEEN_INTENTS = ("HassGetWeather",)

# The words of topics no device of a room shows, folded, per language: a question holding one
# asks what the room cannot see. Examples, each a question the room cannot answer: "what's the
# weather like outside?", "who is winning?", "how much money did kim bet?", "what was the final
# score last night?", "¿qué temperatura hace fuera?", "¿quién ganó la apuesta?", "¿cómo quedó el
# partido?", "Wie ist das Wetter draußen?", "Qui a gagné le pari ?". Words that also say a mood
# or a take ("hot", "cold", "lost") are not topics: "give me a hot take on sam" asks an opinion.
UNSEEN_TOPICS: Mapping[str, str] = {
    "en": "weather rain raining snow snowing sunny forecast temperature outside outdoors score scores "
    "winning winner won bet bets betting wager match points money",
    "es": "clima lluvia llueve llover nieve soleado pronostico temperatura fuera afuera calle marcador "
    "ganando gano gana ganador apuesta apuestas aposto partido puntos dinero",
    "de": "wetter regen regnet schnee sonnig vorhersage temperatur draussen spielstand gewinnt gewonnen "
    "gewinner wette gewettet spiel punkte geld",
    "fr": "meteo pluie pleut neige ensoleille prevision temperature dehors score gagne gagnant pari parie "
    "match points argent",
}

_WORD = re.compile(r"\w+")
# A question word this near the start (after a name or an "oye") opens a question.
_QUESTION_WITHIN = 3
_NOWHERE = TextSlotList.from_strings([])


def unseen_intents(intents: Mapping[str, Any] | None) -> Intents | None:
    """Return Home Assistant's sentences that ask what the room never shows, from a language's data."""
    data = dict(intents or {})
    theirs = data.get("intents", {})
    data["intents"] = {intent: theirs[intent] for intent in UNSEEN_INTENTS if intent in theirs}
    if not data["intents"]:
        return None
    try:
        return Intents.from_dict(data)
    except Exception:  # a release whose data our hassil cannot read asks nothing here
        return None


def asks_unseen(text: str, language: str, sentences: Intents | None, names: Iterable[str] = ()) -> bool:
    """Return whether the words ask about a thing no device of the room shows.

    names: the names of everything the room shows (a question naming one asks about the room).
    Only a question asks: a question mark, or a question word among its first words ("overseer
    who is winning"); "I won!" and "roast sam, he lost all his money" ask nothing. English is read
    beneath every language: people mix it in.
    """
    said = _WORD.findall(fold(text))
    if not ({"?", "¿"} & set(text) or QUESTION_WORDS.intersection(said[:_QUESTION_WITHIN])):
        return False
    for name in names:
        wanted = _WORD.findall(fold(name))
        if wanted and any(said[i : i + len(wanted)] == wanted for i in range(len(said) - len(wanted) + 1)):
            return False
    base = language.partition("-")[0].lower()
    topics = {word for code in dict.fromkeys((base, "en")) for word in UNSEEN_TOPICS.get(code, "").split()}
    if topics.intersection(said):
        return True
    if sentences is None:
        return False
    plain = " ".join(_WORD.findall(text))
    lists: dict[str, SlotList] = {"name": _NOWHERE, "area": _NOWHERE, "floor": _NOWHERE}
    try:
        return next(iter(recognize_all(plain, sentences, slot_lists=lists)), None) is not None
    except Exception:  # words our hassil cannot read ask nothing of it
        return False
