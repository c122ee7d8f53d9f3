"""Direct address written the Spanish way: accents and inverted marks still name the overseer."""

import pytest

from custom_components.overseer.core.gate import AddressMatcher


@pytest.mark.parametrize(
    "text",
    [
        "¿Overseer, subes el elevador?",
        "¡overseer! baja el ascensor",
        "¿OVERSEER?",
        "¡¿Overseer?!",
        "«Overseer», ¿me oyes?",
        "oye, ¿@overseer, qué miras?",
        "Ovérseer, ¿estás ahí?",  # an accent typed on the name still reads as the name
        "¿Overseer…?",
    ],
)
def test_spanish_punctuation_and_accents_still_address_the_overseer(text: str) -> None:
    assert AddressMatcher("Overseer").addressed(text)


@pytest.mark.parametrize("text", ["¿overseers?", "¡xoverseer!", "¿el supervisor?"])
def test_only_the_whole_name_addresses_it(text: str) -> None:
    assert not AddressMatcher("Overseer").addressed(text)


@pytest.mark.parametrize(
    ("name", "aliases", "text"),
    [
        ("Óscar", (), "¿oscar, bajas el elevador?"),  # the name's accent is not required
        ("Oscar", (), "¡Óscar! sube el ascensor"),  # nor refused
        ("Overseer", ("vigilante",), "¿Vigilante, qué pasa?"),
        ("Overseer", ("el guardián",), "¡El Guardian, enciende las luces!"),
        ("Ñandú", (), "¿ñandu?"),
    ],
)
def test_spanish_names_and_aliases_match_with_or_without_accents(
    name: str, aliases: tuple[str, ...], text: str
) -> None:
    assert AddressMatcher(name, aliases).addressed(text)
