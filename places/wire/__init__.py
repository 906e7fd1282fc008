"""The protocol's bytes (PROTOCOL.md): the 2011 rows and events, compact JSON, Rails 3 XML;
and tndhms's tables of the UECda port (:mod:`.uecda`).

Pure Python, no Django: what the server writes on the wire is built here once,
in wire order, and written as text once.
"""
