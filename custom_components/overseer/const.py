"""Constants of the overseer integration: the names fixed by the contract."""

from typing import Final

DOMAIN: Final = "overseer"
DEFAULT_NAME: Final = "Overseer"
