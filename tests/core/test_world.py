"""Which room changes are worth a decision, and what makes an answer stale."""

import pytest

from custom_components.overseer.core.world import (
    Role,
    RoverField,
    colour_name,
    rover_field,
    world_event,
)


@pytest.mark.parametrize(
    ("role", "field", "old", "new", "event"),
    [
        (Role.ROVER, RoverField.DOCKED, "off", "on", "docked"),
        (Role.ROVER, RoverField.DOCKED, "on", "off", "undocked"),
        (Role.ROVER, RoverField.DRIVER, "alex", "sam", "driver_changed"),
        (Role.ROVER, RoverField.ACTIVITY, "driving", "idle", None),  # too frequent to wake a model for
        (Role.LIFT, None, "opening", "open", "lift_moved"),
        (Role.LIFT, None, "off", "on", "lift_moved"),  # a lift script started
        (Role.LIFT, None, "open", "closing", None),
        (Role.VACUUM, None, "cleaning", "error", "vacuum_error"),
        (Role.LIGHT, None, "on", "unavailable", "became_unavailable"),
        (Role.STATE, None, "unknown", "21.5", "came_back"),
        (Role.LIGHT, None, "on", "off", None),
        (Role.ROVER, RoverField.DOCKED, None, "on", None),  # first sight is not an event
        (Role.ROVER, RoverField.DOCKED, "on", "on", None),
    ],
)
def test_high_signal_changes(role, field, old, new, event):
    assert world_event(role, field, old, new) == event


def test_rover_fields_from_ids_and_names():
    assert rover_field("binary_sensor.rover1_docked", "Docked") is RoverField.DOCKED
    assert rover_field("binary_sensor.rover1_dock", "At dock") is RoverField.DOCKED
    assert rover_field("sensor.rover1_driver", "Driver") is RoverField.DRIVER
    assert rover_field("sensor.rover1_battery", "Battery") is RoverField.OTHER


def test_colour_names_for_light_details():
    assert colour_name([128, 0, 128]) == "purple"
    assert colour_name((250, 10, 5)) == "red"
    assert colour_name(None) == "" and colour_name([1, 2]) == "" and colour_name(["a", 1, 2]) == ""
