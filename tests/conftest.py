import os
import shutil
import tempfile
from pathlib import Path

# Before anything imports Qt or Cockpit: no display, and a throwaway data dir.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["COCKPIT_HOME"] = tempfile.mkdtemp(prefix="cockpit-test-home-")

import keyring  # noqa: E402
import pytest  # noqa: E402
from keyring.backends import fail  # noqa: E402

from cockpit.core.browser.session import BrowserConfig, BrowserSession  # noqa: E402
from cockpit.core.localserver import LocalSite  # noqa: E402
from testkit import pagegen  # noqa: E402
from tests import PAGES  # noqa: E402
from tests.keyrings import MemoryKeyring  # noqa: E402
from tests.pdfgen import write_pdf  # noqa: E402

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
    import socket
    import subprocess
    import time
    from cockpit.core.browser.session import find_chromedriver
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
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


def pytest_runtest_setup(item):
    """Fault-suite tests carry their category into the JUnit report (scripts/fault_report.py reads it)."""
    mark = item.get_closest_marker("fault")
    if mark is not None:
        if not mark.args or mark.args[0] not in FAULT_CATEGORIES:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.fault needs one of {', '.join(FAULT_CATEGORIES)}")
        item.user_properties.append(("fault", mark.args[0]))


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
