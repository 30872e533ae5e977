"""A run's step screenshots: written to the store, and the ones the model is sent kept in memory.

At each observation the clean PNG and the marks are written at once; the marked PNG kept for Review is
encoded and written on a worker thread while the model thinks (:meth:`StepImages.files` waits for it
before anything reads the step's files). The image the model is sent at a step (marked, or clean in
pixel mode, in the model's format) is kept for the newest steps a request may attach, so building a
request reads no file; an older one is read back from the store and prepared the same way.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from cockpit.core.agent.step import Step
from cockpit.core.page.observation import Observation
from cockpit.core.store import Store

# The marked PNG of each step is encoded (Pillow lets go of the GIL) and written here, off the step's path.
_writer = ThreadPoolExecutor(max_workers=4, thread_name_prefix="step-files")


class StepImages:
    def __init__(self, store: Store, protocol, keep: int):
        self.store, self.protocol, self.keep = store, protocol, max(keep, 1)
        self._sent: dict[int, bytes] = {}  # the newest images as the model is sent them
        self._paths: dict[int, str] = {}  # each step's stored image the model saw

    def record(self, run_id: str, st: Step, obs: Observation) -> str:
        """Write step `st`'s files (the marked PNG in the background) and keep what the model is sent;
        returns the stored image the model saw (the marked one, or the clean one in pixel mode)."""
        st.files = self.store.write_step_files(run_id, st.n, screenshot=obs.screenshot,
                                               marks=[m.to_dict() for m in obs.marks])
        st.marked_write = _writer.submit(lambda: self.store.write_step_files(run_id, st.n, marked=obs.render()))
        seen = self.store.step_file(run_id, st.n, "screenshot_clean" if self.protocol.mode == "pixels"
                                    else "screenshot")
        self._sent[st.n] = self.protocol.image(obs)
        self._paths[st.n] = seen
        for k in [k for k in self._sent if k <= st.n - self.keep]:
            del self._sent[k]
        return seen

    def get(self, step: int) -> bytes | None:
        """Step `step`'s image as sent, when it is still kept."""
        return self._sent.get(step)

    def image(self, step: int) -> bytes:
        """Step `step`'s image as the model is sent it (read back from the store when no longer kept)."""
        if step in self._sent:
            return self._sent[step]
        png = self.store.read_file(self._paths.get(step), f"screenshot of step {step}")
        return self.protocol.image_of(png)

    @staticmethod
    def files(st: Step) -> dict:
        """The step's file paths, once the marked PNG is on disk (a failed write raises its StoreError)."""
        if st.marked_write is not None:
            write, st.marked_write = st.marked_write, None
            st.files.update(write.result())
        return st.files
