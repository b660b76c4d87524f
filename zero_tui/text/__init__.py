"""Text shared by every layer above the store: labels, time formatting, sanitising."""
