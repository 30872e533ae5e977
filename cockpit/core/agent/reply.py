"""The model's reply at one step: parsed, text meant for secret fields hidden, recorded and announced
(and, while it is written, announced as far as it has come: :func:`streaming`).

Text the model types into a password or card field reaches the page, never
the step's record, the events or the conversation's history: the reply, its
thought and its action are scrubbed of it (and of every secret typed so far)
before anything keeps them. The action's target is resolved here, once
(:meth:`cockpit.core.agent.pixelstep.Points.resolve`: its box, or the element
under its point), since that element decides whether the typed text is secret.
"""
from __future__ import annotations

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent import pixelstep
from cockpit.core.agent.hooks.base import RunScope
from cockpit.core.agent.step import Step
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ChatResult
from cockpit.core.llm.streaming import Partial, name_only
from cockpit.core.safety import redaction
from cockpit.core.words import plural

#: the line that ends a kept reply Stop cut off
CUT_OFF = "[cut off by Stop after {tokens}, {seconds:.1f} s: the model had not finished this reply]"


class Replies:
    """One agent's reading of its model's replies: its protocol, its run's scope and its points."""

    def __init__(self, protocol, scope: RunScope, points: pixelstep.Points):
        self.protocol = protocol
        self.scope = scope
        self.points = points

    def streaming(self, st: Step, partial: Partial) -> None:
        """A reply still being written, announced (ModelStreaming) as :func:`_shown` tells; kept on the step
        (:func:`cut_off` records it when Stop ends the call)."""
        st.partial = partial
        thought, action = self._shown(st, partial)
        self.scope.emit(ev.ModelStreaming(self.scope.run_id, st.n, thought, action, partial.pieces, partial.seconds,
                                           partial.tokens_per_second, partial.first, partial.attempt,
                                           thought_held=any(m.secret for m in st.obs.marks)))


    def _shown(self, st: Step, partial: Partial) -> tuple[str, str]:
        """The (thought, action) of a reply so far as it may be shown: text the model types into a secret field
        (a Set-of-Mark ``Type`` into a password or card field) and every secret typed so far hidden; on a page
        with a secret field the thought is held back until the reply is read (it may name the secret first). A pixel
        action's target is not known before the reply is complete, so on a page with a secret field its
        action shows by its name alone until then."""
        thought, action = partial.preview()
        hide = set(self.scope.executor.secrets)
        secret_field = any(m.secret for m in st.obs.marks)
        if secret_field:  # the thought may say what is about to be typed there ("the password is …") before the
            thought = ""  # action that names the field is written: it shows once the reply is read (ModelReplied)
        if self.protocol.mode == "marks":
            hide.add(redaction.typed_secret(prompt.parse_reply(partial.text).action, st.obs.marks))
        elif action and secret_field:
            action = name_only(action)
        return redaction.scrub(thought, hide) or "", redaction.scrub(action, hide) or ""


    def cut_off(self, st: Step | None) -> None:
        """A reply Stop cut off while it streamed, kept on the step (#38): its raw reply is the text so far,
        marked as cut off, its pieces counted as its tokens. Redacted as the live view showed it: on a page with a
        secret field only the (scrubbed) action so far is kept, never the thought or the raw text, which may
        name what was about to be typed there."""
        partial = st.partial if st is not None and st.obs is not None else None
        if partial is None or not partial.pieces or st.record.reply:
            return
        thought, action = self._shown(st, partial)
        if any(m.secret for m in st.obs.marks):
            text = "\n".join(x for x in ("(the thought is not kept: this page has a secret field)",
                                          f"Action so far: {action}" if action else "") if x)
        else:
            hide = self.scope.executor.secrets
            text = redaction.scrub(partial.text or "\n".join(filter(None, partial.preview())), hide) or ""
            thought = redaction.scrub(thought, hide) or ""
        note = CUT_OFF.format(tokens=plural(partial.pieces, "token"), seconds=partial.seconds)
        st.write(reply=f"{text}\n{note}" if text else note, thought=thought, completion_tokens=partial.pieces,
                 model_seconds=partial.seconds, attempts=partial.attempt)


    def read(self, st: Step, conv: prompt.Conversation, result: ChatResult) -> Action | None:
        """The reply's action (None: unparsable, the error on the row), recorded with secrets hidden."""
        protocol = self.protocol
        parsed, pointer = protocol.parse(result)
        hidden = self.points.resolve(st, parsed, pointer)  # a pixel action: what is under its point
        hide = self.scope.executor.secrets | {redaction.typed_secret(parsed.action, st.obs.marks), hidden}
        recorded = (protocol.recorded_reply(result), parsed.thought, parsed.action_text)
        reply, thought, action_text = (redaction.scrub(x, hide) for x in recorded)
        pixelstep.scrub(st, hide)
        protocol.add_reply(conv, reply, result, pointer, hide)
        st.write(reply=reply, thought=thought, action_text=action_text,
                 prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens,
                 cost=result.cost, model_seconds=result.seconds, attempts=result.attempts)
        self.scope.emit(ev.ModelReplied(self.scope.run_id, st.n, reply, thought, action_text, result.prompt_tokens,
                                         result.completion_tokens, result.cost, result.seconds))
        if parsed.action is None:
            st.write(status="format_error", error=parsed.error)
        return parsed.action
