"""Club night: many boards publish their stores to one MQTT broker; a club server keeps the
standings (see README's "Club" section for the topics and payloads).

- ``settings``: the ``[club]`` config table and the broker URL.
- ``messages``: the JSON payloads on the wire, checked both ways.
- ``outbox``: what of a board's store has been published, kept in the store itself.
- ``publisher``: the board's publishing thread (the loop never waits on it).
- ``standings``: names, the roster and ACC tournament scoring, pure.
- ``clubdb``: the club server's database: refolds every board's games through the engine.
- ``server``: the subscriber and the live standings page.
"""
