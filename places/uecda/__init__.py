"""UECda over TCP: tndhms's wire (:mod:`.wire`) and a match server (:mod:`.match`)."""
