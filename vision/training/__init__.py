"""Training-only code for the corner-index classifier (extra packages: requirements.txt)."""
