"""Bundled domains written in the chronoplan language (data only)."""
