"""The world engine (``engine.WorldEngine``): sequential STRIPS/ADL execution of a world's actions."""
