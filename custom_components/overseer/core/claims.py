"""Claims of remembering in a line: the overseer never says it wrote memory that no call wrote.

Claims about the room's devices (their states, and deeds done to them) are read by
core/statements.py against the room; memory is no device, so its one claim is read here.
A clause that says the overseer remembers, saved or will save something claims a memory
write; a question, a refusal or a negation claims nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .text import fold, without_addressee


@dataclass(frozen=True, slots=True)
class ClaimKind:
    """One kind of action a line can claim, the tools that back it, and how it is said."""

    action: str
    tools: frozenset[str]
    pattern: re.Pattern[str]


CLAIM_KINDS = (
    ClaimKind(
        "memory",
        frozenset({"memory_write"}),
        re.compile(
            r"\b(?:i'll|i will|i've|i have|i) (?:remember|remembered|memorised|memorized) (?:that|this|it)\b"
            r"|\b(?:saved|stored|written|wrote|noted|save|store|write|note)(?: it| that| this)?(?: down)? "
            r"(?:to|in|into) (?:my )?memory\b"
        ),
    ),
)
# A clause that refuses or doubts claims nothing: "I won't remember that".
_NEGATION = re.compile(
    r"\b(?:not|never|no|nope|won't|can't|cannot|don't|didn't|isn't|aren't|wasn't|shan't|nor)\b|n't\b"
)
# Sentences, and the parts a comma or a conjunction joins.
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\s*,\s*|\s+(?:and|but|though|although|unless|so)\s+")


def claimed_actions(line: str) -> tuple[str, ...]:
    """Return the kinds of action the line claims the overseer did, is doing or will do now."""
    claimed: list[str] = []
    for part in _CLAUSES.split(fold(line).replace("\u2019", "'")):
        clause = without_addressee(part.strip()).strip("\"'\u201c\u201d").rstrip(".!… ")
        if not clause or clause.endswith("?"):
            continue
        for kind in CLAIM_KINDS:
            match = kind.pattern.search(clause)
            if match is None or kind.action in claimed or _NEGATION.search(clause[: match.end()]):
                continue
            claimed.append(kind.action)
    return tuple(claimed)


def unbacked_claims(line: str, ran: Iterable[str]) -> tuple[str, ...]:
    """Return the actions the line claims that none of the tools that ran in its decision backs."""
    done, claimed = frozenset(ran), claimed_actions(line)
    return tuple(kind.action for kind in CLAIM_KINDS if kind.action in claimed and not kind.tools & done)
