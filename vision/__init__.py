"""Camera sources, card detection and recognition, table zones, frame-to-event tracking."""
