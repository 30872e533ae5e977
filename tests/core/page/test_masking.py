"""A card number or code typed into a secret field is painted over in every screenshot Cockpit keeps or sends.

secret_pixels.html draws every field's text in large red digits, so "no red pixel in the box" means nothing
typed is visible there; the ordinary name field keeps its red text and the password field its red dots.
"""
import io
import json
import re

import pytest
from PIL import Image

from cockpit.core import resources
from cockpit.core.actions import parse_action
from cockpit.core.agent.execute import Executor
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.page import images, masking
from cockpit.core.page.marks import Mark, marks_from_json
from cockpit.core.page.observation import observe
from cockpit.core.page.overlay import draw_marks
from cockpit.core.store import Store
from tests.models import model_client

CARD = "4111 1111 1111 1111"
CSC = "737"


def decode(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def pixels(img: Image.Image) -> list[tuple]:
    data = img.convert("RGB").tobytes()
    return [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]


def box(img: Image.Image, mark: Mark, inset: int = 0) -> list[tuple]:
    x, y, w, h = mark.bbox
    return pixels(img.crop((x + inset, y + inset, x + w - inset, y + h - inset)))


def red(pixels) -> int:
    """Pixels of the typed text's colour (#d00000), loosely, so JPEG's smearing still counts."""
    return sum(1 for r, g, b in pixels if r > 150 and g < 90 and b < 90)


def expected_mask(mark: Mark) -> list[tuple]:
    """What masking paints over a box of this mark's size: the fill and the word, nothing of the page."""
    _, _, w, h = mark.bbox
    img = Image.new("RGB", (w, h), "white")
    masking.mask(img, [(0, 0, w, h)])
    return pixels(img)


def fields(obs) -> dict[str, Mark]:
    by = {}
    for m in obs.marks:
        if m.tag == "input":
            by[{"Full name": "name", "Card number": "card", "Security code": "csc"}.get(m.text, m.type)] = m
    assert set(by) == {"name", "card", "csc", "password"}, [m.to_dict() for m in obs.marks]
    return by


def type_into(browser, obs, mark: Mark, text: str) -> None:
    Executor(browser).run(parse_action(f"Type [{mark.id}]; {text}"), obs.marks, press_enter=False)


def filled_page(page):
    b = page("secret_pixels.html")
    obs = observe(b)
    f = fields(obs)
    assert not any(m.filled for m in obs.marks)
    assert "mask_ms" not in obs.timings  # nothing to paint: the page paid nothing
    for key, text in (("name", "Ada Lovelace"), ("card", CARD), ("csc", CSC), ("password", "hunter2")):
        type_into(b, obs, f[key], text)
    assert b.js("return document.getElementById('card').value") == CARD  # really typed
    return b


def test_typed_card_number_and_code_are_masked_in_every_image_but_other_fields_are_not(page):
    b = filled_page(page)
    obs = observe(b, image_format="jpeg")
    f = fields(obs)
    assert f["card"].filled and f["csc"].filled and f["password"].filled and not f["name"].filled
    assert f["card"].value == "" and CARD not in repr(f["card"].to_dict())  # the flag, never the value

    clean = decode(obs.screenshot)
    for key in ("card", "csc"):
        assert box(clean, f[key]) == expected_mask(f[key]), f"{key} field not masked in the clean screenshot"
    assert red(box(clean, f["name"])) > 200  # the name is still shown as typed
    assert red(box(clean, f["password"])) > 20  # the browser's dots, left alone
    assert masking.FILL not in box(clean, f["password"]) and masking.FILL not in box(clean, f["name"])

    for what, data in (("marked", obs.render()), ("model image", obs.for_model("jpeg")),
                       ("restyled", obs.render(color="blue"))):
        img = decode(data)
        assert red(box(img, f["card"])) == 0 and red(box(img, f["csc"])) == 0, f"digits visible in the {what}"
        assert red(box(img, f["name"])) > 200, f"the name is gone from the {what}"
    assert images.sniff(obs.for_model("jpeg")) == "jpeg"
    # the thumbnail (change measuring) is made from the masked pixels too
    x, y, w, h = f["card"].bbox
    sx, sy = obs.thumb.width / clean.width, obs.thumb.height / clean.height
    centre = obs.thumb.convert("RGB").getpixel((int((x + w / 2) * sx), int((y + h / 2) * sy)))
    assert abs(sum(centre) / 3 - sum(masking.FILL) / 3) < 30, centre


def test_masked_without_the_direct_connection_and_without_rendering(page, monkeypatch):
    b = filled_page(page)
    monkeypatch.setattr(b, "direct_cdp", lambda purpose="screenshot": None)  # as with a remote WebDriver
    for render in (True, False):
        obs = observe(b, render=render)
        f = fields(obs)
        clean = decode(obs.screenshot)
        assert box(clean, f["card"]) == expected_mask(f["card"]), f"render={render}"
        assert red(box(clean, f["name"])) > 200
        if render:
            assert red(box(decode(obs.render()), f["card"])) == 0


def test_saved_files_are_masked_and_old_marks_without_the_flag_still_load(page, tmp_path):
    b = filled_page(page)
    files = observe(b).save(tmp_path / "obs")  # what `cockpit observe --out` writes
    marks = marks_from_json(json.loads(files["marks"].read_text()))
    card = next(m for m in marks if m.text == "Card number")
    assert card.filled and card.secret
    assert box(decode(files["screenshot"].read_bytes()), card) == expected_mask(card)
    assert red(box(decode(files["marked"].read_bytes()), card)) == 0
    old = {k: v for k, v in card.to_dict().items() if k != "filled"}  # marks.json from before the flag
    assert Mark.from_dict(old).filled is False and Mark.from_dict(old).secret


def test_an_emptied_card_field_is_shown_again(page):
    b = filled_page(page)
    b.js("document.getElementById('card').value = ''")
    obs = observe(b)
    f = fields(obs)
    assert not f["card"].filled and f["csc"].filled
    assert masking.FILL not in box(decode(obs.screenshot), f["card"], inset=3)


# ---------- end to end: an agent run on the demo checkout ----------

def card_field(body) -> int:
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    text = user["content"] if isinstance(user["content"], str) else user["content"][0]["text"]
    return int(re.search(r"\[(\d+)\]: <input type=text> \"Card number\"", text).group(1))


def last_image(body) -> bytes:
    for m in reversed(body["messages"]):
        if m["role"] == "user" and not isinstance(m["content"], str):
            for part in reversed(m["content"]):
                if part.get("type") == "image_url":
                    return images.from_data_url(part["image_url"]["url"])
    raise AssertionError("no image sent")


@pytest.mark.fault("secrets")
def test_an_agent_typing_a_card_number_stores_and_sends_only_masked_screenshots(browser, tmp_path,
                                                                                record_property):
    demo_card = "4242 4242 4242 4242"

    def agent(body):
        if not any(m["role"] == "assistant" for m in body["messages"]):
            return f"Thought: pay\nAction: Type [{card_field(body)}]; {demo_card}"
        return "Thought: typed\nAction: ANSWER; typed"

    with resources.path("demo_site") as root, LocalSite(root) as shop, ModelServer(agent) as srv, \
            Store(tmp_path / "home") as store:
        browser.goto(shop.url("index.html"))
        browser.js("localStorage.setItem('demo-shop-cart', JSON.stringify([{id: 'wireless-headphones', qty: 1}]))")
        client = model_client(srv, timeout=20)
        try:
            result = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2)).run(Fresh(
                "Pay for the headphones", shop.url("checkout.html")))
        finally:
            client.close()
        assert result.status == "answered" and result.steps == 2
        assert browser.js("return document.getElementById('card').value") == demo_card  # the real one was typed

        read = lambda key: store.file(store.step_file(result.run_id, 2, key)).read_bytes()  # noqa: E731
        marks = marks_from_json(json.loads(read("marks_file")))
        card = next(m for m in marks if m.text == "Card number")
        assert card.secret and card.filled and card.value == ""
        clean = decode(read("screenshot_clean"))
        assert box(clean, card) == expected_mask(card)  # screenshot.png: the field is the mask, nothing else
        # marked.png is the overlay drawn on that masked screenshot, pixel for pixel
        assert decode(read("screenshot")).tobytes() == draw_marks(clean, marks).tobytes()
        # and the model was sent the masked pixels
        sent = decode(last_image(srv.requests[-1]))
        assert sent.size == clean.size
        fill = sum(1 for p in box(sent, card, inset=4) if all(abs(a - b) < 12 for a, b in zip(p, masking.FILL)))
        assert fill > 0.7 * len(box(sent, card, inset=4))
        # step 1 (before typing) was not masked: the empty field shows as the page draws it
        first = marks_from_json(json.loads(
            store.file(store.step_file(result.run_id, 1, "marks_file")).read_text()))
        card1 = next(m for m in first if m.text == "Card number")
        assert not card1.filled
        assert masking.FILL not in box(decode(store.file(store.step_file(result.run_id, 1, "screenshot_clean"))
                                              .read_bytes()), card1, inset=3)

        hits = 0
        for p in store.root.rglob("*"):
            if p.is_file():
                data = p.read_bytes()
                hits += sum(data.count(s.encode()) for s in (demo_card, demo_card.replace(" ", "")))
        record_property("secret_hits", hits)
        assert hits == 0


def test_a_disabled_card_field_showing_a_number_is_masked_though_it_is_not_marked(page):
    b = page("secret_review.html")
    obs = observe(b, image_format="jpeg")
    assert [m.text for m in obs.marks] == ["Place order"]  # disabled fields are not marked
    x, y, w, h = b.js("var r = document.getElementById('card').getBoundingClientRect();"
                      "return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]")
    assert obs.masked == ((x, y, w, h),)  # the card field only: the order reference is no secret
    card = Mark(0, (x, y, w, h), "input")
    for data in (obs.screenshot, obs.render(), obs.for_model("jpeg")):
        assert red(box(decode(data), card)) == 0
    rx, ry, rw, rh = b.js("var r = document.getElementById('ref').getBoundingClientRect();"
                          "return [r.left, r.top, r.width, r.height].map(Math.round)")
    assert red(box(decode(obs.screenshot), Mark(0, (rx, ry, rw, rh), "input"))) > 100  # shown as it is


def test_a_page_that_navigates_while_being_marked_is_observed_as_one_page(page, site, monkeypatch):
    """The marking script waits for a frame while the screenshot is captured. If the page goes to another
    document meanwhile (Chrome then answers the script with "Inspected target navigated"), the marks come from
    the new page: the screenshot must too, or a card number typed on the old page would be kept unmasked
    beside the new page's marks."""
    from cockpit.core.browser.cdp import DirectCDP, DirectCDPNavigated
    b = filled_page(page)
    real = DirectCDP.evaluate

    def navigates_meanwhile(self, expression, **kw):
        if "__cockpitAfterFrame" in expression:  # the marking call: the race, as Chrome reports it
            monkeypatch.setattr(DirectCDP, "evaluate", real)
            b.goto(site.url("obs_colors.html"))
            raise DirectCDPNavigated("Runtime.evaluate: Inspected target navigated or closed")
        return real(self, expression, **kw)
    monkeypatch.setattr(DirectCDP, "evaluate", navigates_meanwhile)
    obs = observe(b)
    assert obs.url.endswith("/obs_colors.html") and [m.text for m in obs.marks] == ["Turn blue"]
    assert decode(obs.screenshot).getpixel((150, 150)) == (255, 0, 0)  # the new page's pixels too
    assert red(pixels(decode(obs.screenshot).crop((0, 300, 700, 768)))) == 0  # no card digits of the old one
    assert b.direct_cdp("script") is not None and b.direct_cdp() is not None  # both connections kept
