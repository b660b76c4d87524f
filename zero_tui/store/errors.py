"""The store's one error type."""


class StoreError(Exception):
    """A store operation failed; the message is one line meant for the user."""


class SessionBusyError(StoreError):
    """Another process (often the Go agent) held the session lock past the timeout."""
