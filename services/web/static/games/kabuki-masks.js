// Kabuki, the mask memory game (engines/kabuki_masks/view.py): 50 cards, id
// 0..49, the mask is id // 5 (10 masks, 5 copies); 4 actor piles. Only each
// pile's top is shown (KM-7): the page shows nothing the view does not.
// Names follow the Spanish rulebook in Spanish (Máscara, fichas de PV, ¡Alto!).
import { t, tp, gameTitle } from "../i18n.js";
import { fold } from "../table-ui.js";

export const TITLE = gameTitle("kabuki-masks");
const LETTERS = "ABCDEFGHIJ";
const SYMBOLS = "☀☾★♠♥♦♣✿☂⚑";

export const maskOf = (c) => Math.floor(c / 5);
export function cardName(c) {
  return c === null || c === undefined ? t("km.covered") : t("km.mask", { letter: LETTERS[maskOf(c)] });
}

function card(ctx, c, small) {
  if (c === null || c === undefined) return ctx.cardEl({ name: t("km.covered") });
  const m = maskOf(c);
  return ctx.cardEl({ name: cardName(c), suit: `m${m}`, rank: LETTERS[m], mark: SYMBOLS[m], small });
}

/** A card of a hand as the replay viewer draws it. */
export const handCard = (ctx, c) => card(ctx, c, false);

export function scoreText(s) { return tp("km.tokens", s); }

/** The board of the replay and the live miniatures. */
export const board = (v, info, ctx) => centre(v, info, ctx);

// --- the table page's hooks (table.js places them) ---

/** What goes on a seat's plate: tokens, banked, who places now. */
export function seatInfo(v, seat) {
  const bits = [tp("km.tokens", v.tokens[seat])];
  if (v.banked[seat]) bits.push(t("km.banked", { n: v.banked[seat] }));
  if (v.placer === seat) bits.push(t("km.places_now"));
  return bits;
}

/** No trick: the piles are mid-table. */
export const plays = () => ({ none: true, plays: [] });

/** Mid-table: the revealed card, the four piles (a pile that turns over flips: data-flip), the latest placement. */
export function centre(v, info, ctx) {
  const { h } = ctx;
  const out = [h("p", { class: "round" }, t("km.round_line", { round: v.round, rounds: v.rounds, cards: tp("unit.cards", v.deck_count), window: (v.stop_window_ms / 1000).toFixed(1) }))];
  if (v.revealed !== null && v.revealed !== undefined && v.placer !== null) {
    out.push(h("div", { class: "revealed" }, h("p", {}, t("km.places", { name: ctx.name(v.placer) })), card(ctx, v.revealed)));
  }
  out.push(h("ol", { class: "piles", "aria-label": t("km.piles") }, v.tops.map((top, i) => h("li", { class: "pile" },
    h("span", { class: "pile-name" }, t("km.pile", { n: i + 1 })),
    h("span", { class: "flip", "data-flip": `pile${i}`, "data-face": `${top}:${v.pile_sizes[i]}` },
      top === null && v.pile_sizes[i] === 0 ? h("span", { class: "card actor", role: "img", "aria-label": t("km.actor", { n: i + 1 }) }, h("span", { class: "rank", "aria-hidden": "true" }, `A${i + 1}`)) : card(ctx, top)),
    h("span", { class: "pile-size" }, tp("unit.cards", v.pile_sizes[i]))))));
  const l = v.latest;
  if (l) {
    out.push(h("p", { class: "latest" }, t("km.latest", { n: l.placement, card: cardName(l.card), name: ctx.name(l.seat), pile: l.pile + 1 }),
      l.called ? " " + t("km.was_called") : "", " ", h("span", { class: "stop-window", "aria-live": "off" })));
  }
  if (v.over && v.piles) {
    out.push(fold(ctx, h("div", { class: "reveal" }, h("h3", {}, t("km.revealed_h")),
      v.piles.map((p, i) => h("p", {}, t("km.pile", { n: i + 1 }) + ": ", p.map((c) => card(ctx, c, true)))))));
  }
  return out;
}

export function moves(v, info, ctx) {
  const { h } = ctx;
  const items = [0, 1, 2, 3].map((i) => ({ key: `place${i}`, label: t("km.place_on", { n: i + 1 }), face: t("km.pile", { n: i + 1 }), match: (a) => a.type === "place" && a.pile === i }));
  const number = v.can_stop ?? (v.latest ? v.latest.placement : null);
  items.push({
    key: "stop", label: t("km.stop"), cls: "stop",
    face: [h("span", { class: "stop-word" }, t("km.stop")), h("span", { class: "stop-number" }, number === null ? "" : `#${number}`), h("span", { class: "stop-window" })],
    match: (a) => a.type === "stop",
  });
  return items;
}

// The stop window (KM-3, KM-5a) counts down by the server's clock.
export function tick(root, info, ctx) {
  const v = info.view;
  if (!v || v.over) return;
  let text = "";
  const l = v.latest;
  if (l && !l.called) {
    const end = l.placed_at_ms + v.stop_window_ms;
    const left = end - ctx.now();
    text = left > 0 ? t("km.window", { s: (left / 1000).toFixed(1) }) : v.deck_count === 0 ? t("km.window_closed") : t("km.until_next");
  }
  for (const el of root.querySelectorAll(".stop-window")) if (el.textContent !== text) el.textContent = text;
}

export function describe(e, ctx) {
  const n = ctx.name;
  switch (e.type) {
    case "km.started": return t("km.ev.started", { players: e.players, window: (e.stop_window_ms / 1000).toFixed(1) });
    case "km.round_started": return t("km.ev.round_started", { round: e.round, tokens: tp("km.tokens", e.tokens), name: n(e.first_seat) });
    case "km.revealed": return t("km.ev.revealed", { name: n(e.seat), card: cardName(e.card) });
    case "km.placed": return t("km.ev.placed", { name: n(e.seat), card: cardName(e.card), pile: e.pile + 1, n: e.placement });
    case "km.stopped": {
      const head = t("km.ev.stopped", { name: n(e.caller), n: e.placement, pile: e.pile + 1, cards: e.cards.length ? ": " + e.cards.map(cardName).join(", ") : "" });
      if (e.matches) return `${head}: ${tp("km.matches", e.matches)}, ${t("km.ev.moved", { tokens: tp("km.tokens", e.moved), from: n(e.placer), to: n(e.caller) })}`;
      return `${head}: ${t("km.ev.no_match", { name: n(e.caller), tokens: tp("km.tokens", e.returned) })}`;
    }
    case "km.round_ended":
      return [t("km.ev.round_ended", { round: e.round, why: e.reason === "last_token" ? t("km.ev.last_token", { name: n(e.ended_by) }) : t("km.ev.last_card", { name: n(e.ended_by) }) }),
        ...e.tokens.map((k, s) => `${n(s)}: ${k}`)];
    case "km.game_ended": return t("common.game_over_scores", { scores: e.scores.map((s, i) => t("common.name_score", { name: n(i), score: s })).join(", ") });
    default: return null;
  }
}
