"""The player API for bots and people (HTTP, JSON and XML)."""
