// Kabuki Tricks (engines/kabuki_tricks/view.py): cards 10*suit + number-1,
// suits green, purple, orange, blue; seat s's Joker is 40+s.
import { grid } from "../table-ui.js";

export const TITLE = "Kabuki Tricks";
const SUITS = ["green", "purple", "orange", "blue"];
const MARK = { green: "G▲", purple: "P◆", orange: "O●", blue: "B■" };

export function cardName(c) {
  if (c === null || c === undefined) return "a card";
  if (c >= 40) return "Joker";
  return `${(c % 10) + 1} of ${SUITS[Math.floor(c / 10)]}`;
}

function card(ctx, c, small) {
  if (c === null || c === undefined) return ctx.cardEl({ name: "a face-down card" });
  if (c >= 40) return ctx.cardEl({ name: "Joker", suit: "joker", rank: "J", mark: "★", small });
  const suit = SUITS[Math.floor(c / 10)];
  return ctx.cardEl({ name: cardName(c), suit, rank: String((c % 10) + 1), mark: MARK[suit], small });
}

// With 2 players, seat 2 is the dummy hand (KT-13).
export function seatName(seat, info) {
  return info && info.players === 2 && seat === 2 ? "the dummy" : null;
}

const order = (o) => o.map((s) => s[0].toUpperCase() + s.slice(1)).join(" > ");

export function seatLine(v, seat) {
  const s = v.seats[seat];
  if (!s) return "";
  const bits = [`${s.score} points`, `${s.tricks} tricks`, `${s.hand_size} cards`];
  if (s.actor) bits.push(`Player card on ${s.actor}${s.prediction ? ` (${s.prediction})` : ""}`);
  if (seat === v.dealer) bits.push("dealer");
  return bits.join(" · ");
}

export function board(v, info, ctx) {
  const { h } = ctx;
  const out = [h("p", { class: "round" }, `Round ${v.round} of ${v.rounds} · ${ctx.name(v.dealer)} deals · trick ${v.trick_no} of 7`)];
  // The Director's configuration: High/Low and the actors, strongest first,
  // with the Player cards placed beside them (KT-11: where is public, the value is not).
  const actors = v.order.map((suit, i) => {
    const placed = v.seats.filter((s) => s.actor === suit)
      .map((s) => `${ctx.name(s.seat)}${s.prediction ? ` predicts ${s.prediction}` : ""}`);
    return h("li", { class: `actor suit-${suit}` }, h("span", { class: "mark", "aria-hidden": "true" }, MARK[suit]),
      ` ${i + 1}. ${suit}`, placed.length ? h("span", { class: "placed" }, ` · Player card: ${placed.join(", ")}`) : null);
  });
  out.push(h("div", { class: "director" }, h("p", {}, h("strong", {}, v.high ? "High" : "Low"), v.high ? " (higher numbers win)" : " (lower numbers win)"),
    h("ol", { class: "actors", "aria-label": "Actors, strongest first" }, actors)));
  out.push(h("div", { class: "trick", "aria-label": "Current trick", role: "group" },
    v.trick.length ? v.trick.map(([seat, c]) => h("figure", {}, card(ctx, c), h("figcaption", {}, ctx.name(seat))))
      : h("p", { class: "hint" }, "No card in the trick yet.")));
  if (v.players === 2) out.push(h("p", {}, `The dummy: ${v.dummy_left} cards left, ${v.dummy_tricks} tricks.`));
  if (v.last_round) out.push(reveal(v.last_round, v, ctx));
  if (v.history.length) {
    out.push(grid("Points per round", ["Player", ...v.history.map((_, i) => `Round ${i + 1}`), "Total"],
      v.seats.map((s) => [ctx.name(s.seat), ...v.history.map((r) => String(r[s.seat])), String(s.score)])));
  }
  return out;
}

function reveal(r, v, ctx) {
  const { h } = ctx;
  return h("div", { class: "reveal" }, h("h3", {}, `Round ${r.round}: the reveal`),
    grid(null, ["Player", "Player card", "Tricks", "Prediction", "Suit", "Joker", "Other", "Total"],
      r.lines.map((l, s) => [ctx.name(s), r.actors[s] ? `${r.predictions[s] ?? "?"} on ${r.actors[s]}` : "none",
        String(l.tricks), String(l.prediction), String(l.suit), String(l.joker), String((l.failed || 0) + (l.toxic || 0)), String(l.total)])),
    h("p", {}, "Final cards: ", r.finals.map((c, s) => h("span", { class: "final" }, `${ctx.name(s)} `, card(ctx, c, true), " "))));
}

const ADJUST = (a) => (a.adjust == null ? "none" : a.adjust.flip ? "flip" : `swap${a.adjust.swap}`);

export function moves(v, info, ctx) {
  const items = [];
  for (const c of v.hand) {
    if (c >= 40) {
      items.push({
        key: "joker", label: "Joker", face: card(ctx, c, true), cls: "card-move",
        dialog: {
          title: "Play your Joker",
          intro: "Place a Player card beside an actor with your prediction (1-3 tricks), and adjust the Director's choice if you like.",
          filter: (a) => a.type === "joker",
          fields: [
            { label: "Actor", get: (a) => a.actor ?? "none", text: (x) => (x === "none" ? "No free actor" : x) },
            { label: "Prediction", get: (a) => a.prediction ?? "none", text: (x) => (x === "none" ? "None" : `${x} tricks`) },
            {
              label: "Adjust", get: ADJUST,
              text: (x, view) => x === "none" ? "Leave as is" : x === "flip" ? `Flip to ${view.high ? "Low" : "High"}`
                : `Swap actors ${Number(x.slice(4)) + 1} and ${Number(x.slice(4)) + 2} (${view.order[Number(x.slice(4))]}, ${view.order[Number(x.slice(4)) + 1]})`,
            },
          ],
        },
      });
    } else {
      items.push({ key: `c${c}`, label: cardName(c), face: card(ctx, c, true), cls: "card-move", match: (a) => a.type === "play" && a.card === c });
    }
  }
  items.push({ key: "deal", label: "Deal", match: (a) => a.type === "deal" });
  items.push({
    key: "direct", label: "Director",
    dialog: {
      title: "Director",
      intro: "Choose High or Low and the actors' order (strongest first), or leave them as they are.",
      filter: (a) => a.type === "direct",
      fields: [
        { label: "High or Low", get: (a) => (a.high ? "high" : "low"), text: (x, view) => (x === "high" ? "High" : "Low") + ((x === "high") === view.high ? " (as is)" : "") },
        { label: "Actor order, strongest first", get: (a) => a.order.join(","), text: (x, view) => order(x.split(",")) + (x === view.order.join(",") ? " (as is)" : "") },
      ],
    },
  });
  return items;
}

export function describe(e, ctx, info) {
  const n = ctx.name;
  switch (e.type) {
    case "kt.started": return `The game starts. ${n(e.first_dealer)} deals first; ${e.high ? "High" : "Low"}, ${order(e.order)}.`;
    case "kt.dealt": return `${n(e.dealer)} dealt round ${e.round}.`;
    case "kt.directed": return `${n(e.seat)} directed: ${e.high ? "High" : "Low"}, ${order(e.order)}.`;
    case "kt.played": return `${cap(n(e.seat))} played ${e.card === null ? "a card" : "the " + cardName(e.card)}.`;
    case "kt.joker_played": {
      let text = `${n(e.seat)} played the Joker`;
      if (e.actor) text += `, placing a Player card beside ${e.actor}${e.prediction ? ` (prediction ${e.prediction})` : ""}`;
      if (e.adjust && e.adjust.flip) text += ", and flipped High/Low";
      if (e.adjust && e.adjust.swap !== undefined && e.adjust.swap !== null) text += `, and swapped actors ${e.adjust.swap + 1} and ${e.adjust.swap + 2}`;
      return text + ".";
    }
    case "kt.trick_won": return `${cap(n(e.seat))} won the trick.`;
    case "kt.round_ended":
      return [`Round ${e.round} ends. The reveal:`, ...e.lines.map((l, s) =>
        `${n(s)}: ${l.tricks} for tricks, ${l.prediction} for the prediction${e.predictions[s] ? ` (${e.predictions[s]} on ${e.actors[s]})` : ""}, ${l.suit} for the final card's suit, ${l.joker} for the Joker${l.failed ? `, ${l.failed} failed prediction` : ""}${l.toxic ? `, ${l.toxic} toxic` : ""}: ${l.total} points.`)];
    case "kt.game_ended": return `The game is over: ${e.scores.map((s, i) => `${n(i)} ${s}`).join(", ")}.`;
    default: return null;
  }
}

// Only "the dummy" starts a sentence in lower case; people's names stay as they wrote them.
const cap = (s) => (s === "the dummy" ? "The dummy" : s);
