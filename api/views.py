"""Player API views (none yet)."""
