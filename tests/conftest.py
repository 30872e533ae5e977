import os
import shutil
import tempfile

# Before anything imports Qt or Cockpit: no display, and a throwaway data dir. Each test process (each
# pytest-xdist worker, tests/parallel.py) makes its own; pytest_unconfigure removes it.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["COCKPIT_HOME"] = tempfile.mkdtemp(prefix="cockpit-test-home-")

import keyring  # noqa: E402
import pytest  # noqa: E402
from keyring.backends import fail  # noqa: E402

from cockpit.core.agent.approval import PolicyApprover  # noqa: E402
from cockpit.core.agent.loop import Agent, AgentConfig  # noqa: E402
from cockpit.core.agent.start import Fresh  # noqa: E402
from cockpit.core.browser.session import BrowserConfig, BrowserSession  # noqa: E402
from cockpit.core.llm.modelserver import ModelServer  # noqa: E402
from cockpit.core.localserver import LocalSite  # noqa: E402
from cockpit.core.store import Store  # noqa: E402
from testkit import pagegen  # noqa: E402
from tests import PAGES  # noqa: E402
from tests.clitools import free_port  # noqa: E402
from tests.faults.hostile_site import recording_server  # noqa: E402
from tests.keyrings import MemoryKeyring  # noqa: E402
from tests.lookahead_helpers import RecordingSite  # noqa: E402
from tests.models import model_client  # noqa: E402
from tests.pdfgen import write_pdf  # noqa: E402
from tests.webshop import WebShop, web_shopper  # noqa: E402
from tests.webvoyager_runs import webvoyager_results  # noqa: E402

# The demo shop's port of its own for each test process (workers, other sessions' suites on this machine),
# inherited by the `cockpit` subprocesses: the demo shop and its replays (tests/core/demo/test_demo_replay.py).
os.environ["COCKPIT_DEMO_PORT"] = str(free_port())

pytest_plugins = ["tests.parallel"]  # workers, and the `serial` marker

PDF_PHRASE = "Quarterly revenue grew by 42 percent"


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(PAGES, root, dirs_exist_ok=True)
    write_pdf(root / "doc.pdf", PDF_PHRASE)
    (root / "big.html").write_text(pagegen.generate(20000))
    with LocalSite(root) as s:
        yield s


@pytest.fixture(scope="session")
def browser():
    with BrowserSession(BrowserConfig(settle_cap_ms=4000)) as b:
        yield b


@pytest.fixture
def chromedriver_url():
    """A chromedriver of this machine on a free 127.0.0.1 port, as a remote WebDriver endpoint."""
    import subprocess
    import time

    from cockpit.core.browser.locate import find_chromedriver
    port = free_port()
    proc = subprocess.Popen([find_chromedriver(), f"--port={port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(5)


@pytest.fixture
def page(browser, site):
    """Open a fixture page in the shared browser: page('modal.html')."""
    def open_(name: str):
        browser.goto(site.url(name))
        return browser
    return open_


@pytest.fixture
def store(tmp_path):
    """An empty run store in tmp_path/home."""
    with Store(tmp_path / "home") as s:
        yield s


@pytest.fixture
def shop():
    """The fixture pages on 127.0.0.1, remembering every POST the browser sends (`shop.posts`)."""
    with RecordingSite(PAGES) as s:
        yield s


@pytest.fixture
def make_agent(browser, store):
    """make(server, config, **kw) -> an Agent on the shared browser and `store`, its model "agent-model" on
    `server`; its events in `agent.events`. The clients are closed after the test."""
    made = []

    def make(server, config: AgentConfig, **kw):
        client = model_client(server, model="agent-model", api_key="test-key", timeout=20)
        made.append(client)
        events = []
        agent = Agent(browser, client, store, config=config, listener=events.append, **kw)
        agent.events = events
        return agent
    yield make
    for c in made:
        c.close()


@pytest.fixture
def recorded_run(make_agent, store, tmp_path):
    """A recorded run on the web shop (tests/webshop.py: open the red kettle, type a password, place the
    order) in `store`, and its shop (still serving; a test may change it or stop it)."""
    shop = WebShop(tmp_path / "shop").start()
    with ModelServer(web_shopper(password="Pw-9-replayed")) as srv:
        agent = make_agent(srv, AgentConfig(wait_seconds=0.2), approver=PolicyApprover(True))
        result = agent.run(Fresh("buy the red kettle", shop.url("web_list.html")))
    assert result.status == "answered", result
    yield result.run_id, shop
    shop.stop()


@pytest.fixture
def recording_pages():
    """tests/pages on 127.0.0.1 recording every request's Host and path (tests/faults/hostile_site.py)."""
    with recording_server() as httpd:
        yield httpd


@pytest.fixture
def webvoyager_root(tmp_path):
    """A results folder as WebVoyager's run.py leaves it (tests/webvoyager_runs.py)."""
    return webvoyager_results(tmp_path)


def pytest_runtest_setup(item):
    """Fault-suite tests carry their category into the JUnit report (scripts/fault_report.py reads it)."""
    mark = item.get_closest_marker("fault")
    if mark is not None:
        if not mark.args or mark.args[0] not in FAULT_CATEGORIES:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.fault needs one of {', '.join(FAULT_CATEGORIES)}")
        item.user_properties.append(("fault", mark.args[0]))


def pytest_unconfigure(config):
    shutil.rmtree(os.environ["COCKPIT_HOME"], ignore_errors=True)


FAULT_CATEGORIES = ("kill", "browser", "model", "store", "input", "hostile", "secrets")


@pytest.fixture
def memory_keyring():
    """The system keyring swapped for an in-memory one for the test."""
    before = keyring.get_keyring()
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    try:
        yield kr
    finally:
        keyring.set_keyring(before)


@pytest.fixture
def no_keyring():
    """No usable keyring backend, as on a headless server."""
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(before)
