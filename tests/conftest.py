"""Test-wide settings.

Property tests (Hypothesis) draw the same examples on every run, so a landing
never fails on a case no earlier run met; to explore new cases, run with
``HYPOTHESIS_PROFILE=explore`` and keep any failure it finds as an ``@example``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
