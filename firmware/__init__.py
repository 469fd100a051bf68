"""The device program, in rooms by job: ``store`` (what is kept on the card), ``table`` (the
table flow), ``web`` (the phone page), ``club`` (club night over MQTT), ``device`` (the loop,
its config, voice and systemd), ``demo`` (tables without players), ``doctor`` (checks and
walks) and ``commands`` (the ``cribbage-board`` console script). ``tests/test_rooms.py``
holds what each may import."""

import logging

# Silent until a command sets its log up (firmware.device.logs.setup): the demo and the tests
# drive the loop without its lines, as before it logged.
logging.getLogger("firmware").addHandler(logging.NullHandler())
