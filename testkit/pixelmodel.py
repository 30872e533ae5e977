"""A scripted pixel-grounded "model" for tests and benches: it answers in any dialect and coordinate space,
pointing at the true centres of the targets on the live page.

A script is a list of :class:`Move` in page terms ("click the element matching
``#order``", "type 'Ada'", "answer 'done'"). For each request, the responder
takes the next move, finds its target's box in the browser (CSS pixels, the
element's visible centre), converts that point into the model's coordinate
space for the screenshot the request actually carries (its size read from the
image), and writes the reply the way that dialect's model would: a UI-TARS
call, a Qwen ``<tool_call>``, a Claude-style JSON action, OpenAI function
tool calls, or a Responses API ``computer_call``. ``targets`` keeps each
move's true point, for measuring where the action really landed.
"""
from __future__ import annotations

import base64
import io
import json
import re
import threading
import uuid
from dataclasses import dataclass

from PIL import Image

from cockpit.core.actions import coords
from cockpit.core.actions.grammar import Action
from cockpit.core.llm.modelserver import Reply

_CENTRE = """
const sel = arguments[0];
function byText(want) {
  want = want.toLowerCase();
  const seen = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.bottom < 0 || r.top > innerHeight) continue;
    const t = (e.innerText || e.value || e.getAttribute('aria-label') || '').trim().toLowerCase();
    const rank = t === want ? 0 : t.startsWith(want) ? 1 : t.includes(want) ? 2 : 9;
    if (rank < 9) seen.push([rank, r.width * r.height, e]);
  }
  seen.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return seen.length ? seen[0][2] : null;
}
// "host >>> inner": inside an open shadow root or a same-origin frame (its box offset to the top viewport)
let el = null, ox = 0, oy = 0, root = document;
for (const part of sel.split(' >>> ')) {
  if (el) {
    if (el.shadowRoot) root = el.shadowRoot;
    else { const fr = el.getBoundingClientRect(); ox += fr.left + el.clientLeft; oy += fr.top + el.clientTop;
           root = el.contentDocument; }
  }
  el = part.startsWith('text=') ? byText(part.slice(5)) : root.querySelector(part);
  if (!el) return null;
}
const b = el.getBoundingClientRect();
// the part of the element on screen: a model points at what it sees
const left = Math.max(0, b.left + ox), top = Math.max(0, b.top + oy);
const r = {left: left, top: top, width: Math.min(innerWidth, b.right + ox) - left,
           height: Math.min(innerHeight, b.bottom + oy) - top};
let mark = 0;
const marks = window.__cockpitMarks || [];
for (let n = el; n && !mark; n = n.parentElement) { const i = marks.indexOf(n); if (i >= 0) mark = i + 1; }
if (!mark) { const i = marks.findIndex(m => el.contains(m)); if (i >= 0) mark = i + 1; }
if (!mark) {  // the smallest box around the point, as a person reading the boxes would pick
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  let best = 0, area = Infinity;
  marks.forEach((m, i) => { const q = m.getBoundingClientRect();
    if (q.left <= cx && cx < q.right && q.top <= cy && cy < q.bottom && q.width * q.height < area) {
      area = q.width * q.height; best = i + 1; } });
  mark = best;
}
return [r.left + r.width / 2, r.top + r.height / 2, window.innerWidth, window.innerHeight, mark];
"""


@dataclass(frozen=True)
class Move:
    kind: str  # click, double_click, right_click, hover, type, press, scroll, answer, wait, back
    selector: str = ""  # the target's CSS selector, or text=Label (its centre is the point); "" for no point
    text: str = ""  # typed text, key, answer, or scroll direction (up/down)
    thought: str = ""


class PixelModel:
    """``responder(body) -> Reply`` for :class:`~cockpit.core.llm.modelserver.ModelServer`."""

    def __init__(self, session, moves: list[Move], dialect: str, space: str = "pixels",
                 qwen_pixels: tuple[int, int] = coords.QWEN_BUDGET):
        self.session, self.moves, self.dialect, self.space = session, list(moves), dialect, space
        self.qwen_pixels = tuple(qwen_pixels)  # the budget of the server this model plays (its processor's)
        self.targets: list[tuple[float, float] | None] = []  # each answered move's true point (CSS pixels)
        self.frames: list[coords.Frame] = []
        self.said: list[tuple | None] = []  # each answered move's point as the model wrote it (its own space)
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        with self._lock:
            move = self.moves.pop(0) if self.moves else Move("answer", text="out of moves")
        point, viewport, mark = None, (1024, 768), 0
        if move.selector:
            got = self.session.js(_CENTRE, move.selector)
            if got is None:
                raise LookupError(f"nothing on the page matches {move.selector!r}")
            point, viewport, mark = (got[0], got[1]), (int(got[2]), int(got[3])), int(got[4])
        frame = coords.Frame(viewport, _image_size(body) or viewport, self.qwen_pixels)
        self.targets.append(point)
        self.frames.append(frame)
        if self.dialect == "marks":  # a Set-of-Mark model: the mark holding the target, else one by its text
            if not mark and move.selector.startswith("text="):
                mark = _mark_by_text(body, move.selector[5:])
            return Reply(text=f"Thought: {move.thought or move.kind}\nAction: {_marks(move, mark)}")
        model_point = coords.to_model(point, self.space, frame) if point else None
        self.said.append(model_point)
        return encode(self.dialect, move, model_point)


class PointingModel(PixelModel):
    """A pixel model for the pointing check: it clicks the target each request names ("Target F"), at its
    true centre, in its own space (and, for the qwen space, the grid of its own server's budget). Its session
    may be another browser of the same viewport (the check's runs in another process): it opens the page the
    request names there."""

    def __call__(self, body: dict) -> Reply:
        text = json.dumps(body.get("messages") or body.get("input") or [])
        found = re.findall(r'Target ([A-Z])', text)
        url = re.search(r"Please interact with (\S+)", text)
        with self._lock:
            if url and self.session.url != url.group(1):
                self.session.goto(url.group(1))
            self.moves = [Move("click", f"#t-{found[-1]}")] if found else []
        return super().__call__(body)


def _image_size(body: dict) -> tuple[int, int] | None:
    """The size of the last image the request carries (chat messages or a Responses input)."""
    urls: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "image_url":
                    url = v.get("url") if isinstance(v, dict) else v
                    if isinstance(url, str) and url.startswith("data:"):
                        urls.append(url)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(body.get("messages") or body.get("input") or [])
    if not urls:
        return None
    return Image.open(io.BytesIO(base64.b64decode(urls[-1].split(",", 1)[1]))).size


def _mark_by_text(body: dict, want: str) -> int:
    """The number of the element the prompt's list shows with `want` (exact, else prefix, else substring)."""
    last = next((m for m in reversed(body.get("messages") or []) if m.get("role") == "user"), {})
    content = last.get("content")
    text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content or []
                                                             if isinstance(p, dict))
    rows = [(int(m.group(1)), m.group(2).lower()) for m in re.finditer(r"^\[(\d+)\]: <[^>]+> (.*);$", text, re.M)]
    want = want.lower()
    for test in (lambda t: t.strip('"') == want, lambda t: t.strip('"').startswith(want), lambda t: want in t):
        found = [n for n, t in rows if test(t)]
        if found:
            return found[0]
    return 0


def _canonical(move: Move, p) -> str:
    kinds = {"back": Action("back"), "wait": Action("wait"), "answer": Action("answer", text=move.text),
             "press": Action("press", text=move.text)}
    if move.kind in kinds:
        return str(kinds[move.kind])
    if move.kind == "type":
        return str(Action("type", text=move.text, point=p, focused=p is None))
    if move.kind == "scroll":
        return str(Action("scroll", point=p, delta=(0, 400 if move.text != "up" else -400)))
    return str(Action(move.kind, point=p))


def _marks(move: Move, mark: int) -> str:
    simple = {"back": Action("back"), "wait": Action("wait"), "answer": Action("answer", text=move.text),
              "press": Action("press", text=move.text), "click": Action("click", mark), "hover": Action("hover", mark),
              "type": Action("type", mark, move.text), "scroll": Action("scroll", None, move.text or "down")}
    return str(simple[move.kind])


def encode(dialect: str, move: Move, p) -> Reply:
    """The reply a model of `dialect` writes for `move` at model point `p`."""
    thought = move.thought or f"I will {move.kind.replace('_', ' ')}."
    if dialect == "plain":
        return Reply(text=f"Thought: {thought}\nAction: {_canonical(move, p)}")
    if dialect == "uitars":
        return Reply(text=f"Thought: {thought}\nAction: {_uitars(move, p)}")
    if dialect == "qwen":
        return Reply(text=f"{thought}\n<tool_call>\n{json.dumps({'name': 'computer_use', 'arguments': _computer_use(move, p, 'qwen')})}"
                          "\n</tool_call>")
    if dialect == "claude":
        return _call_reply(thought, "computer", _computer_use(move, p, "claude"))
    if dialect == "openai_tools":
        name, args = _tools(move, p)
        return _call_reply(thought, name, args)
    if dialect == "openai_computer":
        return _computer(thought, move, p)
    raise ValueError(f"no encoder for dialect {dialect!r}")


def _call_reply(thought: str, name: str, args: dict) -> Reply:
    call = {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}
    return Reply(text=thought, tool_calls=[call])


def _pt(p) -> str:
    return f"({p[0]},{p[1]})"


def _uitars(move: Move, p) -> str:
    box = f"'<|box_start|>{_pt(p)}<|box_end|>'" if p else ""
    simple = {"click": f"click(start_box={box})", "double_click": f"left_double(start_box={box})",
              "right_click": f"right_single(start_box={box})", "hover": f"hover(start_box={box})",
              "wait": "wait()", "back": "hotkey(key='alt left')",
              "answer": f"finished(content='{move.text}')", "press": f"hotkey(key='{move.text.lower()}')",
              "type": f"type(content='{move.text}')",
              "scroll": f"scroll(start_box={box}, direction='{move.text or 'down'}')"}
    return simple[move.kind]


def _computer_use(move: Move, p, dialect: str) -> dict:
    """Qwen's computer_use arguments, or Claude's computer tool's: one schema (Qwen modelled its on Claude's),
    apart from keys, scrolling and waiting."""
    xy = list(p) if p else None
    pointed = {"click": "left_click", "double_click": "double_click", "right_click": "right_click",
               "hover": "mouse_move"}
    if move.kind in pointed:
        return {"action": pointed[move.kind], "coordinate": xy}
    if move.kind in ("type", "answer"):
        return {"action": move.kind, "text": move.text}
    qwen = dialect == "qwen"
    if move.kind in ("press", "back"):
        keys = [move.text] if move.kind == "press" else ["alt", "left"]
        return {"action": "key", "keys": keys} if qwen else {"action": "key", "text": "+".join(keys)}
    if move.kind == "scroll":
        if qwen:
            return {"action": "scroll", "pixels": -400 if move.text != "up" else 400, "coordinate": xy}
        return {"action": "scroll", "coordinate": xy, "scroll_direction": move.text or "down", "scroll_amount": 4}
    return {"action": "wait", "time" if qwen else "duration": 1}


def _tools(move: Move, p) -> tuple[str, dict]:
    xy = {"x": p[0], "y": p[1]} if p else {}
    return {"click": ("click", xy), "double_click": ("double_click", xy), "right_click": ("right_click", xy),
            "hover": ("hover", xy), "type": ("type", {"text": move.text}), "press": ("press", {"key": move.text}),
            "scroll": ("scroll", dict(xy, direction=move.text or "down", pixels=400)),
            "wait": ("wait", {}), "answer": ("answer", {"text": move.text}), "back": ("back", {})}[move.kind]


def _computer(thought: str, move: Move, p) -> Reply:
    reasoning = {"type": "reasoning", "id": f"rs_{uuid.uuid4().hex[:8]}",
                 "summary": [{"type": "summary_text", "text": thought}]}
    if move.kind == "answer":
        msg = {"type": "message", "id": f"msg_{uuid.uuid4().hex[:8]}", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": f"ANSWER: {move.text}", "annotations": []}]}
        return Reply(output=[reasoning, msg])
    xy = {"x": p[0], "y": p[1]} if p else {}
    action = {"click": dict(xy, type="click", button="left"), "double_click": dict(xy, type="double_click"),
              "right_click": dict(xy, type="click", button="right"), "hover": dict(xy, type="move"),
              "type": {"type": "type", "text": move.text}, "press": {"type": "keypress", "keys": [move.text.upper()]},
              "scroll": dict(xy, type="scroll", scroll_x=0, scroll_y=400 if move.text != "up" else -400),
              "wait": {"type": "wait"}, "back": {"type": "keypress", "keys": ["ALT", "ARROWLEFT"]}}[move.kind]
    checks = [{"id": f"cu_sc_{uuid.uuid4().hex[:8]}", "code": "irrelevant_domain",
               "message": "The page is not on the task's site."}] if "check" in move.thought.lower() else []
    call = {"type": "computer_call", "id": f"cu_{uuid.uuid4().hex[:8]}", "call_id": f"call_{uuid.uuid4().hex[:8]}",
            "action": action, "pending_safety_checks": checks, "status": "completed"}
    return Reply(output=[reasoning, call])
