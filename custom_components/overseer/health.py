"""Model health: can the room's model be asked? A DataUpdateCoordinator with two intervals.

While the model answers, it is checked rarely; once it does not, it is checked every
minute, so the card and the entities say "unreachable" before any decision is due. The
decision loop reports its own successes and failures here too, and three failures in a
row raise a repair issue.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from enum import StrEnum
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed

from .const import DOMAIN, FAILURES_BEFORE_REPAIR, ISSUE_MODEL_UNREACHABLE, LOGGER, MAX_BACKOFF
from .core.accounts import Phrase
from .providers import CannotConnect, InvalidAuth, ModelError, ModelNotFound, ModelTimeout, Provider

CONNECTED_INTERVAL = timedelta(minutes=10)
DISCONNECTED_INTERVAL = timedelta(minutes=1)
# The translated message of a failed check, for the log and the reauth flow.
CHECK_FAILED = "model_check_failed"


class Health(StrEnum):
    """What the card and the entities say about the model."""

    UNKNOWN = "unknown"
    OK = "ok"
    UNREACHABLE = "unreachable"
    MODEL_NOT_FOUND = "model_not_found"
    INVALID_AUTH = "invalid_auth"
    ERROR = "error"


def health_of(err: ModelError) -> Health:
    """Return the health a failure means."""
    if isinstance(err, CannotConnect | ModelTimeout):
        return Health.UNREACHABLE
    if isinstance(err, ModelNotFound):
        return Health.MODEL_NOT_FOUND
    if isinstance(err, InvalidAuth):
        return Health.INVALID_AUTH
    return Health.ERROR


class ModelHealthCoordinator(DataUpdateCoordinator[Health]):
    """Checks the model on its own schedule and hears how every decision went."""

    config_entry: ConfigEntry

    def __init__(
        self,
        hass: HomeAssistant,
        entry: ConfigEntry,
        provider: Provider,
        now: Callable[[], float],
        phrase: Phrase,
    ) -> None:
        """Start as unknown: nothing has been asked yet.

        phrase words a failure for the repair, in the room's language like its notifications: a
        repair's placeholders are fixed when it is raised.
        """
        self._now = now
        self._phrase = phrase
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=f"overseer model {entry.title}",
            update_interval=CONNECTED_INTERVAL,
            always_update=False,
        )
        self._provider = provider
        self._issue_id = f"{ISSUE_MODEL_UNREACHABLE}_{entry.entry_id}"
        self.data = Health.UNKNOWN
        # The last failure while the model is not answering; None once it answers.
        self.error: ModelError | None = None
        # Decisions in a row whose model call failed, and when the loop may ask again.
        self.failures = 0
        self.retry_at = 0.0

    async def _async_update_data(self) -> Health:
        """One cheap check; a refused key starts Home Assistant's reauth flow."""
        try:
            await self._provider.async_check()
        except InvalidAuth as err:
            self._failed(err)
            raise ConfigEntryAuthFailed(**self._check_failed(err)) from err
        except ModelError as err:
            self._failed(err)
            raise UpdateFailed(**self._check_failed(err)) from err
        self.update_interval = CONNECTED_INTERVAL
        self.error = None
        return Health.OK

    def _check_failed(self, err: ModelError) -> dict[str, Any]:
        """Return a failed check's message as Home Assistant translates it (its log, the reauth flow)."""
        return {
            "translation_domain": DOMAIN,
            "translation_key": CHECK_FAILED,
            "translation_placeholders": {"detail": err.worded(self._phrase)},
        }

    @property
    def detail(self) -> str | None:
        """The last failure as the server or client said it (the logs' words), while the model is down."""
        return self.error.detail if self.error is not None else None

    def _failed(self, err: ModelError) -> None:
        """Remember why, and check again soon."""
        self.data = health_of(err)
        self.error = err
        self.update_interval = DISCONNECTED_INTERVAL

    @property
    def health(self) -> Health:
        """The model's health as last seen."""
        return self.data

    @callback
    def record_success(self) -> None:
        """Record that a decision got its answer: forget past failures and clear the repair."""
        if self.failures >= FAILURES_BEFORE_REPAIR:
            ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)
        self.failures = 0
        self.retry_at = 0.0
        self.error = None
        if self.data is not Health.OK or not self.last_update_success:
            self.update_interval = CONNECTED_INTERVAL
            self.async_set_updated_data(Health.OK)

    @callback
    def record_failure(self, err: ModelError, backoff_from: float) -> float:
        """Record a failed model call: return the seconds to wait (doubling); repair if it keeps failing."""
        self.failures += 1
        delay: float = min(backoff_from * 2**self.failures, MAX_BACKOFF)
        self.retry_at = self._now() + delay
        self._failed(err)
        if self.failures >= FAILURES_BEFORE_REPAIR:
            ir.async_create_issue(
                self.hass,
                DOMAIN,
                self._issue_id,
                is_fixable=False,
                severity=ir.IssueSeverity.ERROR,
                translation_key=ISSUE_MODEL_UNREACHABLE,
                translation_placeholders={"name": self.config_entry.title, "error": err.worded(self._phrase)},
            )
        if isinstance(err, InvalidAuth):
            self.config_entry.async_start_reauth(self.hass)
        already_failing = not self.last_update_success
        self.async_set_update_error(err)
        if already_failing:  # the first failure has told the listeners already
            self.async_update_listeners()
        # The next check of its own at the disconnected interval, not the connected one already booked
        # (as core's tesla_fleet reschedules); until then the card shows why the decision failed.
        self._schedule_refresh()
        return delay
