"""CLI command modules; each exposes `register(app)`."""
