"""The drawn table: card faces, whole cribbage tables and a camera model, for tests and the demo.

Card art (``cardart``), scenes of a table played from a log (``scene``: its layout in
``scene_layout``, its card placement in ``scene_placement``, its drawing in
``scene_render``), the drawn camera a ``DeviceLoop`` reads like a real one
(``scene_camera``), the camera's blur, noise and
compression (``camera_model``), the measurements it is calibrated by against real frames
(``frame_stats``: edge width, noise, chroma, index contrast) and drawn decks for measuring
deck teaching (``deck_lab``).
The device never imports it. It may import the engine, ``vision.recognise`` and
``vision.live`` (a drawn table uses the real zones and sources).
"""
