"""The WebVoyager agent: loop, events, run control and the approval gate."""
