"""zero-tui: browse, search, resume, read, export and copy Zero sessions."""

__version__ = "0.1.0"
