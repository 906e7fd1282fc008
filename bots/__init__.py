"""AI players (bots) that connect to the server over the wire protocol (none yet)."""
