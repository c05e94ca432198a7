from games import available_games


def games(request):
    """The games, for the navigation bar on every page."""
    return {"nav_games": sorted(available_games().values(), key=lambda game: game.name)}
