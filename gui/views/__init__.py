"""Qt views of the overlay; all state lives in ``hakam.gui.controllers``."""
