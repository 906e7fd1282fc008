"""Admin registrations for places (none yet)."""
