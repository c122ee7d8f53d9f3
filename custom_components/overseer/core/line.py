"""The line the overseer posts for a decision: its own facts first, then the model's voice.

Pure: the shell (cycle.py) gathers the decision's records, the devices and the words of the
asker's language; this composes what the room hears. The facts are true by construction
(core/facts.py); the model's words stand only as a voice that says nothing of the room
(core/voice.py), and not at all beside a call that did not run or an asked-for act left undone,
which its words, written before the results, may have announced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .accounts import Phrase
from .acts import Deed, Device, shows_done
from .audit import AuditRecord, Outcome
from .facts import NOT_CALLED, FactWords, Said, call_deed, facts_for
from .requests import fulfils
from .text import fold
from .tools import CHAT_TOOLS, Refusal
from .voice import Dropped, Voice, VoiceWords, voice

# Refusals of the model's slips: a call nobody asked for, a tool or entity the room does not have.
# The audit keeps them; the line does not say them.
SLIPS = frozenset({Refusal.NOT_WHAT_WAS_ASKED.value, Refusal.NOT_ALLOWLISTED.value})
# Outcomes beside which the model's words, written before them, may stand: it ran, or would have.
RAN = frozenset({Outcome.EXECUTED, Outcome.DRY_RUN})


def compose_line(
    chat: str | None,
    records: Sequence[AuditRecord],
    devices: Sequence[Device],
    about: Sequence[str],
    words: FactWords,
    voice_words: VoiceWords,
    phrase: Phrase,
    *,
    asked: frozenset[Deed] | None = None,
    shown: str = "",
    told: str = "",
    language: str = "",
) -> tuple[Said, Voice]:
    """Return what a decision's line states and the model's words that may follow it.

    records: the decision's calls as audited, with any asked-for act a guardrail held or the model
    left undone (reason NOT_CALLED); about: device keys the line is about or the asker named;
    voice_words: what a quip may not say of the room; asked: the acts the asker's words ask for (a
    refused call of one is theirs to hear of, never a slip; one left undone silences the quip);
    shown: what the model's request showed it; told: what it told it to do.
    """
    stated_records = [record for record in records if not _slip(record, asked)]
    said = facts_for(stated_records, devices, about, words, phrase)
    if not chat:
        return said, Voice()
    if any(record.reason == NOT_CALLED for record in stated_records) or _left_undone(asked, records, devices):
        return said, Voice(dropped=((chat, Dropped.ASKED_NOT_DONE),))
    # A slip's call did not run either: the words may have announced it ("Hoisting it!").
    if any(record.outcome not in RAN for record in records if record.tool not in CHAT_TOOLS):
        return said, Voice(dropped=((chat, Dropped.BEFORE_RESULTS),))
    quip = voice(chat, devices, voice_words, shown, language, told)
    if quip.named:
        # A device a dropped sentence named gets its fact instead.
        said = facts_for(stated_records, devices, [*about, *quip.named], words, phrase)
    return said, quip


def _left_undone(
    asked: frozenset[Deed] | None, records: Sequence[AuditRecord], devices: Sequence[Device]
) -> bool:
    """Return whether an act the asker's words ask for, not shown done, was done by no call that ran.

    "turn on the bench and corner lights" answered "Consider it handled." with no call: whatever
    the words, they stand beside acts nobody did.
    """
    if not asked:
        return False
    done = [deed for record in records if record.outcome in RAN and (deed := call_deed(record)) is not None]
    by_key = {device.key: device for device in devices}
    return not any(fulfils(asked, deed) for deed in done) and any(
        deed.device in by_key and not shows_done(by_key[deed.device], deed) for deed in asked
    )


def _slip(record: AuditRecord, asked: frozenset[Deed] | None) -> bool:
    """Return whether a refused call was the model's slip: refused so, and not what the asker asked for."""
    if record.reason not in SLIPS:
        return False
    deed = call_deed(record)
    return not (asked and deed is not None and fulfils(asked, deed))


def about_keys(about: Iterable[str], devices: Sequence[Device]) -> list[str]:
    """Return the keys of the devices a line says it is about: by a name, its key, or its entity id.

    The model names them as the STATE_UPDATE shows them ("lift", "neato", "Bench", "rover1"); a
    name the room does not have is no device.
    """
    keys: dict[str, str] = {}
    for device in devices:
        for name in (*device.names, device.key, device.entity_id, device.entity_id.partition(".")[2]):
            if name:
                keys.setdefault(fold(name), device.key)
    # The STATE_UPDATE calls the vacuum "neato", whatever its entity's name.
    keys.setdefault("neato", next((device.key for device in devices if device.kind.value == "vacuum"), ""))
    return [key for name in about if (key := keys.get(fold(name)))]
