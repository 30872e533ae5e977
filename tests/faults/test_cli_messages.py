"""What the command line says when the model server is down or there is no key: one clean message each."""
import os

import pytest

from cockpit.core.llm.modelserver import ModelServer
from tests.clitools import cockpit, free_port
from tests.faults import file_keyring

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NO_KEYRING = "keyring.backends.fail.Keyring"


def cockpit_keyring(home, *args, keyring: str = NO_KEYRING, keyring_file=None, **env_extra):
    """`cockpit *args` with no OPENAI_API_KEY and the keyring backend `keyring` (a file one at `keyring_file`)."""
    env = dict(PYTHONPATH=ROOT, PYTHON_KEYRING_BACKEND=keyring, **env_extra)
    if keyring_file is not None:
        env[file_keyring.ENV] = str(keyring_file)
    return cockpit(home, *args, env=env, drop=("OPENAI_API_KEY",))


@pytest.mark.fault("model")
def test_an_unreachable_server_gives_one_clean_failure_line_and_the_log_line_only_with_v(site, tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    args = ("run", "--task", "t", "--url", site.url("agent_start.html"), "--base-url", url, "--model", "m",
            "--retries", "1")
    r = cockpit_keyring(tmp_path / "home", *args)
    assert r.returncode == 1, r.stderr
    assert f"FAILED after 1 step: model call failed after 2 attempts: could not connect to {url}" in r.stderr
    assert r.stderr.count("model call failed after") == 1, r.stderr  # the FAILED line only
    assert "WARNING" not in r.stderr and "cockpit.core.llm.client" not in r.stderr, r.stderr
    v = cockpit_keyring(tmp_path / "home", "-v", *args)
    assert v.returncode == 1
    assert "cockpit.core.llm.client: model call failed after 2 attempts" in v.stderr  # kept for who asks for detail


@pytest.mark.fault("secrets")
def test_no_key_and_no_keyring_says_once_what_to_do(site, tmp_path):
    r = cockpit_keyring(tmp_path / "home", "run", "--task", "t", "--url", site.url("agent_start.html"))
    assert r.returncode == 3, r.stderr
    message = [line for line in r.stderr.splitlines() if "API key" in line]
    assert len(message) == 1, r.stderr
    line = message[0]
    assert line.count("no API key") == 1 and line.count("keyring") == 1, line
    assert "OPENAI_API_KEY" in line and "--base-url" in line and "needs no key" in line
    assert "key set" not in line  # no keyring works here: storing a key is not a way out
    assert "Traceback" not in r.stderr


@pytest.mark.fault("secrets")
def test_no_key_with_a_working_keyring_suggests_storing_one(site, tmp_path):
    r = cockpit_keyring(tmp_path / "home", "run", "--task", "t", "--url", site.url("agent_start.html"),
                keyring=file_keyring.BACKEND, keyring_file=tmp_path / "keyring.json")
    assert r.returncode == 3, r.stderr
    assert "`cockpit key set`" in r.stderr and "OPENAI_API_KEY" in r.stderr and "--base-url" in r.stderr


@pytest.mark.fault("secrets")
@pytest.mark.parametrize("keyring", [NO_KEYRING, file_keyring.BACKEND])
def test_key_status_of_a_local_server_needs_no_key(keyring, tmp_path):
    kw = {"keyring": keyring, "keyring_file": tmp_path / "keyring.json"}
    with ModelServer(["hi"]) as srv:  # a local server, needing no key
        local = cockpit_keyring(tmp_path, "key", "status", "--base-url", srv.base_url, **kw)
        assert local.returncode == 0, local.stdout + local.stderr
        assert "none needed" in local.stdout
    openai = cockpit_keyring(tmp_path, "key", "status", **kw)
    assert openai.returncode == 1
    said = openai.stdout.splitlines()[-1]
    assert said.startswith("key for api.openai.com: none") and "OPENAI_API_KEY" in said
    assert ("cockpit key set" in said) == (keyring != NO_KEYRING)
