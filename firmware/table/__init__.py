"""The table flow: what the players did (cards seen, buttons, the phone page) turned into
engine events and words for the table.

``flow`` holds ``TableFlow`` and the inputs and outcomes it trades in; ``names`` the one rule
for player names. It may import the engine and ``vision.live`` (cards and zones), nothing of
the device, so the page and the tests drive it without a loop.
"""
