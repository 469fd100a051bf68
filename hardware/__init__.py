"""LED pegboard (hole -> LED mapping, rendering, strip backends) and buttons; the board's
drilling template (``template``) and wiring diagram (``wiring_svg``, ``wiring.svg``)."""
