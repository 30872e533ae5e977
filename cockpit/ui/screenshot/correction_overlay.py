"""Corrections of the marking drawn over one screenshot pane (see :mod:`.view` and :mod:`.corrector`).

Two kinds: spurious marks (a box on nothing), whose boxes and labels turn dashed and grey, and
missing marks a human added, drawn as green dashed boxes with their own labels. The view owns
the marks; this part only restyles their boxes and adds the human-added ones to the marks layer.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtGui import QColor, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QGraphicsScene

from cockpit.ui.screenshot.marks import BOX_COLOR, EXTRA_COLOR, FLAG_COLOR, Z_BOX, Z_LABEL, MarkLabel, make_pen

Box = tuple[int, int, int, int]  # x, y, w, h in image pixels


class CorrectionOverlay:
    """The spurious flags and the human-added boxes of a ScreenshotView.

    `label_pixmap(text, bg)` draws a label as the view draws its marks' labels.
    """

    def __init__(self, scene: QGraphicsScene, label_pixmap: Callable[[str, QColor], QPixmap]):
        self._scene = scene
        self._label_pixmap = label_pixmap
        self._pen_box = make_pen(BOX_COLOR, 2)
        self._pen_flag = make_pen(FLAG_COLOR, 1.5, dashed=True)
        self._pen_extra = make_pen(EXTRA_COLOR, 2, dashed=True)
        self.forget()

    def forget(self) -> None:
        """No flags and no added boxes (the scene was cleared with its items, or a new screenshot came)."""
        self._flagged: set[int] = set()
        self._extra_items: list[QGraphicsRectItem] = []
        self._extra_labels: list[tuple[MarkLabel, Box]] = []

    def set_flagged(self, spurious: set[int], by_id: dict[int, int], boxes: list[QGraphicsRectItem],
                    labels: list[MarkLabel]) -> None:
        """Draw the boxes in `spurious` (mark ids) dashed and grey; the others normally.

        `by_id` maps a mark id to its index in the view's `boxes` and `labels`."""
        new = set(spurious or ())
        for mid in self._flagged ^ new:
            i = by_id.get(mid)
            if i is None:
                continue
            if mid in new:
                boxes[i].setPen(self._pen_flag)
                lab = labels[i]
                lab.item.setPixmap(self._label_pixmap(lab.text, FLAG_COLOR))
            else:
                boxes[i].setPen(self._pen_box)
                lab = labels[i]
                lab.item.setPixmap(self._label_pixmap(lab.text, BOX_COLOR))
        self._flagged = {mid for mid in new if mid in by_id}

    def flagged(self) -> set[int]:
        return set(self._flagged)

    def set_extra_boxes(self, boxes: list[tuple[Box, str]], layer: QGraphicsItem | None) -> None:
        """Draw human-added marks in the marks `layer` (none without a screenshot):
        ``[((x, y, w, h), label), ...]``, green and dashed. The caller lays the labels out."""
        for item in self._extra_items:
            self._scene.removeItem(item)
        for lab, _ in self._extra_labels:
            self._scene.removeItem(lab.item)
        self._extra_items, self._extra_labels = [], []
        if layer is None:
            return
        for bbox, text in boxes or ():
            x, y, w, h = (int(v) for v in bbox)
            box = QGraphicsRectItem(x, y, w, h, layer)
            box.setPen(self._pen_extra)
            box.setZValue(Z_BOX)
            self._extra_items.append(box)
            lab = MarkLabel(str(text), self._label_pixmap(str(text), EXTRA_COLOR), layer)
            lab.item.setZValue(Z_LABEL)
            self._extra_labels.append((lab, (x, y, w, h)))

    def extra_labels(self) -> list[tuple[MarkLabel, Box]]:
        """The added boxes' labels with their boxes, for laying the labels out."""
        return list(self._extra_labels)

    def extra_box_count(self) -> int:
        return len(self._extra_items)
