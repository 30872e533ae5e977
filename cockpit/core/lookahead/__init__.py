"""Looking before acting: the world model's preview and WebDreamer-style planning."""
