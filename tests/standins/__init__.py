"""Stand-ins for the outside interfaces, each built from the other side's own source.

Every module names the file and function it follows; ``docs/interfaces/`` lists the
facts the project relies on and which test holds each.
"""
