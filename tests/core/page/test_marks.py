"""Set-of-Mark marking against real headless Chromium and fixture pages."""
import io
import json

from PIL import Image

from cockpit.core.page.observation import observe
from tests.core.marktools import texts


def find(obs, text):
    hits = [m for m in obs.marks if text in m.text or text in m.aria_label or text in m.placeholder]
    assert hits, f"no mark with {text!r}; marks: {texts(obs)}"
    return hits[0]


def test_screenshot_is_exactly_the_viewport(page):
    obs = observe(page("grid.html"))
    assert Image.open(io.BytesIO(obs.screenshot)).size == (1024, 768)
    assert obs.viewport == (1024, 768)


def test_ids_follow_reading_order(page):
    obs = observe(page("grid.html"))
    # C sits 2px lower than A, B 4px lower: still one row, read left to right.
    assert texts(obs) == ["A", "B", "C", "D", "E"]
    assert [m.id for m in obs.marks] == [1, 2, 3, 4, 5]


def test_nested_actionables_get_one_mark_each(page):
    obs = observe(page("nested.html"))
    t = texts(obs)
    # A link wrapping an image and text is one mark, covering the image too.
    card = find(obs, "Red shoe, size 42")
    assert t.count(card.text) == 1
    assert card.bbox[3] >= 40, card.bbox  # as tall as the 40px image
    # A button inside a link is not a second mark.
    assert not [x for x in t if x == "Inner button"]
    assert any("Outer link" in x and "Inner button" in x for x in t)
    # Children of a button are not marks; the button is.
    assert "Save draft" in t and "Save" not in t and "draft" not in t
    # A checkbox inside its label: one mark, the checkbox, named by its label.
    agree = [m for m in obs.marks if m.type == "checkbox" and m.text == "I agree"]
    assert len(agree) == 1 and not any(m.tag == "label" and "I agree" in m.text for m in obs.marks)
    # A label for a visually hidden checkbox is marked itself (it is what you click).
    assert find(obs, "Custom toggle").tag == "label"
    # A clickable container with a real link inside: the link is the mark.
    assert "Card link" in t and not any(x.startswith("Clickable card") for x in t)


def test_clickable_things_without_native_semantics(page):
    obs = observe(page("clickables.html"))
    by = {m.text or m.aria_label: m for m in obs.marks}
    assert by["Pointer div with a child span"].reason == "pointer"
    assert "with a child span" not in by  # the child inherits the cursor only
    assert by["Listener span"].reason == "listener"
    assert by["Inline handler"].reason == "handler"
    assert by["Property handler"].reason == "handler"
    assert by["ARIA button"].role == "button"
    assert by["Focusable div"].reason == "tabindex"
    assert by["Notes editor"].editable
    assert "Plain paragraph that does nothing" not in by


def test_hidden_clipped_and_offscreen_elements_are_not_marked(page):
    obs = observe(page("visibility.html"))
    t = texts(obs)
    assert "Visible" in t and "InClipBox" in t
    for hidden in ("DisplayNone", "VisHidden", "OpacityZero", "ParentOpacityZero", "ZeroSize",
                   "OffLeft", "ClippedAway", "BelowFold"):
        assert hidden not in t, hidden


def test_modal_hides_what_it_covers(page, browser):
    obs = observe(page("modal.html"))
    t = texts(obs)
    assert "Close dialog" in t and "Subscribe" in t
    assert "Behind one" not in t and "Behind link" not in t
    assert not any(m.placeholder == "Behind input" for m in obs.marks)


def test_cookie_banner_covers_only_what_is_under_it(page):
    obs = observe(page("cookie.html"))
    t = texts(obs)
    assert {"Top button", "Accept all", "Reject"} <= set(t)
    assert "Under banner" not in t
    # The banner sits in a footer far below the fold: found even so.
    assert "Imprint" not in t


def test_open_shadow_root_is_marked(page):
    obs = observe(page("shadow.html"))
    assert find(obs, "Shadow button").tag == "button"
    assert find(obs, "Shadow input").editable


def test_same_origin_iframe_is_marked_in_top_coordinates(page):
    obs = observe(page("iframe.html"))
    fb = find(obs, "Frame button")
    assert fb.in_iframe
    x, y, w, h = fb.bbox
    # iframe at (100, 200) with a 5px border; the button at (20, 30) inside it.
    assert (x, y) == (125, 235), fb.bbox
    assert not find(obs, "Top button").in_iframe


def test_a_scroll_area_is_marked_only_when_nothing_in_it_is(page):
    obs = observe(page("long.html"))
    # The list of links is scrolled by naming one of its links: no box around the whole list.
    assert any(m.text == "open 1" for m in obs.marks)
    assert not any(m.scrollable and "open 1" in m.text for m in obs.marks)
    # A pane of plain text has nothing else to name: it gets a mark of its own.
    notes = [m for m in obs.marks if m.scrollable]
    assert len(notes) == 1 and notes[0].text.startswith("Note 1") and notes[0].bbox[2] >= 290


def test_a_focusable_main_region_is_not_a_target(page):
    obs = observe(page("app_shell.html"))
    assert [m.text for m in obs.marks][:3] == ["Task 1", "Task 2", "Task 3"]
    assert not any(m.tag == "main" for m in obs.marks)


def test_listbox_options_are_marked_and_values_are_recorded(page):
    obs = observe(page("selects.html"))
    combo = [m for m in obs.marks if m.role == "combobox"]
    assert len(combo) == 1 and combo[0].value == "s" and combo[0].text == "Small"
    assert {"Apple", "Banana", "Cherry", "Date"} <= set(texts(obs))


def test_password_values_never_leave_the_page(page):
    obs = observe(page("forms.html"))
    pw = [m for m in obs.marks if m.type == "password"]
    assert len(pw) == 1 and pw[0].secret and pw[0].value == ""
    assert "s3cret-pass" not in json.dumps([m.to_dict() for m in obs.marks])
    field = find(obs, "Search products")
    assert field.value == "old text"
    assert 'value "old text"' in obs.element_text  # the model is told what is typed


def test_element_text_is_in_webvoyager_shape(page):
    obs = observe(page("clickables.html"))
    lines = obs.element_text.splitlines()
    assert len(lines) == len(obs.marks)
    assert any(line.startswith("[") and '<div clickable> "Listener span"' not in line and
               '"Listener span"' in line for line in lines)
    editor = [line for line in lines if "Notes editor" in line][0]
    assert editor.startswith("[") and editor.endswith(";")


def test_overlay_draws_boxes_and_keeps_clean_copy(page, tmp_path):
    obs = observe(page("grid.html"))
    files = obs.save(tmp_path)
    clean = Image.open(files["screenshot"]).convert("RGB")
    marked = Image.open(files["marked"]).convert("RGB")
    assert clean.size == marked.size == (1024, 768)
    x, y, w, h = obs.marks[0].bbox
    mid_left = (x, y + h // 2)
    assert marked.getpixel(mid_left) == (0, 0, 0)
    assert clean.getpixel(mid_left) != (0, 0, 0)
    saved = json.loads(files["marks"].read_text())
    assert [m["id"] for m in saved] == [1, 2, 3, 4, 5]


def test_twenty_thousand_elements_mark_without_timing_out(page):
    obs = observe(page("big.html"))
    assert not obs.stats["truncated"]
    # off-screen cards were skipped, not walked (pruned, or passed over by the bisection of the grid's children)
    assert obs.stats["pruned"] + obs.stats.get("skipped_siblings", 0) > 100
    assert 30 < len(obs.marks) < 400  # what the viewport holds, not the whole page
    assert all(m.bbox[1] < 768 for m in obs.marks)
