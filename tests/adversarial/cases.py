"""The adversarial corpus, each case's outcome as the run goes, and docs/development/proof.md's table."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = json.loads((Path(__file__).parent / "corpus.json").read_text())["cases"]
REPETITIONS = 5
# Audited outcomes that ran nothing: a refusal, or a call waiting for a person's approval.
STOPPED = ("blocked", "awaiting_approval")


@dataclass
class Outcome:
    """What one case did over its repetitions."""

    attempts: int = 0
    blocked: int = 0
    executed: int = 0
    unauthorised: int = 0
    dry_run: int = 0
    problems: list[str] = field(default_factory=list)


# Each case's outcome over its repetitions, for the summary table printed at the end.
OUTCOMES: dict[str, Outcome] = {}
# The same cases replayed by another agent through the guardrails LLM API: one total row.
API_OUTCOMES: dict[str, Outcome] = {}
# A hostile triage model's replies to an incident (test_triage_path.py): one total row.
TRIAGE_OUTCOMES: dict[str, Outcome] = {}
# The orchestrator against hostile bots' answers and a hostile router/judge (test_orchestrator_path.py).
ANSWER_OUTCOMES: dict[str, Outcome] = {}
ROUTING_OUTCOMES: dict[str, Outcome] = {}
# A model that says it acted when it did not (test_claims_path.py).
CLAIM_OUTCOMES: dict[str, Outcome] = {}
# Forged, replayed, expired, wrong-user and out-of-grant answers to approvals (test_approvals_path.py).
APPROVAL_OUTCOMES: dict[str, Outcome] = {}
# Household and read-only users against the locks, and borrowed identities (test_trust_path.py).
TRUST_OUTCOMES: dict[str, Outcome] = {}
# Calls and writes timed around a reload of the room (test_reload_path.py).
RELOAD_OUTCOMES: dict[str, Outcome] = {}
# Calls that may have reached a device but spent no cooldown or budget (test_records_path.py).
COUNTING_OUTCOMES: dict[str, Outcome] = {}
# Arguments that broke the status, the events or the store; refusals flooding the audit (same file).
RECORD_OUTCOMES: dict[str, Outcome] = {}


def _total(outcomes: dict[str, Outcome]) -> Outcome:
    return Outcome(
        attempts=sum(o.attempts for o in outcomes.values()),
        blocked=sum(o.blocked for o in outcomes.values()),
        executed=sum(o.executed for o in outcomes.values()),
        unauthorised=sum(o.unauthorised for o in outcomes.values()),
        dry_run=sum(o.dry_run for o in outcomes.values()),
    )


def _row(label: str, attack: str, o: Outcome) -> str:
    return (
        f"| {label:<24} | {attack[:52]:<52} | {o.attempts:>8} | {o.blocked:>7} | "
        f"{o.dry_run:>7} | {o.executed:>8} | {o.unauthorised:>12} |"
    )


def summary_table() -> list[str]:
    """The table of the cases that ran in this session, one row each and a total."""
    ran = [case for case in CORPUS if case["id"] in OUTCOMES]
    rows = [
        f"| {'case':<24} | {'attack':<52} | attempts | blocked | dry run | executed | unauthorised |",
        f"| {'-' * 24} | {'-' * 52} | -------: | ------: | ------: | -------: | -----------: |",
    ]
    rows += [_row(case["id"], case["attack"], OUTCOMES[case["id"]]) for case in ran]
    if OUTCOMES:
        rows.append(_row(f"{len(ran)} cases x {REPETITIONS}", "total", _total(OUTCOMES)))
    if API_OUTCOMES:
        label = f"{len(API_OUTCOMES)} cases x {REPETITIONS}"
        rows.append(_row(label, "the same, by another agent through the LLM API", _total(API_OUTCOMES)))
    if TRIAGE_OUTCOMES:
        label = f"{len(TRIAGE_OUTCOMES)} replies x {REPETITIONS}"
        rows.append(_row(label, "a hostile triage model (tool intents)", _total(TRIAGE_OUTCOMES)))
    for outcomes, attack in (
        (ANSWER_OUTCOMES, "orchestrator: bots' answers that try to steer it"),
        (ROUTING_OUTCOMES, "orchestrator: a hostile router and judge"),
        (CLAIM_OUTCOMES, "unbacked claims: actions said, not run (line posted)"),
        (APPROVAL_OUTCOMES, "approvals: forged/replayed/expired/wrong-user/grant"),
        (TRUST_OUTCOMES, "trust: loosening locks, admin services, borrowed names"),
        (RELOAD_OUTCOMES, "reload races: calls across it, late writes after it"),
        (COUNTING_OUTCOMES, "calls not counted: raised, timed out, cancelled"),
        (RECORD_OUTCOMES, "records any caller can break: 2 MB, 400 levels, 2^70"),
    ):
        if outcomes:
            rows.append(_row(f"{len(outcomes)} cases x {REPETITIONS}", attack, _total(outcomes)))
    return rows
