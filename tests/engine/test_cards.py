import pytest

from hakam.engine.cards import CARD_NAMES, DECK, Card, CardError, parse_card


def test_deck_has_32_unique_cards_in_fixed_order():
    assert len(DECK) == 32 and len(set(DECK)) == 32
    assert CARD_NAMES[:8] == ("7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC")
    assert CARD_NAMES[-1] == "AS"
    assert all(Card.from_index(c.index) is c for c in DECK)


@pytest.mark.parametrize(
    "text,canonical",
    [("10H", "10H"), ("TH", "10H"), ("th", "10H"), ("10♥", "10H"), ("q♠", "QS"), (" AD ", "AD")],
)
def test_parse_card_accepts_t_lower_case_and_symbols(text, canonical):
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize("bad", ["", "1H", "6C", "11S", "KX", "JOKER", "10"])
def test_parse_card_rejects_non_baloot_cards(bad):
    with pytest.raises(CardError):
        parse_card(bad)


def test_card_error_is_value_error():
    assert issubclass(CardError, ValueError)
