"""The bundled demo shop and the offline, rule-based demo policy."""
