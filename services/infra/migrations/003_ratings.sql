-- Ratings: a projection of the event log (hm.game_finished of ranked games),
-- rebuilt exactly by `hanamichi ratings rebuild`.
CREATE TABLE projections (
    name      text PRIMARY KEY,
    position  bigint NOT NULL DEFAULT 0        -- the last global position applied
);

CREATE TABLE ratings (
    game      text NOT NULL,
    rated_id  text NOT NULL,                   -- a player id, or 'bot:<name>' for a house bot
    kind      text NOT NULL,                   -- 'human', 'agent', 'bot'
    name      text NOT NULL,
    mu        double precision NOT NULL,
    sigma     double precision NOT NULL,
    games     int NOT NULL,
    PRIMARY KEY (game, rated_id)
);
CREATE INDEX ratings_board ON ratings (game, kind, (mu - 3 * sigma) DESC);

CREATE TABLE rating_changes (
    position   bigint NOT NULL,                 -- the hm.game_finished event's global position
    game       text NOT NULL,
    game_id    text NOT NULL,
    rated_id   text NOT NULL,
    place      int NOT NULL,
    mu_before  double precision NOT NULL,
    sigma_before double precision NOT NULL,
    mu_after   double precision NOT NULL,
    sigma_after double precision NOT NULL,
    PRIMARY KEY (position, rated_id)
);
CREATE INDEX rating_changes_rated ON rating_changes (rated_id, game, position);
