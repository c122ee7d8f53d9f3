"""The Overseer integration: a control-first LLM overseer for one room."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers import llm
from homeassistant.helpers.typing import ConfigType
from homeassistant.loader import async_get_integration

from .approvals import ApprovalDesk
from .authority import async_relay_user, async_remove_relay_user
from .compat import agent_llm_apis, async_register_frontend_module
from .const import (
    BACKEND_CONVERSATION,
    BACKEND_OPENAI,
    DOMAIN,
    ISSUE_AGENT_CAN_CONTROL,
    ISSUE_INCIDENT_NEEDS_HUMAN,
    ISSUE_MODEL_UNREACHABLE,
    OverseerMode,
)
from .core.accounts import Phrase
from .core.acts import Device, room_devices
from .core.context import system_prompt
from .core.gate import Gate
from .core.language import SPOKEN_LANGUAGES, base_language
from .core.metrics import Metrics
from .cycle import ASKER
from .executor import Executor
from .handover import Room, drop_handover, handover_of
from .health import ModelHealthCoordinator
from .identity import async_track_origins, async_track_users
from .incidents import IncidentDesk
from .inputs import RoomInputs
from .llm_api import GuardrailsAPI, is_guardrails_api
from .loop import LoopParts, OverseerLoop
from .orchestrator import ORCHESTRATOR_PROMPTS, Orchestrator
from .phrases import async_phrases
from .providers import Provider
from .providers.agent import AgentProvider
from .providers.ollama import OllamaProvider
from .providers.openai import OpenAIProvider
from .recognition import async_recogniser
from .room_state import RoomState
from .runtime import (
    OrchestratorConfigEntry,
    OrchestratorRuntimeData,
    OverseerConfigEntry,
    OverseerRuntimeData,
    RoomConfigEntry,
    is_orchestrator,
    orchestrator_of,
    overseer_data,
)
from .services import async_setup_services
from .settings import Settings
from .signals import RoomSignals
from .store import OverseerStore
from .triage import Briefing, Triage, TriageParts, load_knowledge
from .websocket import async_register_websocket

PLATFORMS = [Platform.CONVERSATION, Platform.SELECT, Platform.SENSOR, Platform.SWITCH]
# An orchestrator never speaks or acts: its pipeline sensor is all it shows.
ORCHESTRATOR_PLATFORMS = [Platform.SENSOR]
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)
# The card's modules, served as /overseer_static/<version>/overseer-card.js and beside it.
FRONTEND_URL = f"/{DOMAIN}_static"
FRONTEND_DIR = Path(__file__).parent / "frontend"
CARD_MODULE = "overseer-card.js"
PROMPT_DIR = Path(__file__).parent / "prompts"


def load_prompt(config_dir: Path, file_name: str, language: str = "") -> str:
    """Load the prompt in the language if there is one (system.es.md), else the English file.

    The user's copies in <config>/overseer/prompts/ come first, in either language: a prompt
    someone rewrote is never passed over for a shipped translation.
    """
    stem, _, suffix = file_name.rpartition(".")
    base = language.partition("-")[0].lower()
    names = ([f"{stem}.{base}.{suffix}"] if base and base != "en" else []) + [file_name]
    for folder in (config_dir / DOMAIN / "prompts", PROMPT_DIR):
        for name in names:
            path = folder / name
            if path.is_file():
                return path.read_text(encoding="utf-8")
    raise FileNotFoundError(file_name)


PROMPT_FILES = {OverseerMode.CONTROL: "system.md", OverseerMode.COMMENTARY: "commentary.md"}
TRIAGE_PROMPT = "triage.md"


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Register the services, the websocket commands and the debug card once, for every room."""
    async_setup_services(hass)
    async_track_origins(hass)
    await async_track_users(hass)
    async_register_websocket(hass)
    integration = await async_get_integration(hass, DOMAIN)
    await async_register_frontend_module(
        hass, FRONTEND_URL, str(FRONTEND_DIR), CARD_MODULE, str(integration.version)
    )
    return True


def make_provider(hass: HomeAssistant, settings: Settings) -> Provider:
    """Make the backend the room was configured with."""
    if settings.backend == BACKEND_CONVERSATION:
        return AgentProvider(hass, settings.agent_id)
    if settings.backend == BACKEND_OPENAI:
        return OpenAIProvider(hass, settings.url, settings.model, settings.api_key, settings.request_timeout)
    return OllamaProvider(settings.url, settings.model, settings.request_timeout)


def _check_agent(hass: HomeAssistant, entry: OverseerConfigEntry, settings: Settings) -> None:
    """Warn when the chosen agent could act on the house by itself, outside the guardrails."""
    issue_id = f"{ISSUE_AGENT_CAN_CONTROL}_{entry.entry_id}"
    apis = agent_llm_apis(hass, settings.agent_id) if settings.backend == BACKEND_CONVERSATION else []
    # An overseer's guardrails API is no way around the guardrails.
    apis = [api for api in apis if not is_guardrails_api(api)]
    if not apis:
        ir.async_delete_issue(hass, DOMAIN, issue_id)
        return
    ir.async_create_issue(
        hass,
        DOMAIN,
        issue_id,
        is_fixable=False,
        severity=ir.IssueSeverity.WARNING,
        translation_key=ISSUE_AGENT_CAN_CONTROL,
        translation_placeholders={"name": entry.title, "agent": settings.agent_id, "apis": ", ".join(apis)},
    )


async def _async_setup_orchestrator(hass: HomeAssistant, entry: OrchestratorConfigEntry) -> bool:
    """Set up one room's orchestrator."""
    settings = Settings.from_entry(entry.data, entry.options)
    config_dir = Path(hass.config.config_dir)
    prompts = {
        name: await hass.async_add_executor_job(load_prompt, config_dir, name, hass.config.language)
        for name in ORCHESTRATOR_PROMPTS
    }
    # Every language the room reads, loaded now: a chat line is heard on the event loop.
    recognisers = {
        language: await async_recogniser(hass, language)
        for language in dict.fromkeys(
            (base_language(settings.language or hass.config.language), *SPOKEN_LANGUAGES)
        )
    }

    def devices() -> tuple[Device, ...]:
        """Return the room's devices as its overseer sees them now (none while it is not loaded)."""
        for other in hass.config_entries.async_entries(DOMAIN):
            if (data := overseer_data(other)) is not None and data.loop.settings.room == settings.room:
                return room_devices(data.loop.world())
        return ()

    orchestrator = Orchestrator(
        hass,
        entry,
        settings,
        make_provider(hass, settings),
        prompts,
        recognisers,
        devices,
        await async_relay_user(hass),
    )
    entry.runtime_data = OrchestratorRuntimeData(orchestrator)
    await hass.config_entries.async_forward_entry_setups(entry, ORCHESTRATOR_PLATFORMS)
    orchestrator.async_start()
    entry.async_on_unload(entry.add_update_listener(_async_reload))
    return True


async def async_setup_entry(hass: HomeAssistant, entry: RoomConfigEntry) -> bool:
    """Set up one room's overseer (or its orchestrator)."""
    if is_orchestrator(entry):
        return await _async_setup_orchestrator(hass, cast(OrchestratorConfigEntry, entry))
    return await _async_setup_overseer(hass, cast(OverseerConfigEntry, entry))


async def _async_setup_overseer(hass: HomeAssistant, entry: OverseerConfigEntry) -> bool:
    """Set up the room's overseer: its loop, entities, Assist agent and guardrails API."""
    settings = Settings.from_entry(entry.data, entry.options)
    # What the overseer says outside the chat (notifications, the no-answer line) and its
    # prompts are in the room's language: its option, else Home Assistant's.
    language = settings.language or hass.config.language
    phrase = await async_phrases(hass, language)
    if not settings.fallback_line:
        settings = replace(settings, fallback_line=phrase("no_answer", user=ASKER))
    store = OverseerStore(hass, entry.entry_id)
    state = RoomState.from_dict(await store.async_load())
    config_dir = Path(hass.config.config_dir)
    prompts = {
        mode: await hass.async_add_executor_job(load_prompt, config_dir, file_name, language)
        for mode, file_name in PROMPT_FILES.items()
    }
    triage_prompt = await hass.async_add_executor_job(load_prompt, config_dir, TRIAGE_PROMPT, language)
    knowledge = await hass.async_add_executor_job(load_knowledge, config_dir)
    _check_agent(hass, entry, settings)
    entry.runtime_data = _build_overseer(
        hass,
        entry,
        settings,
        state,
        store,
        prompts,
        Briefing(system_prompt(triage_prompt, settings.name), knowledge),
        phrase,
    )
    loop = entry.runtime_data.loop
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry.async_on_unload(llm.async_register_api(hass, GuardrailsAPI(hass, loop, phrase)))
    loop.async_start()
    # Listening now (incidents hear approvals settle): what calls of the room before came to.
    handover_of(hass, entry.entry_id).attach(_handover_room(entry.runtime_data))
    entry.async_on_unload(entry.add_update_listener(_async_reload))
    return True


def _build_overseer(
    hass: HomeAssistant,
    entry: OverseerConfigEntry,
    settings: Settings,
    state: RoomState,
    store: OverseerStore,
    prompts: dict[OverseerMode, str],
    briefing: Briefing,
    phrase: Phrase,
) -> OverseerRuntimeData:
    """Build the room's parts side by side, sharing its state, clock and change signal."""
    now = OverseerLoop.now
    provider = make_provider(hass, settings)
    signals = RoomSignals(hass, entry.entry_id, store, state)
    metrics = Metrics(started=now())
    gate = Gate(settings.gate, now(), on_missed=lambda missed: metrics.record_missed_world_event(missed.at))
    inputs = RoomInputs(hass, entry.entry_id, settings, state, gate, now)
    approvals = ApprovalDesk(hass, settings, state, now, signals.changed, phrase)
    executor = Executor(
        hass,
        settings,
        state,
        metrics,
        inputs.world,
        signals.changed,
        now,
        approvals.request,
        handover_of(hass, entry.entry_id),
    )
    approvals.run_with(executor)
    health = ModelHealthCoordinator(hass, entry, provider, now, phrase)
    incidents = IncidentDesk(
        hass, entry.entry_id, settings, state, inputs.world, now, signals.changed, approvals, phrase
    )
    triage = Triage(
        settings, state, TriageParts(executor, provider, health, briefing), approvals, incidents.put, now
    )
    parts = LoopParts(gate, metrics, inputs, executor, health, incidents, triage, signals, phrase)
    loop = OverseerLoop(hass, entry, settings, provider, state, prompts, parts)
    return OverseerRuntimeData(loop, health, incidents, approvals, triage)


def _handover_room(data: OverseerRuntimeData) -> Room:
    """Return what the room takes from the rooms of its entry that stopped while a call still ran."""
    return Room(data.loop.executor, data.approvals)


async def _async_reload(hass: HomeAssistant, entry: RoomConfigEntry) -> None:
    """Options changed: start again with them; persisted state carries over."""
    await hass.config_entries.async_reload(entry.entry_id)


async def async_unload_entry(hass: HomeAssistant, entry: RoomConfigEntry) -> bool:
    """Stop the loop and write everything down."""
    if (orchestrator := orchestrator_of(entry)) is not None:
        unloaded = await hass.config_entries.async_unload_platforms(entry, ORCHESTRATOR_PLATFORMS)
        if unloaded:
            await orchestrator.async_stop()
        return unloaded
    # The loop stops first: while its calls in flight end (a few seconds at most), the selects and
    # switches are still there, and a lockdown an automation sets meanwhile is in the last write.
    # Removed first, they let that service call find no entity, and the lockdown was lost.
    data = cast(OverseerRuntimeData, entry.runtime_data)
    handover_of(hass, entry.entry_id).detach(_handover_room(data))
    await data.loop.async_stop()
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)


async def async_remove_entry(hass: HomeAssistant, entry: RoomConfigEntry) -> None:
    """Remove the room for good: drop its storage and its repairs."""
    await OverseerStore(hass, entry.entry_id).async_remove()
    drop_handover(hass, entry.entry_id)
    for issue in (ISSUE_MODEL_UNREACHABLE, ISSUE_AGENT_CAN_CONTROL):
        ir.async_delete_issue(hass, DOMAIN, f"{issue}_{entry.entry_id}")
    incidents = f"{ISSUE_INCIDENT_NEEDS_HUMAN}_{entry.entry_id}_"
    for domain, issue_id in list(ir.async_get(hass).issues):
        if domain == DOMAIN and issue_id.startswith(incidents):
            ir.async_delete_issue(hass, DOMAIN, issue_id)
    others = [
        other for other in hass.config_entries.async_entries(DOMAIN) if other.entry_id != entry.entry_id
    ]
    if is_orchestrator(entry) and not any(is_orchestrator(other) for other in others):
        await async_remove_relay_user(hass)
