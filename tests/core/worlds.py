"""Ready-made rooms for the core's tests."""

from __future__ import annotations

from dataclasses import replace

from custom_components.overseer.core.world import Entity, Lift, Rover, RoverField, World


def light(object_id: str, state: str = "on", domain: str = "light") -> Entity:
    return Entity(f"{domain}.{object_id}", object_id.replace("_", " "), state)


def demo_world(**changes) -> World:
    """The seed's canonical room: three rovers, a lift cover, a vacuum, six lights."""
    rovers = tuple(
        Rover(
            f"rover{i}",
            (
                (RoverField.ACTIVITY, Entity(f"sensor.rover{i}_activity", "activity", "driving")),
                (RoverField.DRIVER, Entity(f"sensor.rover{i}_driver", "driver", driver)),
                (RoverField.DOCKED, Entity(f"binary_sensor.rover{i}_docked", "docked", "off")),
            ),
        )
        for i, driver in ((1, "alex"), (2, "sam"), (3, "none"))
    )
    world = World(
        local_time="2026-05-02T22:14:10-04:00",
        rovers=rovers,
        lift=Lift(cover=Entity("cover.lift", "lift", "closed")),
        vacuum=Entity("vacuum.neato", "neato", "docked"),
        vacuum_clear_errors=Entity("script.neato_clear", "clear errors", "off"),
        lights=(
            light("shelf"),
            light("bench", "off"),
            light("corner"),
            light("aux1", "off"),
            light("aux2"),
            light("fan", "off", domain="switch"),
        ),
        active_people=("alex", "sam"),
    )
    return replace(world, **changes)
