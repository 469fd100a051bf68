"""The phone page: a live mirror of the board, every score in words, and the controls.

``hub`` is the thread-safe meeting point of the device loop and the web
thread, ``snapshot`` turns the loop's game into the page's JSON, ``inputs``
checks what a phone asks for and turns it into the same table inputs the
buttons and the camera produce, ``server`` is the Starlette app and the
uvicorn thread, ``address`` decides which addresses and names count as the
local network, ``settings`` keeps the players and rules chosen on the phone
across restarts, ``camera_eye`` makes the camera's view of the table off the loop's thread,
``eye_picture`` draws it and ``eye_view`` holds the values both read (the maker loads the
drawing; the drawing never imports the maker). Only ``server`` imports the web framework, so
the loop and the config use the rest without it.
"""
