"""The device program: event loop, event store, config, command line, phone page."""
