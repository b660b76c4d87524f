"""The picker's data: its rows, scopes, remembered first screen and ranking (no Textual import)."""
