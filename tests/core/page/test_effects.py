"""An action's effect in plain words (issue #20: "effect: 1% pixels" meant nothing to a newcomer)."""
from cockpit.core.page.effects import in_words


def test_effects_in_plain_words():
    assert in_words({"url_changed": False, "marks_added": 0, "marks_removed": 0, "pixels_changed": 0.012,
                     "noop": False}) == "page changed a little (1% of pixels), same address, same marks"
    assert in_words({"url_changed": True, "marks_added": 2, "marks_removed": 1, "pixels_changed": 0.62,
                     "noop": False}) == "page changed a lot (62% of pixels), new address, 2 new marks, 1 mark gone"
    assert in_words({"url_changed": False, "marks_added": 0, "marks_removed": 0, "pixels_changed": 0.001,
                     "noop": False}).startswith("page changed a little (under 1% of pixels)")
    assert in_words({"noop": True, "pixels_changed": 0.0}) == "nothing visible changed (same address, same marks)"
