"""LED pegboard (hole -> LED mapping, rendering, strip backends) and buttons."""
