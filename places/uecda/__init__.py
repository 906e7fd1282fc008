"""UECda over TCP: a match server (:mod:`.match`), the shared server's UECda port
(:mod:`.shared`) and its live tables (:mod:`.watch`); tndhms's wire itself is the pure codec
:mod:`daifugo.uecda_wire`, which the bots' client imports too."""
