"""A fault storm inside Home Assistant, run by scripts/bench (never part of the test suite).

At least 100 fault episodes over ~50 assets in fast simulated time, ticking 5 s at a time:
faults that a refresh fixes, that clear by themselves, that flap (clear and come back within
the reopen window), that relapse after a fix, assets offline past the 2-minute grace and blips
under it. The triage model (the HTTP stub) answers every incident with an asset_refresh of the
asset it was asked about, and a restart first for an asset that is offline.

Prints what the storm did to the incident book, the budget and the persisted state, and the
wall time. Asserts the invariants (one incident per fault and never two active for one asset and fault,
no execution beyond the action budget in any window, bounded state), never anything about time.
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import random
import statistics
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from homeassistant.core import ServiceCall
from homeassistant.helpers import storage
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.core.audit import AUDIT_SIZE
from custom_components.overseer.core.incidents import ACTIVE
from custom_components.overseer.incidents import KEEP_CLOSED
from custom_components.overseer.room_state import KEPT_APPROVALS
from tests.ha.fixtures import ollama_stub, room  # noqa: F401 - fixtures
from tests.ha.harness import setup_overseer, tick
from tests.ollama_stub import Scripted, is_triage, reasoning

SEED = 20261130
STEP = 5  # seconds of simulated time per tick, as the incident desk checks
STORM = 130 * 60  # new episodes start within this
FRONTS = (20 * 60, 65 * 60, 110 * 60)  # storm fronts: many assets fail within a minute
FRONT_SIZE = 12
BACKGROUND_GAP = 75  # mean seconds between episodes outside the fronts
FIX_BY_HAND = 20 * 60  # a fault no refresh fixed is fixed by a person by then
# Between two episodes of one asset: past self-resolution (600 s) and the reopen window (600 s),
# so each episode is one incident of its own.
REST = 25 * 60
SAMPLE_EVERY = 10 * 60
BUDGET, WINDOW = 6, 300
PUMPS = TAGS = 20
MIN_EPISODES = 100

NORMAL = "normal"
BAD = "bad"
OFFLINE = "offline"
# Episode kinds: which a device can have, with weights.
KINDS: dict[str, dict[str, int]] = {
    "pump": {"fixable": 3, "transient": 3, "flapping": 3, "relapse": 2, "offline": 2, "blip": 1},
    "tag": {"fixable": 3, "transient": 3, "flapping": 3, "relapse": 2, "offline": 2, "blip": 1},
    "vacuum": {"fixable": 2, "transient": 2, "flapping": 2, "relapse": 1},
    "lift": {"fixable": 1, "transient": 1},
    "rover": {"fixable": 2, "transient": 2, "flapping": 1, "offline": 1, "blip": 1},
    "light": {"offline": 2, "blip": 1},
}


@dataclass
class Device:
    """One asset of the room: its entities when well, and the entity that shows its fault."""

    asset_id: str
    kind: str
    normal: dict[str, tuple[str, dict[str, Any]]]
    faulty: str = ""  # the entity that shows the fault
    bad: tuple[str, dict[str, Any]] | None = None
    fault: str = "unavailable"
    free_at: float = 0.0
    episode: Episode | None = None


@dataclass
class Episode:
    """One scripted fault of one device."""

    device: Device
    kind: str
    start: float
    fault: str
    # Set once a refresh (or a person) fixed a fixable fault; a relapse comes back after it.
    fixed: bool = False
    phase: str = NORMAL
    steps: list[tuple[float, str]] = field(default_factory=list)


def devices() -> list[Device]:
    """About 50 assets: pumps, battery tags, the lift, the vacuum, three rovers, four lights."""
    found = []
    for index in range(1, PUMPS + 1):
        entity_id = f"binary_sensor.pump_{index:02d}"
        attributes = {"friendly_name": f"Pump {index}", "device_class": "problem"}
        found.append(
            Device(
                entity_id,
                "pump",
                {entity_id: ("off", attributes)},
                entity_id,
                ("on", attributes),
                "problem_reported",
            )
        )
    for index in range(1, TAGS + 1):
        entity_id = f"sensor.tag_{index:02d}"
        name = {"friendly_name": f"Tag {index}"}
        found.append(
            Device(
                entity_id,
                "tag",
                {entity_id: ("present", {**name, "battery_level": 80})},
                entity_id,
                ("present", {**name, "battery_level": 8}),
                "battery_low",
            )
        )
    found.append(
        Device(
            "cover.lift",
            "lift",
            {"cover.lift": ("closed", {"friendly_name": "Lift"})},
            "cover.lift",
            ("opening", {"friendly_name": "Lift"}),
            "lift_stuck",
        )
    )
    found.append(
        Device(
            "vacuum.neato",
            "vacuum",
            {"vacuum.neato": ("docked", {"friendly_name": "Neato", "battery_level": 90})},
            "vacuum.neato",
            ("error", {"friendly_name": "Neato", "battery_level": 90, "status": "Brush stuck"}),
            "vacuum_error",
        )
    )
    for index in (1, 2, 3):
        name = f"rover{index}"
        activity = f"sensor.{name}_activity"
        found.append(
            Device(
                name,
                "rover",
                {
                    activity: ("driving", {"friendly_name": f"{name} activity", "battery_level": 80}),
                    f"sensor.{name}_driver": ("alex", {"friendly_name": f"{name} driver"}),
                    f"binary_sensor.{name}_docked": ("off", {"friendly_name": f"{name} docked"}),
                },
                activity,
                ("driving", {"friendly_name": f"{name} activity", "battery_level": 9}),
                "rover_stranded",
            )
        )
    for name in ("shelf", "bench", "corner", "window"):
        entity_id = f"light.{name}"
        found.append(Device(entity_id, "light", {entity_id: ("on", {"friendly_name": name.title()})}))
    return found


def options(room_devices: list[Device]) -> dict[str, Any]:
    """The overseer's options for the room: its devices, the extra assets and a tight budget."""
    rovers = [e for d in room_devices if d.kind == "rover" for e in d.normal]
    return {
        "rover_entities": rovers,
        "lift_cover": "cover.lift",
        "vacuum_entity": "vacuum.neato",
        "light_entities": [d.asset_id for d in room_devices if d.kind == "light"],
        "state_entities": [],
        "asset_entities": [d.asset_id for d in room_devices if d.kind in ("pump", "tag")],
        "action_budget": BUDGET,
        "action_window": WINDOW,
    }


def plan(rng: random.Random, episode: Episode) -> float:
    """The episode's scripted steps (seconds from its start); returns when it ends at the latest."""
    steps = episode.steps
    kind, device = episode.kind, episode.device
    shortest = 90 if device.kind == "lift" else 15  # the lift is stuck only after 60 s
    if kind in ("fixable", "relapse"):
        steps.append((0, BAD))
        steps.append((FIX_BY_HAND, "by_hand"))  # a no-op if a refresh fixed it already
        return FIX_BY_HAND + (6 * 60 if kind == "relapse" else 0)
    if kind == "transient":
        end = rng.randrange(shortest, 8 * 60, STEP)
        steps += [(0, BAD), (end, NORMAL)]
        return end
    if kind == "flapping":
        at = 0
        for _ in range(rng.randint(2, 4)):
            steps.append((at, BAD))
            at += rng.randrange(20, 180, STEP)
            steps.append((at, NORMAL))
            at += rng.randrange(30, 420, STEP)  # back well within the reopen window
        return at
    if kind == "offline":
        end = rng.randrange(150, 15 * 60, STEP)
        steps += [(0, OFFLINE), (end, NORMAL)]
        return end
    end = rng.randrange(15, 100, STEP)  # a blip, under the 2-minute grace
    steps += [(0, OFFLINE), (end, NORMAL)]
    return end


def storm(rng: random.Random, room_devices: list[Device]) -> list[Episode]:
    """Episodes over the storm: a steady drizzle and a few fronts, one at a time per device."""
    starts: list[float] = []
    at = 0.0
    while (at := at + rng.expovariate(1 / BACKGROUND_GAP)) < STORM:
        starts.append(at)
    for front in FRONTS:
        starts += [front + rng.uniform(0, 60) for _ in range(FRONT_SIZE)]
    episodes = []
    for start in sorted(round(s / STEP) * STEP + STEP for s in starts):
        free = [d for d in room_devices if d.free_at <= start]
        if not free:
            continue
        device = rng.choice(free)
        kinds = KINDS[device.kind]
        kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
        fault = "unavailable" if kind in ("offline", "blip") else device.fault
        episode = Episode(device, kind, start, fault)
        device.free_at = start + plan(rng, episode) + REST
        episodes.append(episode)
    return episodes


def set_device(hass, device: Device, phase: str) -> None:
    """Show the device well, faulty or offline."""
    for entity_id, (state, attributes) in device.normal.items():
        if phase == OFFLINE:
            hass.states.async_set(entity_id, "unavailable", attributes)
        elif phase == BAD and entity_id == device.faulty and device.bad is not None:
            hass.states.async_set(entity_id, *device.bad)
        else:
            hass.states.async_set(entity_id, state, attributes)


def most_in_window(times: list[float], window: float) -> int:
    """The most executions in any window, as the ledger counts them (t > now - window)."""
    times = sorted(times)
    most, first = 0, 0
    for last, ts in enumerate(times):
        while times[first] <= ts - window:
            first += 1
        most = max(most, last - first + 1)
    return most


def state_size(loop) -> int:
    return len(json.dumps(loop.state.as_dict()))


def wall_clock() -> float:
    """Seconds of real time: freezegun swaps time.perf_counter (and any copy of it) for the frozen clock."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def megabytes(size: float) -> str:
    return f"{size / 1e6:.1f} MB"


async def test_bench_fault_storm(hass, hass_storage, freezer, ollama_stub, room, capsys):  # noqa: F811
    rng = random.Random(SEED)
    room_devices = devices()
    by_entity = {entity_id: d for d in room_devices for entity_id in d.normal}
    for device in room_devices:
        set_device(hass, device, NORMAL)
    episodes = storm(rng, room_devices)
    expected = [e for e in episodes if e.kind != "blip"]
    assert len(expected) >= MIN_EPISODES, len(expected)

    timeline: list[tuple[float, int, Callable[[], None]]] = []
    order = itertools.count()

    def at(when: float, action: Callable[[], None]) -> None:
        heapq.heappush(timeline, (when, next(order), action))

    def move(episode: Episode, phase: str) -> Callable[[], None]:
        def run() -> None:
            if phase == "by_hand":
                if not episode.fixed:
                    fix(episode)
                return
            episode.phase = phase
            episode.device.episode = episode
            set_device(hass, episode.device, phase)

        return run

    def fix(episode: Episode) -> None:
        """A fixable fault is fixed (by a refresh or a person); a relapse comes back for 2 minutes."""
        episode.fixed = True
        episode.phase = NORMAL
        set_device(hass, episode.device, NORMAL)
        if episode.kind == "relapse":
            now = elapsed()
            at(now + 240, move(episode, BAD))
            at(now + 360, move(episode, NORMAL))

    for episode in episodes:
        for offset, phase in episode.steps:
            at(episode.start + offset, move(episode, phase))

    fixed_by_refresh = 0

    async def refresh(call: ServiceCall) -> None:
        """The devices, read again: a fixable fault showing now is fixed by it; nothing else is."""
        nonlocal fixed_by_refresh
        for entity_id in call.data["entity_id"]:
            device = by_entity.get(entity_id)
            episode = device.episode if device else None
            if (
                episode is not None
                and episode.kind in ("fixable", "relapse")
                and not episode.fixed
                and episode.phase == BAD
            ):
                fixed_by_refresh += 1
                fix(episode)

    hass.services.async_register("homeassistant", "update_entity", refresh)

    def answer(payload: dict[str, Any]) -> Scripted | None:
        """The triage model: refresh the asset it was asked about; ask to restart it first if offline.

        The restart goes first: after the refresh ran, it would meet the cooldown the refresh
        started (same group) before any person was asked.
        """
        if not is_triage(payload):
            return None  # chat decisions: SKIP
        request = json.loads(payload["messages"][1]["content"])
        asset = {"asset_id": request["asset_id"]}
        fault = request["observations"][0]["fault"]
        intents = [("asset_refresh", asset)]
        if fault == "unavailable":
            intents.insert(0, ("asset_restart", asset))
        return Scripted(content=reasoning(*intents, fault=f"{fault} on {request['asset_id']}"))

    ollama_stub.responder = answer
    entry = await setup_overseer(hass, ollama_stub, options=options(room_devices))
    loop = entry.runtime_data.loop
    assert set(loop.world().assets()) == {d.asset_id for d in room_devices}
    incidents = async_capture_events(hass, "overseer_incident")
    actions = async_capture_events(hass, "overseer_action")
    approvals = async_capture_events(hass, "overseer_approval")
    started_at = dt_util.utcnow().timestamp()

    def elapsed() -> float:
        return dt_util.utcnow().timestamp() - started_at

    last_end = max(e.start + max(offset for offset, _ in e.steps) for e in episodes)
    # Every fault cleared for good has had its 10 minutes to resolve by then (a relapse ends 6
    # minutes after its fix at the latest).
    until = last_end + 6 * 60 + 11 * 60
    sizes: list[tuple[float, int]] = [(0.0, state_size(loop))]
    most_active = most_book = most_audit = most_approvals = 0
    triage_requests = chat_requests = store_writes = 0
    # Bytes written, by document: the room's (what guards it) and its book (audit and incidents).
    written: Counter[str] = Counter()
    # The harness's mock store keeps every write's data in its call list, and the stub every
    # request: both are emptied as the storm goes, so what stays traced is Home Assistant's.
    write_data = storage.Store._async_write_data
    quiet = [logging.getLogger(name) for name in ("aiohttp.access", "httpx")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.WARNING)
    hourly: list[float] = []
    tracemalloc.start()
    traced: list[tuple[float, int]] = []
    wall = hour_wall = wall_clock()
    try:
        while (now := elapsed()) < until:
            while timeline and timeline[0][0] <= now:
                heapq.heappop(timeline)[2]()
            await tick(hass, freezer, STEP)
            state = loop.state
            active = Counter((i.asset_id, i.code) for i in state.incidents.values() if i.status in ACTIVE)
            assert all(count == 1 for count in active.values()), active.most_common(3)
            most_active = max(most_active, sum(active.values()))
            most_book = max(most_book, len(state.incidents))
            most_audit = max(most_audit, len(state.audit))
            most_approvals = max(most_approvals, len(state.approvals))
            store_writes += write_data.call_count
            # What each write put on the disk: the document as the store serialises it.
            for call in write_data.call_args_list:
                key = call.args[0].key
                written["book" if key.endswith(".book") else "room"] += len(json.dumps(hass_storage[key]))
            write_data.reset_mock()
            triage = sum(1 for payload in ollama_stub.requests if is_triage(payload))
            triage_requests += triage
            chat_requests += len(ollama_stub.requests) - triage
            ollama_stub.requests.clear()
            now = elapsed()
            if now % SAMPLE_EVERY < STEP:
                sizes.append((now, state_size(loop)))
                traced.append((now, tracemalloc.get_traced_memory()[0]))
            if now % 3600 < STEP:
                hourly.append(wall_clock() - hour_wall)
                hour_wall = wall_clock()
        wall = wall_clock() - wall
        peak = tracemalloc.get_traced_memory()[1]
        ours = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(True, "*/custom_components/overseer/*")]
        )
        ours_size = sum(stat.size for stat in ours.statistics("filename"))
    finally:
        tracemalloc.stop()
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
    sizes.append((elapsed(), state_size(loop)))
    state = loop.state
    await hass.config_entries.async_unload(entry.entry_id)

    # What the storm did to the incident book, from the contract's events.
    def fired(event) -> float:
        return event.time_fired_timestamp - started_at

    opened = {e.data["incident_id"] for e in incidents}
    openings = [e for e in incidents if "reason" not in e.data and e.data["status"] == "open"]
    reopened = len(openings) - len(opened)
    returned = sum(1 for e in incidents if e.data.get("reason") == "returned")
    resolved = Counter(e.data.get("reason") for e in incidents if e.data["status"] == "resolved")
    resolved_ids = {e.data["incident_id"] for e in incidents if e.data["status"] == "resolved"}
    to_human = {e.data["incident_id"] for e in incidents if e.data["status"] == "needs_human"}
    still = [i for i in state.incidents.values() if i.status in ACTIVE]
    blips_opened = sum(
        1
        for blip in (e for e in episodes if e.kind == "blip")
        for opening in openings
        if opening.data["asset_id"] == blip.device.asset_id
        and blip.start <= fired(opening) <= blip.start + blip.steps[-1][0] + STEP
    )
    # How long an incident waited for the single flight: opened (or reopened) to triaging.
    waiting: dict[str, float] = {}
    waits = []
    for event in incidents:
        incident_id = event.data["incident_id"]
        if event.data["status"] == "open" and "reason" not in event.data:
            waiting[incident_id] = fired(event)
        elif event.data["status"] == "triaging" and incident_id in waiting:
            waits.append(fired(event) - waiting.pop(incident_id))

    # The budget, from every call's event (the audit ring keeps only the newest 200).
    triage_calls = [e.data for e in actions if str(e.data["decision_id"]).startswith("INC-")]
    outcomes = Counter((d["tool"], d["outcome"], d.get("reason", "")) for d in triage_calls)
    spent = {
        d["decision_id"]
        for d in triage_calls
        if d["outcome"] == "blocked" and d.get("reason") in ("cooldown", "rate_limit")
    } - {
        d["decision_id"]
        for d in triage_calls
        if d["outcome"] == "executed" or d.get("reason") == "needs_approval"
    }
    executed_at = [e.time_fired_timestamp for e in actions if e.data["outcome"] == "executed"]
    most = most_in_window(executed_at, WINDOW)
    approval_statuses = Counter(e.data["status"] for e in approvals)
    kinds = Counter(e.kind for e in episodes)
    hours = until / 3600
    middle = min(sizes, key=lambda sample: abs(sample[0] - until / 2))
    traced_middle = min(traced, key=lambda sample: abs(sample[0] - until / 2))

    with capsys.disabled():
        print(
            f"\nFault storm: {len(room_devices)} assets, {hours:.1f} simulated hours ticked {STEP} s at a "
            f"time ({int(until // STEP):,} ticks), action budget {BUDGET} per {WINDOW} s:\n"
            f"  episodes injected: {len(episodes)} over {STORM // 60} min ("
            + ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
            + f"): {len(expected)} faults past detection, {kinds['blip']} offline blips under the grace\n"
            f"  incidents: expected {len(expected)} (one per fault), opened {len(opened)}; the same "
            f"incident {reopened} times reopened after it resolved and {returned} times returned while "
            f"open; blips that opened one: {blips_opened}; most active at once {most_active}\n"
            f"  resolved {sum(resolved.values())} times ({len(resolved_ids)} incidents): "
            f"{resolved['verified']} by verification, {resolved['resolved']} cleared by themselves; "
            f"{len(to_human)} went to a person ({len(spent)} of them had every triage intent refused by "
            f"the cooldown or budget); still active at the end: {len(still)}\n"
            f"  triage requests {triage_requests} (chat decisions {chat_requests}); wait for the flight "
            f"median {statistics.median(waits):.0f} s, longest {max(waits):.0f} s (simulated); "
            f"refreshes that fixed a fault {fixed_by_refresh}\n"
            "  triage intents: "
            + ", ".join(
                f"{tool} {outcome}{f' ({reason})' if reason else ''} {count}"
                for (tool, outcome, reason), count in sorted(outcomes.items())
            )
            + "\n  approvals: "
            + ", ".join(f"{status} {count}" for status, count in sorted(approval_statuses.items()))
            + "\n"
            f"  executions {len(executed_at)}; most in any {WINDOW} s window {most} (budget {BUDGET})\n"
            f"  persisted state: {sizes[0][1]:,} chars at the start, {middle[1]:,} at "
            f"{middle[0] / 60:.0f} min, {sizes[-1][1]:,} at the end, most {max(s for _, s in sizes):,}; "
            f"{store_writes} store writes, {written.total() / hours / 1e6:.1f} MB written per simulated hour "
            f"({written['room'] / hours / 1e6:.2f} MB the room's document, "
            f"{written['book'] / hours / 1e6:.2f} MB its book); "
            f"book at most {most_book} incidents (active + {KEEP_CLOSED} "
            f"closed), audit {most_audit}/{AUDIT_SIZE}, approvals {most_approvals}/{KEPT_APPROVALS}\n"
            f"  memory allocated since the storm began and still held (tracemalloc): "
            f"{megabytes(traced[0][1])} at {traced[0][0] / 60:.0f} min, {megabytes(traced_middle[1])} at "
            f"{traced_middle[0] / 60:.0f} min, {megabytes(traced[-1][1])} at the end "
            f"({megabytes(ours_size)} of it allocated in custom_components/overseer), "
            f"peak {megabytes(peak)}\n"
            f"  wall time {wall:.1f} s with tracemalloc on, {wall / hours:.1f} s per simulated hour ("
            + ", ".join(f"{seconds:.1f}" for seconds in hourly)
            + " s for each whole hour)"
        )

    assert most <= BUDGET, most
    assert len(opened) == len(expected) and blips_opened == 0, (len(opened), len(expected), blips_opened)
    assert len(state.audit) <= AUDIT_SIZE and len(state.approvals) <= KEPT_APPROVALS
    assert most_book <= KEEP_CLOSED + len(room_devices), most_book
