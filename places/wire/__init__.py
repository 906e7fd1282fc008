"""The 2011 protocol's bytes (PROTOCOL.md): the rows and events, compact JSON, Rails 3 XML,
as the server writes them. tndhms's tables of the UECda port are the game package's
(:mod:`daifugo.uecda_wire`): the client speaks them too.

Pure Python, no Django: what the server writes on the wire is built here once,
in wire order, and written as text once.
"""
