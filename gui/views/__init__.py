"""Qt views of the overlay; all state lives in ``gui.controllers``."""
