"""The table flow: what the players did (cards seen, buttons, the phone page) turned into
engine events and words for the table.

``flow`` holds ``TableFlow``, the decisions (and re-exports the names others import from
it); ``inputs`` the inputs and outcomes it trades in; ``memory`` what the table has done that
the store does not hold, and its bookkeeping; ``procedure`` pure decisions on the game (a
misdeal, a starter, an adjustment, who calls muggins); ``announce`` what the table hears about
a stored or refused event; ``together`` the cards of one change judged together (take, count
or ask); ``alternatives`` the
game-aware reading of a card the game rules out (the recogniser's runners-up); ``names`` the
one rule for player names; ``words`` the table's words where the engine's are the log's (what comes
next, a refusal, the peg that reaches the game hole), shared by the flow, loop and page.
It may import the engine and ``vision.live`` (cards and zones), nothing of the device, so
the page and the tests drive it without a loop.
"""
