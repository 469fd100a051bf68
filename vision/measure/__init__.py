"""Measuring the recogniser on labelled photos: the datasets and the ``vision eval`` scores.

``datasets`` reads the CONTRACT.md dataset format and its stable dev/test split;
``evaluate`` scores the recogniser on it. Only this room and the training read labels. It may
import the engine and ``vision.recognise``.
"""
