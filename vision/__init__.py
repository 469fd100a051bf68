"""Seeing the table, in rooms by job: ``recognise`` (pixels to cards), ``live`` (cameras,
changed regions, tracking, zones), ``drawn`` (card art, drawn tables and the camera model,
for tests and the demo), ``measure`` (labelled datasets and scores) and ``training``
(offline, its own requirements). ``tests/test_rooms.py`` holds what each may import."""
