"""The device program: event loop, event store, config, command line, phone page."""

import logging

# Silent until a command sets its log up (firmware.logs.setup): the demo and the tests
# drive the loop without its lines, as before it logged.
logging.getLogger("firmware").addHandler(logging.NullHandler())
