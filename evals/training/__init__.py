"""Recipes that train the small models shipped under `models/` (see each module's docstring)."""
