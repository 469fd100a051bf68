"""The recogniser: from one frame's pixels to the cards it shows, and nothing else.

Index candidates (``candidates``, ``screen``), the corner-index network (``classifier``,
weights in ``models/``), whole-card outlines (``whole_cards``), the reading of a frame
(``detection``), of a photo (``photo``), sharpening a soft frame (``focus``), taught decks
(``deck``), and the small things they share (``frames``, ``geometry``, ``imagefile``,
``draw``). It may import the engine (for ``Card``) and nothing else of ours: the device, the
benchmarks and the training scripts all call it, so it must not know about any of them.
"""
