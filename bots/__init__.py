"""AI players that speak only the wire protocol (PROTOCOL.md): a client
library (:mod:`bots.client`), sample strategies (:mod:`bots.strategies`) and a
command line (``python -m bots``).

Bots may use the engine's legal-play listing (``places.engine``), a pure
Python library with no Django in it; nothing else of the server.
"""
