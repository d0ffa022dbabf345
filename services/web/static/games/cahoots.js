// Cahoots (engines/cahoots/view.py): cards 0..47, suit = card >> 3, value =
// 4,5,5,6,6,7,7,8 by card & 7; identity cards I1..I4 (CH-1).
import { grid, trickEl, fold } from "../table-ui.js";
import { t, tp, gameTitle } from "../i18n.js";

export const TITLE = gameTitle("cahoots");
const SUITS = ["hearts", "spades", "clubs", "diamonds", "cups", "stars"];
const MARK = ["♥", "♠", "♣", "♦", "∪", "★"];
const VALUES = [4, 5, 5, 6, 6, 7, 7, 8];

// Suit names: our glossary's (Cahoots' rulebook is in English only).
const suitName = (s) => [t("ch.suit.hearts"), t("ch.suit.spades"), t("ch.suit.clubs"), t("ch.suit.diamonds"), t("ch.suit.cups"), t("ch.suit.stars")][s];
export const cardName = (c) => t("ch.card", { n: VALUES[c & 7], suit: suitName(c >> 3) });

function card(ctx, c, small) {
  return ctx.cardEl({ name: cardName(c), suit: SUITS[c >> 3], rank: String(VALUES[c & 7]), mark: MARK[c >> 3], small });
}

const suitList = (suits) => suits.map(suitName).join(", ");

/** A card of a hand as the replay viewer draws it. */
export const handCard = (ctx, c) => card(ctx, c, false);

/** The board of the replay and the live miniatures: mid-table, then the trick. */
export function board(v, info, ctx) {
  const { h } = ctx;
  const known = v.known_hands.flatMap((cards, s) => cards.length ? [h("p", {}, t("ch.known", { name: ctx.name(s) }) + " ", cards.map((c) => card(ctx, c, true)))] : []);
  return [...centre(v, info, ctx), ...known, trickEl(ctx, plays(v, info, ctx))];
}

// --- the table page's hooks (table.js places them) ---

export const handSize = (v, seat) => v.hand_sizes[seat] || 0;

/** What goes on a seat's plate: points, identity card and its suits, who
 * starts, and the cards it kept (back in its hand, known to all: CH-4, CH-9). */
export function seatInfo(v, seat, info, ctx) {
  const identity = t("ch.identity", { n: v.identities[seat] + 1, suits: suitList(v.identity_suits[seat]) });
  // On the plate by the suits' marks (a phone's side plate is 5 rem wide); said in words.
  const short = `I${v.identities[seat] + 1} ${v.identity_suits[seat].map((s) => MARK[s]).join("")}`;
  const bits = [tp("unit.points", v.scores[seat]), ctx ? ctx.h("span", { role: "img", "aria-label": identity, title: identity }, short) : identity];
  if (seat === v.start) bits.push(t("ch.starts_trick"));
  const known = v.known_hands[seat] || [];
  if (known.length && ctx) bits.push(ctx.h("span", { class: "known" }, ctx.h("span", { class: "known-label" }, t("ch.known_plate")), " ", known.map((c) => card(ctx, c, true))));
  return bits;
}

/** The cards in play, each by its seat, marked kept or killed. */
export function plays(v, info, ctx) {
  const chosen = new Map(v.choices.map(([seat, c, keep]) => [c, [seat, keep]]));
  return { label: t("ch.in_play"), empty: t("ch.no_card"), plays: v.table.map(([seat, c]) => {
    const choice = chosen.get(c);
    return { seat, cls: choice ? (choice[1] ? "kept" : "killed") : "", faces: [card(ctx, c)],
      note: choice ? t(choice[1] ? "ch.kept_by" : "ch.killed_by", { name: ctx.name(choice[0]) }) : "" };
  }) };
}

/** Mid-table: the trick and phase, the pool, the hands known; the last trick's scoring. */
export function centre(v, info, ctx) {
  const { h } = ctx;
  const out = [h("p", { class: "round" }, t("ch.trick_line", { trick: Math.min(v.trick, 11), phase: phaseText(v.phase) })
    + (v.reserve_size ? ` · ${t("ch.reserve", { cards: tp("unit.cards", v.reserve_size) })}` : ""))];
  if (v.pool.length) out.push(h("p", {}, t("ch.pool") + " ", v.pool.map((c) => card(ctx, c, true))));
  const last = v.last_trick;
  if (last) {
    // Every trick is scored: its line says who scored (the table behind it
    // opens on a click), so the hand stays on screen.
    const gains = last.points.flatMap((p, s) => (p ? [`${ctx.name(s)} +${p}`] : [])).join(", ") || t("common.none");
    const line = t("ch.scored_line", { trick: last.trick, suits: suitList(last.winning_suits) || t("common.none"), points: gains });
    out.push(fold(ctx, h("div", { class: "reveal" }, h("h3", {}, line),
      h("p", {}, t("ch.winning", { suits: suitList(last.winning_suits) || t("common.none") })),
      grid(null, [t("common.player"), t("ch.identity_suits"), t("ch.points")], last.points.map((p, s) => [ctx.name(s), suitList(v.identity_suits[s]), String(p)]))), { open: false }));
  }
  return out;
}

// What the page keeps from the events it has seen (table.js's ctx.memo):
// every trick's scoring (CH-9: public), for "Scores by trick".
export function track(memo, e) {
  memo.scored ??= [];
  if (e.type === "ch.trick_scored") memo.scored.push(e);
}

/** "Last trick" (the view's last scored trick, public: CH-9) and every trick's scores, one click each. */
export function recall(memo, info, ctx) {
  const { h } = ctx;
  const v = info.view;
  const items = [{ key: "last", label: tr("table.last_trick"), title: tr("table.last_trick"), body: () => {
    const last = v && v.last_trick;
    if (!last) return [h("p", {}, tr("table.no_last_trick"))];
    const n = v.scores.length;
    const kept = new Map(last.choices.map(([c, keep]) => [c, keep]));
    return [h("p", {}, tr("ch.scored_h", { trick: last.trick })),
      h("ol", { class: "last-trick", "aria-label": tr("table.last_trick") }, last.cards.map((c, i) => h("li", {},
        h("span", { class: "faces" }, card(ctx, c)), " ",
        h("span", {}, ctx.name((last.start + i) % n) + (kept.has(c) ? ` · ${tr(kept.get(c) ? "ch.was_kept" : "ch.was_killed")}` : ""))))),
      h("p", {}, tr("ch.winning", { suits: suitList(last.winning_suits) || tr("common.none") })),
      grid(null, [tr("common.player"), tr("ch.points")], last.points.map((p, s) => [ctx.name(s), String(p)]))];
  } }];
  const scored = memo.scored || [];
  if (scored.length) {
    items.push({ key: "scores", label: tr("ch.scores_by_trick"), title: tr("ch.scores_by_trick"), body: () =>
      grid(null, [tr("common.player"), ...scored.map((e) => tr("ch.trick_col", { n: e.trick }))],
        scored[0].points.map((_, s) => [ctx.name(s), ...scored.map((e) => String(e.points[s]))])) });
  }
  return items;
}

// In board(), `t` is the last trick: the glossary's t is reachable as tr.
const tr = t;

function phaseText(phase) {
  return { dealing: t("ch.phase.dealing"), play: t("ch.phase.play"), choose: t("ch.phase.choose"), scoring: t("ch.phase.scoring"),
    pick: t("ch.phase.pick"), ended: t("ch.phase.ended"), over: t("ch.phase.over") }[phase] || phase;
}

export function moves(v, info, ctx) {
  const items = v.hand.map((c) => ({ key: `c${c}`, label: cardName(c), face: card(ctx, c, true), cls: "card-move", match: (a) => a.type === "play" && a.card === c }));
  items.push({
    key: "choose", label: t("ch.keep_or_kill"),
    dialog: {
      title: t("ch.keep_or_kill"),
      intro: t("ch.keep_intro"),
      filter: (a) => a.type === "keep" || a.type === "kill",
      fields: [
        { label: t("common.card"), get: (a) => a.card, text: (x) => cardName(Number(x)) },
        { label: t("ch.keep_or_kill"), get: (a) => a.type, text: (x) => (x === "keep" ? t("ch.keep") : t("ch.kill")) },
      ],
    },
  });
  items.push({
    key: "pick", label: t("ch.pick"),
    dialog: {
      title: t("ch.pick"),
      intro: t("ch.pick_intro"),
      filter: (a) => a.type === "pick",
      fields: [{ label: t("common.card"), get: (a) => a.card, text: (x) => cardName(Number(x)) }],
    },
  });
  return items;
}

export function describe(e, ctx, info) {
  const n = ctx.name;
  switch (e.type) {
    case "ch.started": return t("ch.ev.started", { name: n(e.dealer) });
    case "ch.dealt": return t("ch.ev.dealt");
    case "ch.played": return t("ch.ev.played", { name: n(e.seat), card: cardName(e.card) });
    case "ch.chose": return t(e.keep ? "ch.ev.kept" : "ch.ev.killed", { name: n(e.seat), card: cardName(e.card) });
    case "ch.trick_scored":
      return [t("ch.ev.scored", { trick: e.trick, suits: suitList(e.winning_suits) || t("common.none") })
        + (e.reserve_card >= 0 ? t("ch.ev.reserve", { card: cardName(e.reserve_card) }) : "") + ".",
        ...e.points.map((p, s) => `${n(s)}: ${info && info.options && info.options.face_value_scoring ? tp("ch.to_pick", p) : tp("unit.points", p)}`)];
    case "ch.picked": return t("ch.ev.picked", { name: n(e.seat), card: cardName(e.card) });
    case "ch.game_ended": return t("common.game_over_scores", { scores: e.scores.map((s, i) => t("common.name_score", { name: n(i), score: s })).join(", ") });
    default: return null;
  }
}
