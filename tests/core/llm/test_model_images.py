"""How screenshots reach the model: JPEG by default, PNG on request, and re-ask sends the very same bytes.

Real Chromium, real store, the real openai client against the scripted model server.
"""
import base64
import io

import pytest
from PIL import Image, ImageChops, ImageStat

from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, scripted
from cockpit.core.page import images
from cockpit.core.page.observation import observe
from cockpit.core.replay import reask as R
from cockpit.core.settings import Settings
from tests.models import model_client

SCROLL_THEN_ANSWER = ["Thought: look further\nAction: Scroll [WINDOW]; down",
                      "Thought: done\nAction: ANSWER; bottom"]


def sent_images(body) -> list[bytes]:
    return [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for m in body["messages"]
            if isinstance(m["content"], list) for p in m["content"] if p.get("type") == "image_url"]


def sent_urls(body) -> list[str]:
    return [p["image_url"]["url"] for m in body["messages"]
            if isinstance(m["content"], list) for p in m["content"] if p.get("type") == "image_url"]


def run_scroll_task(browser, store, site, srv, **model):
    with model_client(srv, timeout=20, **model) as client:
        return Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2)).run(Fresh(
            "Scroll to the bottom", site.url("agent_start.html")))


def test_the_model_gets_a_jpeg_of_the_stored_marked_png_and_reask_sends_the_same_bytes(browser, site, store):
    with ModelServer(scripted(SCROLL_THEN_ANSWER)) as srv:
        result = run_scroll_task(browser, store, site, srv)
        assert result.status == "answered" and result.steps == 2
        at_step2 = sent_images(srv.requests[1])
        assert [images.sniff(b) for b in at_step2] == ["jpeg", "jpeg"]
        steps = store.steps(result.run_id)
        stored = [store.file(s["screenshot"]).read_bytes() for s in steps]
        assert [images.sniff(b) for b in stored] == ["png", "png"]  # kept lossless for review
        # The JPEG is the stored PNG, encoded again: the same bytes, so what the model saw can be rebuilt.
        assert at_step2 == [images.for_model(b, "jpeg") for b in stored]
        sent = Image.open(io.BytesIO(at_step2[1]))
        kept = Image.open(io.BytesIO(stored[1])).convert("RGB")
        assert sent.size == kept.size == (1024, 768)
        # lossy, but close: no pixel far off on average (the boxes and labels are all there)
        diff = ImageChops.difference(sent.convert("RGB"), kept).convert("L")
        assert ImageStat.Stat(diff).mean[0] < 4

        srv.responder = lambda body: "Thought: again\nAction: ANSWER; bottom"
        R.reask(store, result.run_id, 2, api_key="k")
        assert sent_images(srv.requests[-1]) == at_step2


def test_png_on_request_sends_the_stored_file_itself(browser, site, store):
    with ModelServer(scripted(SCROLL_THEN_ANSWER)) as srv:
        result = run_scroll_task(browser, store, site, srv, image_format="png")
        assert result.status == "answered"
        stored = [store.file(s["screenshot"]).read_bytes() for s in store.steps(result.run_id)]
        assert sent_urls(srv.requests[1]) == [images.data_url(b) for b in stored]
        assert store.run(result.run_id)["config"]["model"]["image_format"] == "png"
        srv.responder = lambda body: "Thought: again\nAction: ANSWER; bottom"
        R.reask(store, result.run_id, 2, api_key="k")
        assert sent_urls(srv.requests[-1]) == [images.data_url(b) for b in stored]


def test_runs_recorded_before_jpeg_are_reasked_with_png(browser, site, store):
    with ModelServer(scripted(SCROLL_THEN_ANSWER)) as srv:
        result = run_scroll_task(browser, store, site, srv)
        run = store.run(result.run_id)
        old = dict(run, config=dict(run["config"], model={k: v for k, v in run["config"]["model"].items()
                                                          if k != "image_format"}))
        assert R.model_config_of(old).image_format == "png"
        assert R.model_config_of(run).image_format == "jpeg"
        assert R.model_config_of({"base_url": "", "model": "(imported)"}).image_format == "png"


def test_observation_encodes_the_model_image_at_once_and_the_png_when_asked(page):
    browser = page("agent_start.html")
    assert observe(browser).model_image is None  # encoded only for a caller that sends it
    obs = observe(browser, image_format="jpeg")
    assert images.sniff(obs.model_image) == "jpeg" and obs.marked is None  # no PNG encoded yet
    png = obs.render()
    assert images.sniff(png) == "png" and obs.render() is png  # encoded once, kept
    assert obs.for_model("jpeg") == images.for_model(png, "jpeg")  # rebuilt from the PNG: the same bytes
    assert obs.for_model("png") is png
    as_png = observe(browser, image_format="png")
    assert images.sniff(as_png.model_image or as_png.marked) == "png"


@pytest.mark.fault("store")
def test_a_marked_screenshot_that_cannot_be_written_fails_the_run_with_the_reason(browser, site, store):
    def block_step_1(e):
        if type(e).__name__ == "RunStarted":  # a directory where the file's temporary copy goes
            (store.step_dir(e.run_id, 1) / "marked.png.tmp").mkdir(parents=True)

    with ModelServer(scripted(SCROLL_THEN_ANSWER)) as srv, \
            model_client(srv, timeout=20) as client:
        result = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2),
                       listener=block_step_1).run(Fresh("Scroll to the bottom", site.url("agent_start.html")))
    assert result.status == "failed" and "cannot write step files" in result.error
    assert "step-001" in result.error
    run = store.run(result.run_id)
    assert run["status"] == "failed" and run["steps"] == 1  # the step is recorded, as far as it got
    assert store.file(store.steps(result.run_id)[0]["screenshot_clean"]).exists()


def test_image_format_setting_is_checked():
    s, problems = Settings.from_dict({"model": {"image_format": "PNG"}})
    assert problems == [] and s.model.image_format == "png"
    s, problems = Settings.from_dict({"model": {"image_format": "gif"}})
    assert s.model.image_format == "jpeg" and len(problems) == 1 and "'model.image_format'" in problems[0]
    with pytest.raises(ValueError, match="unknown image format 'gif'"):
        images.for_model(b"", "gif")


def test_a_narrower_model_image_is_scaled_and_encoded_once(browser, site, store):
    """With image_max_width the model gets the marked screenshot scaled down, then JPEG-encoded once (not a
    JPEG of a JPEG), and the same bytes are rebuilt from the stored lossless PNG."""
    with ModelServer(scripted(SCROLL_THEN_ANSWER)) as srv:
        result = run_scroll_task(browser, store, site, srv, image_max_width=512)
        at_step2 = sent_images(srv.requests[1])
    stored = [store.file(s["screenshot"]).read_bytes() for s in store.steps(result.run_id)]
    assert [Image.open(io.BytesIO(b)).size for b in at_step2] == [(512, 384), (512, 384)]
    assert at_step2 == [images.prepare(images.decode(b).convert("RGB"), "jpeg", 512) for b in stored]
    assert at_step2 == [images.for_model(b, "jpeg", 512) for b in stored]
