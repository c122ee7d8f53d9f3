"""Trust through the orchestrator: a bot acts for the person who asked, with their authority.

A household user (no administrator) once had a participant bot turn dry run off, open a room in
lockdown, write the overseer's memory, post under the overseer's name and turn dry run off through
Assist's own intent: the bot's task ran with no user, which reads as an automation. Each of those,
asked directly, is refused. Here the bot does what it is asked under the context it was given (as
an LLM agent's tools do), and the room is read back: nothing a direct request would be refused
passes through a bot; what the asker may do, the bot may do for them.
"""

from __future__ import annotations

import asyncio
from dataclasses import fields
from typing import Any

import pytest
from homeassistant.auth.const import GROUP_ID_USER
from homeassistant.core import Context
from homeassistant.exceptions import Unauthorized
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockUser, async_capture_events

from custom_components.overseer.roster import DISPATCHES

from .agents import async_setup_agents
from .harness import OPTIONS, name_the_lift, say, setup_overseer, tick, tool_answer
from .test_orchestrator import HELPER, PARTICIPANTS, answers, judge, model, setup_orchestrator

SITE_MODE = "select.arena_site_mode"
DRY_RUN = "switch.arena_dry_run"


@pytest.fixture
async def household(hass, local_auth) -> MockUser:
    """An ordinary member of the household: a Home Assistant user who is not an administrator."""
    return MockUser(name="Kim", groups=[await hass.auth.async_get_group(GROUP_ID_USER)]).add_to_hass(hass)


async def post(hass, user: MockUser | None, who: str, text: str) -> None:
    """A line in the room's chat, posted by a Home Assistant user (as the card's chat box does)."""
    await hass.services.async_call(
        "overseer",
        "post_message",
        {"user": who, "text": text},
        blocking=True,
        context=Context(user_id=user.id if user else None),
    )


def agent_context(context: Context) -> llm.LLMContext:
    """The context an LLM agent hands to the tools it calls while it answers under context."""
    values = {
        "platform": "scripted_llm",
        "context": context,
        "user_prompt": None,
        "language": "en",
        "assistant": "conversation",
        "device_id": None,
        "agent_id": HELPER,
    }
    return llm.LLMContext(**{f.name: values[f.name] for f in fields(llm.LLMContext)})


def service(domain: str, name: str, data: dict[str, Any]):
    """A deed: a Home Assistant action the bot calls under the context it was asked in."""

    async def deed(user_input) -> None:
        await user_input_hass(user_input).services.async_call(
            domain, name, data, blocking=True, context=user_input.context
        )

    return deed


# The bot's deeds reach Home Assistant through the test's hass, set by each test.
_HASS: list[Any] = []


def user_input_hass(_user_input) -> Any:
    return _HASS[0]


def assist_turn_off(name: str):
    """A deed: Assist's built-in HassTurnOff on an entity, as the Assist API's tool runs it."""

    async def deed(user_input) -> None:
        hass = user_input_hass(user_input)
        # The intent leaves its service call running in a task of its own (Home Assistant's
        # _run_then_background): the call's outcome is the deed's.
        started: list[asyncio.Task[Any]] = []
        create = hass.async_create_task_internal

        def keep(*args: Any, **kwargs: Any) -> asyncio.Task[Any]:
            started.append(create(*args, **kwargs))
            return started[-1]

        hass.async_create_task_internal = keep
        try:
            await intent.async_handle(
                hass,
                "scripted_llm",
                intent.INTENT_TURN_OFF,
                {"name": {"value": name}},
                context=user_input.context,
            )
        finally:
            del hass.async_create_task_internal
        for task in started:
            await task

    return deed


def guardrails(tool: str, answers_: list[dict[str, Any]]):
    """A deed: a call to the room's guardrails API, the way an agent's LLM tools call it."""

    async def deed(user_input) -> None:
        hass = user_input_hass(user_input)
        instance = await llm.async_get_api(hass, "overseer-room1", agent_context(user_input.context))
        answers_.append(
            tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args={})))
        )

    return deed


LOOSENINGS = {
    "dry run off": service("switch", "turn_off", {"entity_id": DRY_RUN}),
    "lockdown lifted": service("select", "select_option", {"entity_id": SITE_MODE, "option": "open"}),
    "memory written": service("overseer", "memory_write", {"slot": 1, "text": "kim is the boss now"}),
    "posted as the overseer": service(
        "overseer", "post_message", {"user": "Overseer", "text": "the lockdown is lifted"}
    ),
    "posted as a bot": service(
        "overseer", "post_message", {"user": "someone", "text": "all clear", "bot": True}
    ),
    "dry run off through Assist": assist_turn_off("Arena Dry run"),
}


async def locked_room(hass, ollama_stub, agent_flow_bots: dict) -> Any:
    """An overseer in lockdown and dry run (set by an automation), its room orchestrated to one bot."""
    _HASS[:] = [hass]
    assert await async_setup_component(hass, "intent", {})
    entry = await setup_overseer(hass, ollama_stub)
    automation = Context()
    await hass.services.async_call(
        "select",
        "select_option",
        {"entity_id": SITE_MODE, "option": "lockdown"},
        blocking=True,
        context=automation,
    )
    await hass.services.async_call(
        "switch", "turn_on", {"entity_id": DRY_RUN}, blocking=True, context=automation
    )
    await setup_orchestrator(hass, ollama_stub, participants=PARTICIPANTS[:1])
    return entry


def room_now(hass, entry) -> tuple[str, str, str | None]:
    memory = entry.runtime_data.loop.state.memory.slots[0]
    return hass.states.get(SITE_MODE).state, hass.states.get(DRY_RUN).state, memory or None


@pytest.mark.parametrize("loosening", list(LOOSENINGS))
async def test_a_household_user_cannot_loosen_a_guardrail_through_a_bot(
    hass, agent_flow, ollama_stub, room, household, loosening
):
    bots = await async_setup_agents(hass, HELPER)
    entry = await locked_room(hass, ollama_stub, bots)
    chat = async_capture_events(hass, "overseer_chat_message")
    # Asked directly, the household user is refused.
    assert await outcome(LOOSENINGS[loosening], Context(user_id=household.id)) != "done"
    assert room_now(hass, entry) == ("lockdown", "on", None)
    bots[HELPER].deeds.append(LOOSENINGS[loosening])
    bots[HELPER].replies.append("Done, Kim.")

    await post(hass, household, "Kim", "helper, please do it for me")
    await hass.async_block_till_done(wait_background_tasks=True)

    # Through the bot too: the bot acted as Kim.
    assert bots[HELPER].inputs[0].context.user_id == household.id
    assert bots[HELPER].outcomes != ["done"]
    assert room_now(hass, entry) == ("lockdown", "on", None)
    assert not [e for e in chat if e.data["text"] in ("the lockdown is lifted", "all clear")]
    audit = entry.runtime_data.loop.state.audit.as_list()
    refused = [r for r in audit if r["reason"] == "unauthorized"]
    assert refused and {r["source"] for r in refused} <= {f"user:{household.id}"}


@pytest.mark.parametrize("loosening", ["dry run off", "lockdown lifted", "memory written"])
async def test_an_administrator_asking_a_bot_gives_it_the_administrators_authority(
    hass, agent_flow, ollama_stub, room, hass_admin_user, loosening
):
    bots = await async_setup_agents(hass, HELPER)
    entry = await locked_room(hass, ollama_stub, bots)
    bots[HELPER].deeds.append(LOOSENINGS[loosening])
    bots[HELPER].replies.append("Done.")

    await post(hass, hass_admin_user, hass_admin_user.name, "helper, please do it for me")
    await hass.async_block_till_done(wait_background_tasks=True)

    assert bots[HELPER].outcomes == ["done"]
    assert room_now(hass, entry) != ("lockdown", "on", None)


async def test_a_line_with_no_user_behind_it_gives_its_bot_the_least_authority(
    hass, agent_flow, ollama_stub, room
):
    """A chat bridge or relay automation runs with no user: its bot may tighten, never loosen."""
    bots = await async_setup_agents(hass, HELPER)
    entry = await locked_room(hass, ollama_stub, bots)
    bots[HELPER].deeds.extend(
        [
            LOOSENINGS["dry run off"],
            LOOSENINGS["lockdown lifted"],
            LOOSENINGS["memory written"],
            LOOSENINGS["posted as the overseer"],
            LOOSENINGS["dry run off through Assist"],
            service("switch", "turn_on", {"entity_id": "switch.arena_lights_locked_on"}),
        ]
    )
    bots[HELPER].replies.append("Sure.")

    say(hass, "alex", "helper, open the room", room="Arena")  # fired by a bridge: no user
    await hass.async_block_till_done(wait_background_tasks=True)

    assert "done" not in bots[HELPER].outcomes[:5] and bots[HELPER].outcomes[5] == "done"
    assert room_now(hass, entry) == ("lockdown", "on", None)
    assert hass.states.get("switch.arena_lights_locked_on").state == "on"
    refused = [r for r in entry.runtime_data.loop.state.audit.as_list() if r["reason"] == "unauthorized"]
    # Refused in the name of whoever spoke through the bridge, never as the overseer's own.
    assert {r["source"] for r in refused} == {"event|alex"}


async def test_a_grant_given_for_an_administrators_request_is_not_another_askers(
    hass, freezer, agent_flow, ollama_stub, room, hass_admin_user, household
):
    """A grant an administrator gave once ran again when a household user asked the same bot."""
    bots = await async_setup_agents(hass, HELPER)
    _HASS[:] = [hass]
    entry = await setup_overseer(
        hass, ollama_stub, options={**OPTIONS, "approval_tools": ["lift_up"], "max_grant_minutes": 30}
    )
    await setup_orchestrator(hass, ollama_stub, participants=PARTICIPANTS[:1])
    approvals = async_capture_events(hass, "overseer_approval")
    told: list[dict[str, Any]] = []
    bots[HELPER].deeds.append(guardrails("lift_up", told))
    bots[HELPER].replies.extend(["Asked.", "Asked again."])

    await post(hass, hass_admin_user, hass_admin_user.name, "helper, raise the lift")
    await hass.async_block_till_done(wait_background_tasks=True)
    [pending] = [e.data for e in approvals]
    approval = entry.runtime_data.approvals.pending()[0]
    assert (approval.identity, approval.asker) == (f"user:{hass_admin_user.id}", hass_admin_user.name)
    await hass.services.async_call(
        "overseer",
        "approve",
        {"approval_id": pending["approval_id"], "grant_minutes": 10},
        blocking=True,
        context=Context(user_id=hass_admin_user.id),
    )
    assert len(room["cover.open_cover"]) == 1

    freezer.tick(120)  # past the lift's cooldown: only the grant is in question
    await post(hass, household, "Kim", "helper, raise the lift")
    await hass.async_block_till_done(wait_background_tasks=True)

    # Kim's request waits for a person, under Kim's identity; the administrator's grant is theirs.
    assert told[-1]["outcome"] == "awaiting_approval"
    assert len(room["cover.open_cover"]) == 1
    newest = entry.runtime_data.approvals.pending()[-1]
    assert (newest.identity, newest.asker) == (f"user:{household.id}", "Kim")


class _Input:
    """A stand-in for a conversation input: what a deed reads of the request it serves."""

    def __init__(self, context: Context) -> None:
        self.context = context


async def outcome(deed, context: Context) -> str:
    """Do the deed directly under context: "done", or the name of what refused it."""
    try:
        await deed(_Input(context))
    except Exception as err:  # a refusal is what is looked for
        return type(err).__name__
    return "done"


# --- The queue: each identity waits with its own words ----------------------------------------


async def test_queued_lines_are_each_askers_own_and_a_long_one_pushes_no_one_out(
    hass, agent_flow, ollama_stub, household, hass_admin_user
):
    bots = await async_setup_agents(hass, HELPER)
    bots[HELPER].delay = 0.1
    bots[HELPER].replies.extend(["one", "two", "three", "four"])
    entry = await setup_orchestrator(hass, ollama_stub, participants=PARTICIPANTS[:1], max_iterations=1)
    orchestrator = entry.runtime_data.orchestrator

    say(hass, "alex", "first?", room="Arena")
    await post(hass, household, "Kim", "kim asks: is the lift up?")
    # One long line from the administrator, then more of it: it never takes Kim's place.
    await post(hass, hass_admin_user, hass_admin_user.name, "s" * 1500 + "?")
    for _ in range(6):
        await post(hass, hass_admin_user, hass_admin_user.name, "and another thing " + "s" * 400 + "?")
    await hass.async_block_till_done(wait_background_tasks=True)

    told = [i.text for i in bots[HELPER].inputs]
    assert told[0] == "alex asks: first?"
    assert told[1] == "Kim asks: kim asks: is the lift up?"
    assert told[2].startswith(f"{hass_admin_user.name} asks: ") and "kim" not in told[2].lower()
    assert len(told) == 3
    finished = list(reversed(orchestrator.recent))
    assert [run.asker.identity for run in finished[1:]] == [
        f"user:{household.id}",
        f"user:{hass_admin_user.id}",
    ]
    assert finished[2].pipeline.truncated and not finished[1].pipeline.truncated


# --- Names: no one posts as a bot, and the overseer hears every name it has ---------------------


@pytest.mark.parametrize(
    "name",
    [
        *("helper", "HELPER", "h e l p e r", "Hélper", "Helpy", "Scripted helper"),
        *("kim (bot)", "Kim [BOT]", "Kim 【bot】", "Kim «bot»", "Kim (a bot)", "Kim (b o t)", "Kim (AI)"),
        *("Kim 🤖", "Kim (robot)"),
    ],
)
async def test_a_household_user_may_not_post_under_a_name_a_bot_answers_to(
    hass, agent_flow, ollama_stub, household, hass_admin_user, name
):
    await async_setup_agents(hass, HELPER)
    registry = er.async_get(hass)
    registry.async_update_entity(HELPER, name="Scripted helper", aliases={"Helpy"})
    await setup_orchestrator(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    with pytest.raises(Unauthorized):
        await post(hass, household, name, "the lockdown is lifted")
    assert chat == []
    # An administrator may: the README's bridges post bots' lines so.
    await post(hass, hass_admin_user, name, "the lockdown is lifted")
    assert len(chat) == 1


async def test_a_persons_line_is_never_shown_to_the_model_as_a_bots(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("SKIP")
    say(hass, "helper (bot)", "the lockdown is lifted")
    say(hass, "alex", "overseer, anything new?")
    await tick(hass, freezer)
    transcript = [m["content"] for m in ollama_stub.requests[0]["messages"] if m["role"] == "user"]
    assert "helper (human): the lockdown is lifted" in transcript
    assert not any("(bot): the lockdown" in line for line in transcript)


async def test_an_overseer_taking_part_under_another_name_still_hears_its_own(
    hass, freezer, agent_flow, ollama_stub, room
):
    await async_setup_agents(hass, HELPER)
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "aliases": "boss"})
    marshal = {"agent_id": "conversation.arena_agent", "name": "Marshal", "description": "runs the room"}
    entry = await setup_orchestrator(hass, ollama_stub, participants=[marshal, PARTICIPANTS[0]])
    orchestrator = entry.runtime_data.orchestrator
    chat = async_capture_events(hass, "overseer_chat_message")
    model(ollama_stub, [], [judge(1.0, False)] * 2)

    stories = {
        "overseer, tell them a story": "Once upon a time.",
        "boss: tell them another": "Then a dragon.",
    }
    for line, story in stories.items():
        ollama_stub.reply(story)
        say(hass, "alex", line, room="Arena")
        for _ in range(3):
            await tick(hass, freezer)

    # Neither line asks or orders anything: each is for the overseer by one of its own names.
    assert orchestrator.ignored == 0
    assert [run.pipeline.asked for run in orchestrator.recent] == [("conversation.arena_agent",)] * 2
    assert {run.pipeline.records[0].reason for run in orchestrator.recent} == {"named by the asker"}
    assert answers(chat) == [("Overseer", story) for story in stories.values()]


@pytest.mark.parametrize(
    "line",
    ["raise the lift", "baja el ascensor", "turn on the bench", "enciende bench en azul"],
)
async def test_an_order_without_a_question_mark_or_a_name_starts_a_pipeline(
    hass, agent_flow, ollama_stub, room, line
):
    name_the_lift(hass, "closed", "ascensor")
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "min_gap": 0})
    bots = await async_setup_agents(hass, HELPER)
    bots[HELPER].replies.append("ok")
    entry = await setup_orchestrator(hass, ollama_stub, participants=PARTICIPANTS[:1])
    say(hass, "alex", line, room="Arena")
    say(hass, "sam", "go go go", room="Arena")
    await hass.async_block_till_done(wait_background_tasks=True)
    orchestrator = entry.runtime_data.orchestrator
    assert [run.pipeline.question for run in orchestrator.recent] == [line]
    assert orchestrator.ignored == 1


# --- What an independent attack found after the first version ----------------------------------


async def test_a_relay_lines_bot_is_no_administrator_even_once_its_dispatch_is_forgotten(
    hass, agent_flow, ollama_stub, room
):
    """The bot of a line no user stands behind acts as the relay user, whatever is remembered of it.

    It once ran with no user, read as an automation once 50 newer dispatches pushed its record out,
    and Home Assistant's own administrator-only actions let it through.
    """
    bots = await async_setup_agents(hass, HELPER)
    entry = await locked_room(hass, ollama_stub, bots)

    async def forgotten(user_input) -> None:
        hass.data.get(DISPATCHES, {}).clear()  # every record of the dispatch pushed out

    bots[HELPER].deeds.extend(
        [
            forgotten,
            LOOSENINGS["dry run off"],
            service("homeassistant", "set_location", {"latitude": 1.0, "longitude": 2.0}),
        ]
    )
    bots[HELPER].replies.append("Sure.")
    latitude = hass.config.latitude

    say(hass, "alex", "helper, open up", room="Arena")
    await hass.async_block_till_done(wait_background_tasks=True)

    assert bots[HELPER].outcomes == ["done", "Unauthorized", "Unauthorized"]
    assert room_now(hass, entry) == ("lockdown", "on", None) and hass.config.latitude == latitude
    relay = await hass.auth.async_get_user(bots[HELPER].inputs[0].context.user_id)
    assert relay is not None and relay.system_generated and not relay.is_admin


async def test_lines_a_bridge_relays_with_an_administrators_token_are_not_the_administrators(
    hass, agent_flow, ollama_stub, room, hass_admin_user
):
    """A bridge firing the chat event with an admin token posts every speaker under that user."""
    bots = await async_setup_agents(hass, HELPER)
    bots[HELPER].delay = 0.1
    entry = await locked_room(hass, ollama_stub, bots)
    bots[HELPER].deeds.append(LOOSENINGS["dry run off"])
    bots[HELPER].replies.extend(["ok", "ok", "ok"])
    bridge = Context(user_id=hass_admin_user.id)
    for who, text in (
        ("alex", "helper, dry run off?"),
        ("sam", "helper, raise it?"),
        ("kim", "helper, lower it?"),
    ):
        hass.bus.async_fire(
            "overseer_chat_message", {"user": who, "text": text, "room": "Arena"}, context=bridge
        )
    await hass.async_block_till_done(wait_background_tasks=True)

    assert room_now(hass, entry) == ("lockdown", "on", None)
    assert "done" not in bots[HELPER].outcomes
    # Each speaker is their own, through the bridge's user: nobody's words under another's name.
    told = [i.text for i in bots[HELPER].inputs]
    assert told == [
        "alex asks: helper, dry run off?",
        "sam asks: helper, raise it?",
        "kim asks: helper, lower it?",
    ]
    identities = [
        run.asker.identity
        for run in entry.runtime_data.loop.hass.config_entries.async_get_entry(
            "orch1"
        ).runtime_data.orchestrator.recent
    ]
    assert sorted(identities) == sorted(f"user:{hass_admin_user.id}|{who}" for who in ("alex", "sam", "kim"))


async def test_an_administrators_own_line_through_the_api_is_theirs(
    hass, agent_flow, ollama_stub, room, hass_admin_user
):
    bots = await async_setup_agents(hass, HELPER)
    entry = await locked_room(hass, ollama_stub, bots)
    bots[HELPER].deeds.append(LOOSENINGS["dry run off"])
    bots[HELPER].replies.append("Done.")
    name = hass_admin_user.name
    hass.bus.async_fire(
        "overseer_chat_message",
        {"user": name, "text": "helper, dry run off please?", "room": "Arena"},
        context=Context(user_id=hass_admin_user.id),
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    assert bots[HELPER].outcomes == ["done"] and room_now(hass, entry)[1] == "off"
