"""The Textual UI: the app, its screens, widgets and messages (the only layer importing Textual)."""
