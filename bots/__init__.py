"""AI players that speak only the wire protocol (PROTOCOL.md): a client
library (:mod:`bots.client`), sample strategies (:mod:`bots.strategies`) and a
command line (``python -m bots``).

Bots import the game package (``daifugo``: the rules, legal plays, tndhms's wire tables in
``daifugo.uecda_wire``), pure Python with no Django in it, and nothing of the server
(``tests/test_layers.py``).
"""
