// Kabuki Tricks (engines/kabuki_tricks/view.py): cards 10*suit + number-1,
// suits green, purple, orange, blue; seat s's Joker is 40+s.
import { grid, lastTrickBody, trickEl, fold, trickInPlay } from "../table-ui.js";
import { t, tp, gameTitle } from "../i18n.js";

export const TITLE = gameTitle("kabuki-tricks");
const SUITS = ["green", "purple", "orange", "blue"];
const MARK = { green: "G▲", purple: "P◆", orange: "O●", blue: "B■" };

export function cardName(c) {
  if (c === null || c === undefined) return t("kt.a_card");
  if (c >= 40) return t("kt.joker");
  return t("kt.card", { n: (c % 10) + 1, suit: suitName(SUITS[Math.floor(c / 10)]) });
}

// Suit names as the rulebook of the language says them (Italian: Viola, ...).
const suitName = (s) => ({ green: t("kt.suit.green"), purple: t("kt.suit.purple"), orange: t("kt.suit.orange"), blue: t("kt.suit.blue") })[s] ?? s;

function card(ctx, c, small) {
  if (c === null || c === undefined) return ctx.cardEl({ name: t("common.face_down") });
  if (c >= 40) return ctx.cardEl({ name: t("kt.joker"), suit: "joker", rank: "J", mark: "★", small });
  const suit = SUITS[Math.floor(c / 10)];
  return ctx.cardEl({ name: cardName(c), suit, rank: String((c % 10) + 1), mark: MARK[suit], small });
}

/** A card of a hand as the replay viewer draws it. */
export const handCard = (ctx, c) => card(ctx, c, false);

// With 2 players, seat 2 is the dummy hand (KT-13).
export function seatName(seat, info) {
  return info && info.players === 2 && seat === 2 ? t("kt.dummy") : null;
}

const upper = (s) => s[0].toUpperCase() + s.slice(1);
const order = (o) => o.map((s) => upper(suitName(s))).join(" > ");
const highLow = (high) => (high ? t("kt.high") : t("kt.low"));

/** The board of the replay and the live miniatures: mid-table, then the trick. */
export function board(v, info, ctx) {
  return [...centre(v, info, ctx), trickEl(ctx, plays(v, info, ctx))];
}

// --- the table page's hooks (table.js places them) ---

export const seatCount = (v) => v.seats.length; // with 2 players the dummy is a seat (KT-13)
export const handSize = (v, seat) => (v.seats[seat] ? v.seats[seat].hand_size : 0);

/** What goes on a seat's plate: its score, tricks, Player card, the dealer. */
export function seatInfo(v, seat) {
  const s = v.seats[seat];
  if (!s) return [];
  const bits = [tp("unit.points", s.score), tp("unit.tricks", s.tricks)];
  if (s.actor) bits.push(t("kt.player_card_on", { actor: suitName(s.actor) }) + (s.prediction ? ` (${s.prediction})` : ""));
  if (seat === v.dealer) bits.push(t("kt.dealer"));
  return bits;
}

/** The trick on the table: the current one, or the won one kept until the next lead. */
export function plays(v, info, ctx) {
  const { kept, trick } = trickInPlay(v, info, ctx.memo);
  if (kept) return { winner: kept.winner, plays: withFaces(kept, ctx).plays };
  return { plays: trick.map(([seat, c]) => ({ seat, faces: [card(ctx, c)] })) };
}

/** Mid-table: the round, the Director's configuration, the round's reveal, the scores. */
export function centre(v, info, ctx) {
  const { h } = ctx;
  const memo = ctx.memo || {};
  const out = [h("p", { class: "round" }, t("kt.round_line", { round: v.round, rounds: v.rounds, dealer: ctx.name(v.dealer), trick: Math.min(v.trick_no, TRICKS) }))];
  out.push(h("div", { class: "director" }, h("p", {}, h("strong", {}, highLow(v.high)), " ", v.high ? t("kt.higher_win") : t("kt.lower_win")),
    h("ol", { class: "actors", "aria-label": t("kt.actors_label") }, v.order.map((suit, i) => {
      const placed = v.seats.filter((s) => s.actor === suit).map((s) => (s.prediction ? t("kt.predicts", { name: ctx.name(s.seat), n: s.prediction }) : ctx.name(s.seat)));
      return h("li", { class: `actor suit-${suit}` }, h("span", { class: "mark", "aria-hidden": "true" }, MARK[suit]),
        ` ${i + 1}. ${suitName(suit)}`, placed.length ? h("span", { class: "placed" }, ` · ${t("kt.player_card", { names: placed.join(", ") })}`) : null);
    }))));
  if (v.players === 2) out.push(h("p", {}, t("kt.dummy_line", { cards: tp("unit.cards", v.dummy_left), tricks: tp("unit.tricks", v.dummy_tricks) })));
  const ahead = Boolean(info) && memo.version > info.version;
  const shown = (!ahead && v.last_round) || (memo.roundOpen && memo.rounds[memo.rounds.length - 1]);
  if (shown) out.push(fold(ctx, reveal(shown, v, ctx)));
  if (v.history.length) {
    out.push(fold(ctx, h("div", { class: "scores" }, h("h3", {}, t("kt.points_per_round")),
      grid(null, [t("common.player"), ...v.history.map((_, i) => t("common.round_n", { n: i + 1 })), t("common.total")],
        v.seats.map((s) => [ctx.name(s.seat), ...v.history.map((r) => String(r[s.seat])), String(s.score)])))));
  }
  return out;
}

function reveal(r, v, ctx) {
  const { h } = ctx;
  return h("div", { class: "reveal" }, h("h3", {}, t("kt.reveal_h", { round: r.round })),
    grid(null, [t("common.player"), t("kt.col.player_card"), t("kt.col.tricks"), t("kt.col.prediction"), t("kt.col.suit"), t("kt.joker"), t("kt.col.other"), t("common.total")],
      r.lines.map((l, s) => [ctx.name(s), r.actors[s] ? t("kt.on_actor", { n: r.predictions[s] ?? "?", actor: suitName(r.actors[s]) }) : t("common.none"),
        String(l.tricks), String(l.prediction), String(l.suit), String(l.joker), String((l.failed || 0) + (l.toxic || 0)), String(l.total)])),
    h("p", {}, t("kt.final_cards") + " ", r.finals.map((c, s) => h("span", { class: "final" }, `${ctx.name(s)} `, card(ctx, c, true), " "))));
}

// What the page keeps from the events it has seen (table.js's ctx.memo).
const TRICKS = 7; // 7 cards a hand, 7 tricks a round (2 players too: KT-13)

export function track(memo, e) {
  memo.rounds ??= [];
  memo.current ??= [];
  switch (e.type) {
    case "kt.dealt": memo.current = []; memo.round = e.round; memo.trickNo = 0; break;
    case "kt.played": case "kt.joker_played": {
      if (!memo.current.length) { if (memo.last) memo.last.open = false; memo.roundOpen = false; }
      memo.current.push([e.seat, e.type === "kt.played" ? e.card : 40 + e.seat]);
      break;
    }
    case "kt.trick_won": {
      memo.trickNo = (memo.trickNo || 0) + 1;
      const plays = memo.current.map(([seat, c]) => ({ seat, card: c }));
      memo.last = { trick: memo.trickNo, winner: e.seat, open: true, cards: plays };
      memo.current = [];
      break;
    }
    case "kt.round_ended": memo.rounds.push(e); memo.roundOpen = true; break;
    default: break;
  }
}

// A kept trick's plays with their faces, drawn in this render's ctx.
function withFaces(last, ctx) {
  return last && { ...last, plays: last.cards.map((p) => ({ seat: p.seat, card: p.card, faces: [card(ctx, p.card)] })) };
}

/** "Last trick" and each past round's reveal, one click each (table.js). */
export function recall(memo, info, ctx) {
  const last = withFaces(memo.last, ctx);
  const items = [{ key: "last", label: t("table.last_trick"), title: t("table.last_trick"),
    body: () => lastTrickBody(ctx, last, (p) => p.card >= 40 ? [card(ctx, p.card)] : [card(ctx, null)]) }];
  for (const r of memo.rounds || []) {
    items.push({ key: `round${r.round}`, label: t("kt.round_result", { round: r.round }), title: t("kt.reveal_h", { round: r.round }),
      body: () => reveal(r, info.view, ctx) });
  }
  return items;
}

const ADJUST = (a) => (a.adjust == null ? "none" : a.adjust.flip ? "flip" : `swap${a.adjust.swap}`);

export function moves(v, info, ctx) {
  const items = [];
  for (const c of v.hand) {
    if (c >= 40) {
      items.push({
        key: "joker", label: t("kt.joker"), face: card(ctx, c, true), cls: "card-move",
        dialog: {
          title: t("kt.joker_title"),
          intro: t("kt.joker_intro"),
          filter: (a) => a.type === "joker",
          fields: [
            { label: t("kt.f.actor"), get: (a) => a.actor ?? "none", text: (x) => (x === "none" ? t("kt.no_free_actor") : upper(suitName(x))) },
            { label: t("kt.col.prediction"), get: (a) => a.prediction ?? "none", text: (x) => (x === "none" ? t("kt.no_prediction") : tp("unit.tricks", Number(x))) },
            {
              label: t("kt.f.adjust"), get: ADJUST,
              text: (x, view) => x === "none" ? t("kt.leave") : x === "flip" ? t("kt.flip_to", { to: highLow(!view.high) })
                : t("kt.swap", { a: Number(x.slice(4)) + 1, b: Number(x.slice(4)) + 2, first: suitName(view.order[Number(x.slice(4))]), second: suitName(view.order[Number(x.slice(4)) + 1]) }),
            },
          ],
        },
      });
    } else {
      items.push({ key: `c${c}`, label: cardName(c), face: card(ctx, c, true), cls: "card-move", match: (a) => a.type === "play" && a.card === c });
    }
  }
  items.push({ key: "deal", label: t("kt.deal"), match: (a) => a.type === "deal" });
  items.push({
    key: "direct", label: t("kt.director"),
    dialog: {
      title: t("kt.director"),
      intro: t("kt.director_intro"),
      filter: (a) => a.type === "direct",
      fields: [
        { label: t("kt.f.high_low"), get: (a) => (a.high ? "high" : "low"), text: (x, view) => highLow(x === "high") + ((x === "high") === view.high ? " " + t("kt.as_is") : "") },
        { label: t("kt.f.order"), get: (a) => a.order.join(","), text: (x, view) => order(x.split(",")) + (x === view.order.join(",") ? " " + t("kt.as_is") : "") },
      ],
    },
  });
  return items;
}

/** An action as the API takes it, in words (the replay's analysis names
 * the move played and the best one so). */
export function actionName(a) {
  switch (a.type) {
    case "play": return cardName(a.card);
    case "deal": return t("kt.deal");
    case "direct": return `${t("kt.director")}: ${highLow(a.high)}, ${order(a.order)}`;
    case "joker": {
      let text = t("kt.joker");
      if (a.actor) text += t(a.prediction ? "kt.ev.joker_placed_n" : "kt.ev.joker_placed", { actor: suitName(a.actor), n: a.prediction });
      if (a.adjust && a.adjust.flip) text += t("kt.ev.joker_flip");
      if (a.adjust && a.adjust.swap !== undefined && a.adjust.swap !== null) text += t("kt.ev.joker_swap", { a: a.adjust.swap + 1, b: a.adjust.swap + 2 });
      return text;
    }
  }
  return null;
}

export function describe(e, ctx) {
  const n = ctx.name;
  switch (e.type) {
    case "kt.started": return t("kt.ev.started", { dealer: n(e.first_dealer), high: highLow(e.high), order: order(e.order) });
    case "kt.dealt": return t("kt.ev.dealt", { dealer: n(e.dealer), round: e.round });
    case "kt.directed": return t("kt.ev.directed", { name: n(e.seat), high: highLow(e.high), order: order(e.order) });
    case "kt.played": return e.card === null ? t("kt.ev.played_hidden", { name: cap(n(e.seat)) }) : t("kt.ev.played", { name: cap(n(e.seat)), card: cardName(e.card) });
    case "kt.joker_played": {
      let text = t("kt.ev.joker", { name: n(e.seat) });
      if (e.actor) text += t(e.prediction ? "kt.ev.joker_placed_n" : "kt.ev.joker_placed", { actor: suitName(e.actor), n: e.prediction });
      if (e.adjust && e.adjust.flip) text += t("kt.ev.joker_flip");
      if (e.adjust && e.adjust.swap !== undefined && e.adjust.swap !== null) text += t("kt.ev.joker_swap", { a: e.adjust.swap + 1, b: e.adjust.swap + 2 });
      return text + ".";
    }
    case "kt.trick_won": return t("kt.ev.trick_won", { name: cap(n(e.seat)) });
    case "kt.round_ended":
      return [t("kt.ev.round_ended", { round: e.round }), ...e.lines.map((l, s) =>
        t("kt.ev.line", { name: n(s), tricks: l.tricks, prediction: l.prediction, suit: l.suit, joker: l.joker, total: tp("unit.points", l.total),
          placed: e.predictions[s] ? ` (${t("kt.on_actor", { n: e.predictions[s], actor: suitName(e.actors[s]) })})` : "",
          penalties: (l.failed ? ", " + t("kt.ev.failed", { n: l.failed }) : "") + (l.toxic ? ", " + t("kt.ev.toxic", { n: l.toxic }) : "") }))];
    case "kt.game_ended": return t("common.game_over_scores", { scores: e.scores.map((s, i) => t("common.name_score", { name: n(i), score: s })).join(", ") });
    default: return null;
  }
}

// Only "the dummy" starts a sentence in lower case; people's names stay as they wrote them.
const cap = (s) => (s === t("kt.dummy") ? upper(s) : s);
