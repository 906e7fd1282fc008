"""What the server reads (selectors): nothing here changes a place.

Pages, the player API, the sockets, the staff endpoints, the admin and the
commands all read through these functions; writes are ``places.services``'.
Each function reads the place's row once, so that what it returns agrees with
itself: the engine state and the event number come from the same row.
"""
