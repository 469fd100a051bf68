"""The doctor: checks a board before it starts (``checks``) and walks a person through its
LEDs, buttons and camera (``walk``).

It may import the engine, vision, hardware and ``firmware.device`` (the config it checks);
only ``cribbage-board doctor`` imports it.
"""
