"""The tune report shows a trial's settings as text a designer reads, not raw JSON (#21 finding 8)."""

from simulator.tune.report import TRIAL_COLUMNS_TAIL, settings_text


def test_settings_are_shown_as_knob_equals_value():
    assert settings_text({"first_seat_bonus": 0.1, "hand_size": 6}) == "first_seat_bonus = 0.1, hand_size = 6"
    assert settings_text({"end_when_no_face_down": False, "seat_points[3p]": [1, 0, 0]}) == (
        "end_when_no_face_down = false, seat_points[3p] = [1, 0, 0]")
    # the page's column shows the effective setting (test_tune_changes.py); the CSV keeps the JSON
    assert ("settings_text", "effective setting", "text") in TRIAL_COLUMNS_TAIL
