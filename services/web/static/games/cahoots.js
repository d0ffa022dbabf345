// Cahoots (engines/cahoots/view.py): cards 0..47, suit = card >> 3, value =
// 4,5,5,6,6,7,7,8 by card & 7; identity cards I1..I4 (CH-1).
import { grid } from "../table-ui.js";

export const TITLE = "Cahoots";
const SUITS = ["hearts", "spades", "clubs", "diamonds", "cups", "stars"];
const MARK = ["♥", "♠", "♣", "♦", "∪", "★"];
const VALUES = [4, 5, 5, 6, 6, 7, 7, 8];

export const cardName = (c) => `${VALUES[c & 7]} of ${SUITS[c >> 3]}`;

function card(ctx, c, small) {
  return ctx.cardEl({ name: cardName(c), suit: SUITS[c >> 3], rank: String(VALUES[c & 7]), mark: MARK[c >> 3], small });
}

const suitList = (suits) => suits.map((s) => SUITS[s]).join(", ");

export function seatLine(v, seat) {
  const bits = [`${v.scores[seat]} points`, `${v.hand_sizes[seat]} cards`,
    `identity I${v.identities[seat] + 1} (${suitList(v.identity_suits[seat])})`];
  if (seat === v.start) bits.push("starts the trick");
  return bits.join(" · ");
}

export function board(v, info, ctx) {
  const { h } = ctx;
  const chosen = new Map(v.choices.map(([seat, c, keep]) => [c, [seat, keep]]));
  const out = [h("p", { class: "round" }, `Trick ${Math.min(v.trick, 11)} of 11 · ${phaseText(v.phase)}${v.reserve_size ? ` · reserve: ${v.reserve_size} cards` : ""}`)];
  out.push(h("div", { class: "trick", role: "group", "aria-label": "Cards in play" },
    v.table.length ? v.table.map(([seat, c]) => {
      const choice = chosen.get(c);
      return h("figure", { class: choice ? (choice[1] ? "kept" : "killed") : "" }, card(ctx, c),
        h("figcaption", {}, ctx.name(seat), choice ? ` · ${choice[1] ? "kept" : "killed"} by ${ctx.name(choice[0])}` : ""));
    }) : h("p", { class: "hint" }, "No card in play yet.")));
  if (v.pool.length) out.push(h("p", {}, "Killed cards to pick: ", v.pool.map((c) => card(ctx, c, true))));
  const known = v.known_hands.map((cards, s) => (cards.length ? h("p", {}, `${ctx.name(s)} kept, in hand: `, cards.map((c) => card(ctx, c, true))) : null));
  out.push(...known);
  if (v.last_trick) {
    const t = v.last_trick;
    out.push(h("div", { class: "reveal" }, h("h3", {}, `Trick ${t.trick} scored`),
      h("p", {}, `Winning suits: ${suitList(t.winning_suits) || "none"}`),
      grid(null, ["Player", "Identity suits", "Points"], t.points.map((p, s) => [ctx.name(s), suitList(v.identity_suits[s]), String(p)]))));
  }
  return out;
}

function phaseText(phase) {
  return { dealing: "dealing", play: "playing two laps", choose: "keep or kill", scoring: "scoring", pick: "picking killed cards", ended: "the end", over: "the game is over" }[phase] || phase;
}

export function moves(v, info, ctx) {
  const items = v.hand.map((c) => ({ key: `c${c}`, label: cardName(c), face: card(ctx, c, true), cls: "card-move", match: (a) => a.type === "play" && a.card === c }));
  items.push({
    key: "choose", label: "Keep or kill",
    dialog: {
      title: "Keep or kill",
      intro: "Keep a card in play (it goes back to its owner's hand) or kill it; your second choice is the opposite of your first (CH-4).",
      filter: (a) => a.type === "keep" || a.type === "kill",
      fields: [
        { label: "Card", get: (a) => a.card, text: (x) => cardName(Number(x)) },
        { label: "Keep or kill", get: (a) => a.type, text: (x) => (x === "keep" ? "Keep" : "Kill") },
      ],
    },
  });
  items.push({
    key: "pick", label: "Pick a killed card",
    dialog: {
      title: "Pick a killed card",
      intro: "Take one of the killed cards: its face value counts as points (CH-8).",
      filter: (a) => a.type === "pick",
      fields: [{ label: "Card", get: (a) => a.card, text: (x) => cardName(Number(x)) }],
    },
  });
  return items;
}

export function describe(e, ctx, info) {
  const n = ctx.name;
  switch (e.type) {
    case "ch.started": return `The game starts; ${n(e.dealer)} deals and starts.`;
    case "ch.dealt": return "The cards are dealt: twelve each.";
    case "ch.played": return `${n(e.seat)} played the ${cardName(e.card)}.`;
    case "ch.chose": return `${n(e.seat)} ${e.keep ? "kept" : "killed"} the ${cardName(e.card)}.`;
    case "ch.trick_scored":
      return [`Trick ${e.trick} is scored: winning suits ${suitList(e.winning_suits) || "none"}${e.reserve_card >= 0 ? `; the reserve adds the ${cardName(e.reserve_card)}` : ""}.`,
        ...e.points.map((p, s) => `${n(s)}: ${p} ${info && info.options && info.options.face_value_scoring ? "killed cards to pick" : "points"}`)];
    case "ch.picked": return `${n(e.seat)} picked the ${cardName(e.card)}.`;
    case "ch.game_ended": return `The game is over: ${e.scores.map((s, i) => `${n(i)} ${s}`).join(", ")}.`;
    default: return null;
  }
}
