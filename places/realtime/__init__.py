"""Everything live: events to the sockets after commit (``broadcast``, ``sequencer``), the
sockets themselves (``consumers``, ``auth``), the database threads that serve them and the
bots' hot requests (``db_thread``), and the dealer's wake-up (``wake``).
"""
