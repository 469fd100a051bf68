"""The live table: cameras, what moved, which cards came and went, and where they lie.

Camera sources (``sources``), the stream reader that reads only changed regions
(``motion``) and an unsure reading over several frames (``frames``), the tracker that turns
readings into laid and removed cards (``tracker``),
those wired as ``cribbage-board run`` wires them, for the demo and the benchmarks too
(``reading``), the table's zones (``zones``), whether a mounted camera sees cards big enough
(``camera_check``), the lens's focus as the players are told it (``focus_watch``) and a
motorised lens focused for the table (``lens``). It may
import the engine and ``vision.recognise``; never the drawn table, the measuring or firmware.
"""
