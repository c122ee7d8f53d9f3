"""Topic change: a deterministic measure of a shift in what the people in the room talk about.

No model call. The last few human lines are compared with the ones before them: the topic
changed when words come back in the new lines that the earlier ones never used, and the new
lines share almost nothing else with the earlier ones. Lines without a content word ("go go
go") carry no topic and are not counted. After a change the watch waits until the new lines
have filled its window, so one change triggers once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .text import fold

# Words that say nothing about a topic (English chat; a word under three letters never counts).
STOPWORDS = frozenset(
    """
    the and but for not you your yours are was were has have had his her hers its our ours their
    theirs this that these those them they then than there here what when where which who whom
    why how all any can could would should will just like get got now one out off too very much
    more some with from into onto about over under again also only still yes yeah nah nope okay
    lol haha did does doing done dont cant wont isnt arent wasnt its it's i'm im you're youre
    that's thats what's whats let's lets she him been being because really see look
    """.split()
)
_WORD = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True, slots=True)
class TopicConfig:
    """How many lines make "now" and "before", and how alike they may be after a change."""

    recent: int = 4
    earlier: int = 12
    # A word must come back in this many different recent lines to be a topic.
    recurring: int = 3
    # At most this share of the recent lines' words may appear in the earlier lines.
    overlap: float = 0.15


def content_words(text: str, ignore: Iterable[str] = ()) -> frozenset[str]:
    """Return the words of a line that can carry a topic."""
    skipped = STOPWORDS | frozenset(ignore)
    words = (word.strip("'") for word in _WORD.findall(fold(text)))
    return frozenset(word for word in words if len(word) >= 3 and word not in skipped)


class TopicWatch:
    """Follows the human lines; says when they moved to another topic."""

    def __init__(self, config: TopicConfig | None = None, ignore: Iterable[str] = ()) -> None:
        """ignore: words never counted (the overseer's own name and aliases)."""
        self._config = config or TopicConfig()
        self._ignore = frozenset(word for name in ignore for word in content_words(name))
        self._lines: list[frozenset[str]] = []
        self._quiet = 0

    def observe(self, text: str) -> str | None:
        """Return the new topic's words when this line completes a change, else None."""
        config = self._config
        words = content_words(text, self._ignore)
        if not words:
            return None
        self._lines = [*self._lines, words][-(config.recent + config.earlier) :]
        if self._quiet:
            self._quiet -= 1
            return None
        if len(self._lines) < config.recent + config.earlier:
            return None
        before = frozenset().union(*self._lines[: config.earlier])
        recent = self._lines[config.earlier :]
        # A word must come back in different lines: one line said again is no topic.
        counts = Counter(word for line in set(recent) for word in line)
        topic = sorted(
            word for word, count in counts.items() if count >= config.recurring and word not in before
        )
        said = frozenset(counts)
        if not topic or len(said & before) > config.overlap * len(said):
            return None
        self._quiet = config.recent
        return ", ".join(topic[:3])
