"""The bundled Demo Shop, served on 127.0.0.1 for the demo policy's and the simulator's tests."""
import pytest

from cockpit.core import resources
from cockpit.core.localserver import LocalSite


@pytest.fixture(scope="module")
def demo_shop():
    with resources.path("demo_site") as root, LocalSite(root) as site:
        yield site
