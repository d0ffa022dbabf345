"""arq workers: scheduled tournament starts, turn deadlines, tournament
results, the ratings projection, and calls to bot agents."""
