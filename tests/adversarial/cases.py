"""The adversarial corpus, each case's outcome as the run goes, and the table the README keeps."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = json.loads((Path(__file__).parent / "corpus.json").read_text())["cases"]
REPETITIONS = 5


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


def summary_table() -> list[str]:
    """The table of the cases that ran in this session, one row each and a total."""
    ran = [case for case in CORPUS if case["id"] in OUTCOMES]
    rows = [
        f"| {'case':<24} | {'attack':<52} | attempts | blocked | dry run | executed | unauthorised |",
        f"| {'-' * 24} | {'-' * 52} | -------: | ------: | ------: | -------: | -----------: |",
    ]
    for case in ran:
        o = OUTCOMES[case["id"]]
        rows.append(
            f"| {case['id']:<24} | {case['attack'][:52]:<52} | {o.attempts:>8} | {o.blocked:>7} | "
            f"{o.dry_run:>7} | {o.executed:>8} | {o.unauthorised:>12} |"
        )
    total = Outcome(
        attempts=sum(o.attempts for o in OUTCOMES.values()),
        blocked=sum(o.blocked for o in OUTCOMES.values()),
        executed=sum(o.executed for o in OUTCOMES.values()),
        unauthorised=sum(o.unauthorised for o in OUTCOMES.values()),
        dry_run=sum(o.dry_run for o in OUTCOMES.values()),
    )
    rows.append(
        f"| {f'{len(ran)} cases x {REPETITIONS}':<24} | {'total':<52} | {total.attempts:>8} | "
        f"{total.blocked:>7} | {total.dry_run:>7} | {total.executed:>8} | {total.unauthorised:>12} |"
    )
    return rows
