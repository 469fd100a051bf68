"""One module per ``cribbage-board`` subcommand.

Each module defines ``register(subparsers)``, which adds its parser and sets
``handler`` to a function ``(args) -> int``. ``firmware.commands.cli`` finds them all, so
a new subcommand is a new file and nothing else changes. Modules import heavy
packages (OpenCV, numpy) inside their handlers, so ``cribbage-board score``
starts fast and works without them.
"""
