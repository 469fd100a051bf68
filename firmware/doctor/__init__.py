"""The doctor: checks a board before it starts (``checks``) and walks a person through its
LEDs, buttons and camera (``walk``).

It may import the engine, vision, hardware, ``firmware.device`` (the config it checks) and
``firmware.store`` (the store it checks, so a fault there is said in the board's own words);
only ``cribbage-board doctor`` imports it.
"""
