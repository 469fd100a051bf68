"""LED strip backends; open them with ``hardware.strip.open_strip(name, layout)``.

Each module imports its hardware library inside the backend, never at import
time, so listing or testing them works on any machine.
"""
