"""arq workers: scheduled tournament starts, turn deadlines, tournament
results, the ratings projection, and (later) calls to bot agents."""
