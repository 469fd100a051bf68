"""Training the recogniser's networks, offline and with extra packages (requirements.txt).

The corner-index CNN (``train``), the index screen (``screen``), and the patches they learn
from: real labelled photos (``harvest``), synthetic indices (``synth``), drawn decks
(``drawn``, ``facedecks``) and their degradations (``augment``). It may import the engine and
every other vision room (it draws tables and reads datasets); the device never imports it.
"""
