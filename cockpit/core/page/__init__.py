"""What the agent sees of a page: marks, the observation, overlay, masking, images, effects, matching."""
