"""The documented formats the client checks too (the game records' JSON Schemas): no
Django, so that the installed client (pyproject.toml) ships them."""
