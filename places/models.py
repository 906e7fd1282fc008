"""Models of places, players and games (none yet)."""
