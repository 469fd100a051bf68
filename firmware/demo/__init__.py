"""Tables without players: the demo's tables and the photo table.

``scripted_table`` hands a game's tracker facts straight to the loop (with the stepped clock
and blank camera the tests use too); ``camera_table`` films a simulated game with the drawn
camera and lets the real ``DeviceLoop`` read it; ``photo_table`` feeds real photos to the
same loop. It may import everything below the commands (engine, hardware, vision, store,
table, web, device); the device never imports it.
"""
