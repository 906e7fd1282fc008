"""Places: where games of Daihinmin are played (models, pages, game flow)."""
