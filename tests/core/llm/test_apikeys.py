"""API keys: the OS keyring per host, the OPENAI_API_KEY fallback where there is no keyring, and local servers
needing none."""
import pytest

from cockpit.core.llm import apikeys
from cockpit.core.llm.client import ModelClient, ModelConfig, ModelError
from cockpit.core.llm.modelserver import ModelServer
from tests.core.llm.test_client import SECRET, USER, config


def test_keyring_roundtrip_per_host(memory_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert apikeys.keyring_usable()[0]
    apikeys.set_api_key(None, SECRET)
    apikeys.set_api_key("http://localhost:8000/v1", "local-key")
    assert ("cockpit", "api-key:api.openai.com") in memory_keyring.store
    assert ("cockpit", "api-key:localhost:8000") in memory_keyring.store

    lookup = apikeys.get_api_key("https://api.openai.com/v1")
    assert (lookup.key, lookup.source) == (SECRET, "keyring")
    assert SECRET not in repr(lookup) and SECRET not in lookup.note
    key, source = apikeys.get_api_key("http://localhost:8000/v1")
    assert (key, source) == ("local-key", "keyring")
    assert apikeys.get_api_key("http://localhost:1234/v1").source == "none"

    assert apikeys.delete_api_key(None) is True
    assert apikeys.delete_api_key(None) is False
    assert apikeys.get_api_key(None).key is None


def test_client_takes_key_from_keyring(memory_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ModelServer(["hi"]) as srv:
        apikeys.set_api_key(srv.base_url, SECRET)
        with ModelClient(config(srv)) as c:
            assert c.key_source == "keyring"
            assert c.chat(USER).text == "hi"
            assert SECRET not in repr(c)


def test_env_fallback_when_no_keyring(no_keyring, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    usable, why = apikeys.keyring_usable()
    assert not usable and why
    lookup = apikeys.get_api_key(None)
    assert lookup.key == SECRET and lookup.source == "environment (OPENAI_API_KEY)"
    assert "no keyring backend works" in lookup.note and "OPENAI_API_KEY" in lookup.note
    assert SECRET not in lookup.note and SECRET not in repr(lookup)


def test_storing_without_keyring_explains_env_var(no_keyring):
    with pytest.raises(apikeys.SecretStoreError) as info:
        apikeys.set_api_key(None, SECRET)
    assert "OPENAI_API_KEY" in str(info.value) and SECRET not in str(info.value)
    with pytest.raises(apikeys.SecretStoreError):
        apikeys.delete_api_key(None)


def test_no_key_for_openai_is_a_clear_error(no_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelError) as info:
        ModelClient(ModelConfig())
    assert "OPENAI_API_KEY" in str(info.value) and "keyring" in str(info.value)


def test_local_server_needs_no_key(no_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ModelServer(["local"]) as srv, ModelClient(config(srv)) as c:
        assert c.key_source.startswith("none")
        assert c.chat(USER).text == "local"
