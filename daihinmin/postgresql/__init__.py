"""Django's PostgreSQL backend, lending no connection the server has closed (``base``)."""
