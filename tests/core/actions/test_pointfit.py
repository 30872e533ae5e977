"""Which reading explains a model's points (issue #39's pointing check), on points made in a known space."""
import random

import pytest

from cockpit.core.actions import coords
from cockpit.core.actions.pointfit import explain, nearest_budget

CENTRES = [(48, 24), (976, 24), (48, 744), (976, 744), (512, 384), (225, 207), (758, 292), (369, 584), (850, 538)]
SCALE2 = coords.Frame((1024, 768), (2048, 1536))
SCALE1 = coords.Frame((1024, 768), (1024, 768))


def written(space, frame, jitter=0.0, seed=1):
    """The points a model answering in `space` (for `frame`) writes for the centres, aimed within `jitter` px."""
    rnd = random.Random(seed)
    return [coords.to_model((x + rnd.uniform(-jitter, jitter), y + rnd.uniform(-jitter, jitter)), space, frame)
            for x, y in CENTRES]


def test_points_in_0_to_1000_read_as_pixels_are_named_and_fixed_with_coords():
    e = explain(written("norm1000", SCALE1), CENTRES, "pixels", SCALE1)
    assert not e.fits and e.best.fix == {"coords": "norm1000"} and e.best.median < 1
    assert e.current.median > 50


def test_a_qwen_grid_of_another_budget_is_found_with_its_max_pixels():
    served = coords.Frame((1024, 768), (2048, 1536), (3136, 1003520))
    e = explain(written("qwen", served), CENTRES, "qwen", SCALE2, scale=2)
    assert not e.fits and e.best.fix["qwen_max_pixels"] == 1003520 and e.best.median < 1
    assert e.best.frame.qwen_grid() == (1148, 840)


def test_a_budget_no_one_uses_is_still_found_from_the_grid_the_points_imply():
    served = coords.Frame((1024, 768), (2048, 1536), (3136, 700 * 784))
    implied = served.qwen_grid()
    lo, hi = nearest_budget(SCALE2, implied)
    assert coords.Frame((1024, 768), (2048, 1536), (lo, hi)).qwen_grid() == implied
    e = explain(written("qwen", served), CENTRES, "qwen", SCALE2, scale=2)
    assert e.best.frame.qwen_grid() == implied and e.best.median < 1


def test_page_pixels_taken_for_screenshot_pixels_point_at_the_device_scale():
    e = explain(written("pixels", SCALE1), CENTRES, "pixels", SCALE2, scale=2)  # model answers as if 1024 wide
    assert not e.fits and e.best.fix["device_scale_factor"] == 1.0


@pytest.mark.parametrize("space,frame", [("pixels", SCALE2), ("qwen", SCALE1), ("norm1000", SCALE2)])
def test_the_right_setting_fits_even_when_the_model_aims_loosely(space, frame):
    e = explain(written(space, frame, jitter=10), CENTRES, space, frame, scale=frame.image[0] / 1024)
    assert e.fits and e.current.worst < 16


def test_a_loose_aim_in_the_wrong_space_is_still_told_apart():
    e = explain(written("norm1000", SCALE2, jitter=12), CENTRES, "pixels", SCALE2, scale=2)
    assert not e.fits and e.best.fix == {"coords": "norm1000"}
