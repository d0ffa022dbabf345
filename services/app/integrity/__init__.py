"""Collusion screening (docs/fairness.md, "Collusion screening").

Duplicate removes deal luck, not collusion: two accounts that share tables
can still hand each other points. This package measures, for every pair of
accounts that shared enough tables, how often one's choices fed the other,
against what the rest of the population did in the same kind of position.

- `feeding`: per game, the positions where a seat could feed another and
  whether it did (pure: engine states and legal actions only);
- `replay`: a stored log back into moves (which seat did what, at which
  version);
- `screening`: the statistics, the threshold and the report;
- `reading`: the use case over the `FinishedGames` port (no SQL here)."""
