"""How the pages show what ``places.reads`` returns: card labels and faces, colours,
rank names, chart geometry, the words of the pages' scripts. No database here.
"""
