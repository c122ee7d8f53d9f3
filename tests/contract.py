"""Names fixed by the contract (../shared/design/CONTRACT.md), written out once for the tests.

Tests compare the code against these, not against the code's own definitions.
"""

ROOM_TOOLS = frozenset(
    {
        "lift_up",
        "lift_down",
        "neato_start",
        "neato_send_home",
        "neato_locate",
        "neato_clear_errors",
        "ha_set_entity",
        # The seed's button box (Tool counter_adjust).
        "counter_adjust",
    }
)
# Tools only incident triage proposes (Incidents and approvals).
TRIAGE_TOOLS = frozenset({"asset_refresh", "asset_restart"})
REASONS = frozenset(
    {
        "cooldown",
        "busy",
        "unavailable",
        "rate_limit",
        "policy_lock:site_mode_admin",
        "policy_lock:site_mode_lockdown",
        "policy_lock:lights_locked_on",
        "not_available",
        "not_allowlisted",
        "invalid_arguments",
        "max_tool_calls",
        # Ours, beyond the contract: a consequential tool waiting for a person.
        "needs_approval",
        # Wave 4: someone who may not loosen a guardrail tried to.
        "unauthorized",
        # Wave 5: a call that is not the action someone asked for.
        "not_what_was_asked",
    }
)
# Reasons of outcome failed (Wave 4): a call that may have reached a device, which counts.
FAILURES = frozenset({"error", "timeout", "cancelled"})


def options_sections(**overrides):
    """The options form as the frontend submits it, in sections; section__field=value overrides.

    None removes a field, as an empty entity picker does.
    """
    values = {
        "room": {
            "rover_entities": ["sensor.rover1_activity"],
            "lift_cover": "cover.lift",
            "vacuum_entity": "vacuum.neato",
            "light_entities": ["light.shelf"],
            "state_entities": [],
        },
        "addressing": {"aliases": [], "challenge_phrases": []},
        "guardrails": {
            "cooldown_lift": 60,
            "cooldown_neato": 120,
            "cooldown_ha": 20,
            "action_budget": 3,
            "action_window": 300,
            "max_tool_calls": 1,
            "approval_tools": [],
        },
        "timing": {
            "gate_interval": 2,
            "heartbeat": 30,
            "min_gap": 15,
            "quiet_limit": 300,
            "stale_after": 90,
            "request_timeout": 60,
        },
        "transcript": {
            "transcript_turns": 30,
            "transcript_minutes": 10,
            "min_human_messages": 5,
            "bot_messages": 2,
        },
        "incidents": {"approvers": [], "approval_notify": [], "approval_timeout": 600, "verify_after": 30},
    }
    for key, value in overrides.items():
        section, field = key.split("__")
        if value is None:
            del values[section][field]
        else:
            values[section][field] = value
    return values


# Each event's (required, optional) fields, as the braces in the contract's Events list them.
EVENT_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "overseer_action": (frozenset({"arguments", "decision_id", "outcome", "tool"}), frozenset({"reason"})),
    "overseer_approval": (
        frozenset({"approval_id", "arguments", "incident_id", "status", "tool"}),
        frozenset(),
    ),
    "overseer_chat_message": (frozenset({"bot", "text", "user"}), frozenset({"room", "ts"})),
    "overseer_chat_typing": (frozenset({"bot", "typing", "user"}), frozenset({"room"})),
    "overseer_decision": (frozenset({"decision_id", "latency_ms", "mode", "stale", "trigger"}), frozenset()),
    "overseer_incident": (frozenset({"asset_id", "incident_id", "status"}), frozenset({"fault", "reason"})),
    "overseer_pipeline": (
        frozenset({"iteration", "pipeline_id", "stage"}),
        frozenset({"bot", "reason", "score"}),
    ),
}
