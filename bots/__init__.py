"""AI players that speak only the wire protocol (PROTOCOL.md): a client
library (:mod:`bots.client`), sample strategies (:mod:`bots.strategies`) and a
command line (``python -m bots``).

Bots may use the game layer: the engine's legal-play listing (``places.engine``) and
the wire codecs (``places.wire``, tndhms's tables in ``places.wire.uecda``), pure Python
with no Django in it; nothing else of the server (``tests/test_layers.py``).
"""
