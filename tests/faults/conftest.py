"""Fixtures of the fault suite."""
import pytest

from tests.faults.hostile_site import HitSite


@pytest.fixture(scope="module")
def hsite():
    """The hostile pages' server (tests/faults/hostile_site.py), one per test module."""
    s = HitSite()
    yield s
    s.close()
