"""Seat attribution: directions from the calibration, the turn from the rules."""

from __future__ import annotations

import pytest

from hakam.vision.seats import Calibration, CalibrationError, SeatMap, attribute, parse_point

# Centre (320, 240); the dealer (seat 3) sits at the bottom of the image.
CAL = Calibration((320.0, 240.0), (320.0, 440.0))


def test_play_goes_to_the_right_counter_clockwise_seen_from_above():
    seats = SeatMap(CAL, dealer=3)
    # Dealer at the bottom; his right (seat 0, first leader) is on the image's right side,
    # then the top, then the left.
    assert seats.locate((320, 400))[0] == 3
    assert seats.locate((480, 240))[0] == 0
    assert seats.locate((320, 80))[0] == 1
    assert seats.locate((160, 240))[0] == 2
    mirrored = SeatMap(Calibration((320.0, 240.0), (320.0, 440.0), mirrored=True), dealer=3)
    assert mirrored.locate((160, 240))[0] == 0


def test_a_card_in_front_of_the_seat_on_turn_keeps_the_rules_seat():
    seats = SeatMap(CAL, dealer=3)
    a = seats.attribute((400, 250), expected=0)
    assert a.seat == 0 and a.by_position == 0 and a.clear and not a.out_of_turn


def test_a_card_clearly_in_front_of_another_seat_is_out_of_turn():
    seats = SeatMap(CAL, dealer=3)
    a = seats.attribute((320, 150), expected=0)
    assert a.seat == 1 and a.out_of_turn


def test_unclear_positions_are_left_to_the_rules():
    seats = SeatMap(CAL, dealer=3)
    diagonal = seats.attribute((420, 340), expected=0)  # between seats 3 and 0
    assert not diagonal.clear and diagonal.seat == 0
    centre = seats.attribute((322, 241), expected=2)  # on the centre itself
    assert not centre.clear and centre.seat == 2
    assert attribute(None, (0, 0), expected=1).seat == 1  # no calibration: the rules alone


def test_an_unclear_card_on_the_far_side_from_the_seat_on_turn_goes_to_the_nearer_seat():
    # Between seats 0 and 1 (top right), not clearly in front of either: it is not the card of
    # seat 2 on turn (more than 90 degrees off its direction) but of seat 1, the nearer, so it
    # waits for its turn as any card of another seat. Between seat 1 and seat 2, seat 2's.
    seats = SeatMap(CAL, dealer=3)
    top_right = seats.attribute((430, 110), expected=2)  # 40 degrees off seat 1, 130 off seat 2
    assert not top_right.clear and top_right.by_position == 1 and top_right.seat == 1
    assert top_right.out_of_turn
    top_left = seats.attribute((210, 110), expected=2)  # between seats 1 and 2
    assert not top_left.clear and top_left.seat == 2 and not top_left.out_of_turn


def test_toml_round_trip_and_errors(tmp_path):
    path = tmp_path / "table.toml"
    cal = Calibration((321.5, 240.0), (100.0, 40.0), True, (640, 480))
    cal.save(path)
    assert Calibration.load(path) == cal
    bad = tmp_path / "bad.toml"
    for text, why in (
        ("centre = [1, 2]\n", "dealer: missing"),
        ("centre = [1, 2]\ndealer = [1, 'x']\n", "dealer: must be two numbers"),
        ("centre = [1, 2]\ndealer = [100, 2]\ncolour = 1\n", "colour: unknown field"),
        ("centre = [1, 2]\ndealer = [2, 2]\n", "at least 5 px"),
        ("centre = [1, 2\n", "not valid TOML"),
    ):
        bad.write_text(text)
        with pytest.raises(CalibrationError, match=why):
            Calibration.load(bad)
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.toml")
    with pytest.raises(CalibrationError, match="--centre: must be X,Y"):
        parse_point("12;4", "--centre")


def test_calibration_fitted_to_frames_of_another_size_scales_and_keeps_the_seats():
    made = Calibration((320.0, 240.0), (320.0, 460.0), False, (640, 480))
    assert made.fitted(640, 480) is made
    assert Calibration((1.0, 2.0), (50.0, 2.0)).fitted(1280, 960).centre == (1.0, 2.0)  # no size
    big = made.fitted(1280, 960)
    assert big == Calibration((640.0, 480.0), (640.0, 920.0), False, (1280, 960))
    small, large = SeatMap(made, dealer=1), SeatMap(big, dealer=1)
    for x, y in ((100, 240), (320, 60), (560, 300), (330, 440)):
        seat, off, clear = small.locate((x, y))
        assert large.locate((2 * x, 2 * y)) == (seat, pytest.approx(off), clear)


def test_calibration_made_on_frames_of_another_shape_says_to_calibrate_again():
    made = Calibration((320.0, 240.0), (320.0, 460.0), False, (640, 480))
    with pytest.raises(CalibrationError, match=r"made on 640x480 frames, these are 1280x720 "
                       r"\(another shape\): run `hakam calibrate`"):  # fmt: skip
        made.fitted(1280, 720)
