"""Screenshots as a request carries them: detail, format and width set from the model config."""
from __future__ import annotations

import copy
import logging

from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.core.page import images

log = logging.getLogger(__name__)


def prepare_images(messages: list[dict], config: ModelConfig) -> list[dict]:
    """A copy of ``messages`` with every image part set to ``config.image_detail``.

    Base64 PNG and JPEG data URLs are sent as ``config.image_format`` (see
    :mod:`cockpit.core.page.images`), downscaled first (aspect kept) when wider than
    ``config.image_max_width``. An image already in that format and narrow
    enough keeps its bytes. Other images (http URLs, undecodable placeholders)
    keep their URL. The input is not changed.
    """
    out = copy.deepcopy(messages)
    for msg in out:
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    _prepare_part(part, config)
    return out


def _prepare_part(part: dict, config: ModelConfig) -> None:
    image = part.get("image_url")
    if isinstance(image, str):
        image = {"url": image}
    image = dict(image or {})
    image["detail"] = config.image_detail
    url = image.get("url")
    data = images.from_data_url(url) if isinstance(url, str) else None
    if data is not None:
        try:
            sent = images.for_model(data, config.image_format, config.image_max_width)
        except images.ImageError:
            log.debug("image part is not a decodable image; sent unchanged")
        else:
            if sent is not data:
                image["url"] = images.data_url(sent)
    part["image_url"] = image
