"""daihinmin: a server where people and AI bots play Daihinmin (大貧民)."""
