"""The commands of ``chronoplan`` (the top layer): one module per subcommand with ``configure(parser)`` and
``run(args) -> int``, and their shared helpers (``common``, ``output``); ``chronoplan.cli`` dispatches to them."""
