"""Settings: round trip, broken and odd files, and that no key ever reaches settings.json."""
import dataclasses
import json

import pytest

from cockpit.core import settings as st
from cockpit.core.llm.client import ModelConfig
from cockpit.core.settings import Settings, SettingsError, load_settings, save_settings, settings_path


def test_defaults_and_missing_file(tmp_path):
    s, problems = load_settings(tmp_path / "settings.json")
    assert problems == []
    assert s == Settings()
    assert s.model == ModelConfig()
    assert (s.max_steps, s.approval_policy, s.keep_images, s.annotator) == (15, "irreversible", 3, "")
    assert s.annotator_name() == st.os_user_name()
    assert s.decided_by() == f"human:{st.os_user_name()}"


def test_settings_path_follows_cockpit_home(tmp_path, monkeypatch):
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "home"))
    assert settings_path() == tmp_path / "home" / "settings.json"
    save_settings(Settings(max_steps=7))
    assert load_settings()[0].max_steps == 7


def test_round_trip(tmp_path):
    path = tmp_path / "settings.json"
    s = Settings(
        model=ModelConfig(base_url="http://localhost:8000/v1", model="qwen2-vl", temperature=0.2,
                          max_tokens=300, timeout=30.0, image_detail="low", image_max_width=1024,
                          price_in=0.5, price_out=1.5),
        max_steps=25, approval_policy="every", keep_images=2, annotator="alice",
        recent_task_files=["/tmp/a.jsonl", "/tmp/b.jsonl"])
    save_settings(s, path)
    loaded, problems = load_settings(path)
    assert problems == []
    assert loaded == s
    assert loaded.decided_by() == "human:alice"
    assert json.loads(path.read_text())["version"] == st.SETTINGS_VERSION
    assert not [p for p in tmp_path.iterdir() if p.name != "settings.json"]  # no temp files left


def test_broken_json_keeps_bad_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"max_steps": 20,')
    s, problems = load_settings(path)
    assert s == Settings()
    assert len(problems) == 1
    assert problems[0].startswith("settings.json is not valid JSON (")
    assert "using defaults" in problems[0] and "settings.json.bad" in problems[0]
    assert not path.exists()
    assert (tmp_path / "settings.json.bad").read_text() == '{"max_steps": 20,'
    # saving afterwards writes a fresh, valid file
    save_settings(s, path)
    assert load_settings(path) == (Settings(), [])


@pytest.mark.parametrize("raw", [b"[1, 2]", b"\xff\xfe garbage", b""])
def test_not_an_object_or_not_text(tmp_path, raw):
    path = tmp_path / "settings.json"
    path.write_bytes(raw)
    s, problems = load_settings(path)
    assert s == Settings()
    assert len(problems) == 1 and "using defaults" in problems[0]
    assert (tmp_path / "settings.json.bad").read_bytes() == raw


def test_unknown_and_missing_keys(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"max_steps": 9, "from_the_future": {"x": 1},
                                "model": {"model": "m", "new_knob": True}}))
    s, problems = load_settings(path)
    assert problems == []
    assert s.max_steps == 9 and s.model.model == "m"
    assert s.keep_images == 3 and s.model.temperature == 1.0  # missing -> defaults


def test_newer_version_is_reported(tmp_path):
    s, problems = Settings.from_dict({"version": 99, "max_steps": 4})
    assert s.max_steps == 4 and s.version == st.SETTINGS_VERSION
    assert len(problems) == 1 and "newer Cockpit" in problems[0]


def test_bad_types_fall_back_per_field():
    s, problems = Settings.from_dict({
        "max_steps": "many",            # wrong type
        "keep_images": -1,              # out of range
        "approval_policy": "sometimes",  # not a policy
        "annotator": 42,
        "recent_task_files": "a.jsonl",  # not a list
        "model": {"temperature": "hot", "max_tokens": True, "image_detail": "ultra",
                  "base_url": "localhost:8000", "timeout": 30, "model": "ok-model"},
    })
    assert (s.max_steps, s.keep_images, s.approval_policy, s.annotator, s.recent_task_files) == \
        (15, 3, "irreversible", "", [])
    assert s.model.temperature == 1.0 and s.model.max_tokens == 1000
    assert s.model.image_detail == "auto" and s.model.base_url is None
    assert s.model.timeout == 30.0 and isinstance(s.model.timeout, float)  # int accepted for a float
    assert s.model.model == "ok-model"
    named = " ".join(problems)
    for name in ("'max_steps'", "'keep_images'", "'approval_policy'", "'annotator'", "'recent_task_files'",
                 "'model.temperature'", "'model.max_tokens'", "'model.image_detail'", "'model.base_url'"):
        assert name in named
    assert len(problems) == 9


def test_model_not_an_object():
    s, problems = Settings.from_dict({"model": "gpt-4o"})
    assert s.model == ModelConfig()
    assert len(problems) == 1 and "'model'" in problems[0]


def test_image_width_zero_means_off_and_empty_url_means_openai():
    s, problems = Settings.from_dict({"model": {"image_max_width": 0, "base_url": "  "}})
    assert problems == []
    assert s.model.image_max_width is None and s.model.base_url is None


def test_key_like_entries_are_dropped_and_reported(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"api_key": "sk-SECRET-1", "model": {"api_key": "sk-SECRET-2", "model": "m"}}))
    s, problems = load_settings(path)
    assert s.model.model == "m"
    assert len(problems) == 2 and all("key-like" in p for p in problems)
    save_settings(s, path)
    assert "SECRET" not in path.read_text()


def test_save_refuses_key_like_fields(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    original = Settings.to_dict
    monkeypatch.setattr(Settings, "to_dict", lambda self: {**original(self), "api_key": "sk-SECRET"})
    with pytest.raises(SettingsError, match="api_key"):
        save_settings(Settings(), path)
    assert not path.exists()


def test_max_tokens_is_not_mistaken_for_a_key(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(Settings(model=ModelConfig(max_tokens=77)), path)
    assert load_settings(path)[0].model.max_tokens == 77


def test_save_failure_raises_settings_error_and_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    save_settings(Settings(max_steps=5), path)

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(st.os, "replace", boom)
    with pytest.raises(SettingsError, match="No space left"):
        save_settings(Settings(max_steps=6), path)
    monkeypatch.undo()
    assert load_settings(path)[0].max_steps == 5
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_recent_task_files():
    s = Settings()
    for i in range(st.MAX_RECENT + 3):
        s.add_recent_task_file(f"/t/{i}.jsonl")
    s.add_recent_task_file("/t/5.jsonl")
    assert s.recent_task_files[0] == "/t/5.jsonl"
    assert len(s.recent_task_files) == st.MAX_RECENT
    assert len(set(s.recent_task_files)) == st.MAX_RECENT


def test_every_field_has_help():
    for f in dataclasses.fields(Settings):
        assert st.field_help(f.name), f.name
    for f in dataclasses.fields(ModelConfig):
        assert st.field_help(f"model.{f.name}"), f.name
    assert st.field_help("nope") == ""


def test_a_hand_edited_webdriver_url_that_is_no_web_address_is_refused(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"webdriver_url": "hub:4444", "chrome_args": ["--no-sandbox"]}))
    s, problems = load_settings(path)
    assert s.webdriver_url == "" and s.chrome_args == ["--no-sandbox"]
    assert len(problems) == 1 and "webdriver_url" in problems[0], problems
    path.write_text(json.dumps({"webdriver_url": " http://hub:4444 "}))
    assert load_settings(path)[0].webdriver_url == "http://hub:4444"


def test_the_qwen_budget_viewport_and_device_scale_are_saved_and_bad_ones_fall_back(tmp_path):
    """Issue #39: the Qwen pixel budget is saved with the model, the window's viewport and scale beside it."""
    path = tmp_path / "settings.json"
    s = Settings(viewport=[1280, 800], device_scale_factor=2.0,
                 model=ModelConfig(dialect="qwen", coords="qwen", qwen_max_pixels=1003520))
    save_settings(s, path)
    again, problems = load_settings(path)
    assert problems == [] and again == s and again.model.qwen_budget() == (3136, 1003520)
    data = json.loads(path.read_text())
    data["viewport"], data["device_scale_factor"] = [10, 768], 9
    data["model"].update(qwen_min_pixels=2_000_000, qwen_max_pixels=1003520)
    path.write_text(json.dumps(data))
    bad, problems = load_settings(path)
    assert (bad.viewport, bad.device_scale_factor) == ([1024, 768], 1.0)
    assert (bad.model.qwen_min_pixels, bad.model.qwen_max_pixels) == (None, None)
    assert any("more than its max pixels" in p for p in problems) and len(problems) == 3
