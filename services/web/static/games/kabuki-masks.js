// Kabuki, the mask memory game (engines/kabuki_masks/view.py): 50 cards, id
// 0..49, the mask is id // 5 (10 masks, 5 copies); 4 actor piles. Only each
// pile's top is shown (KM-7): the page shows nothing the view does not.

export const TITLE = "Kabuki (mask memory)";
const LETTERS = "ABCDEFGHIJ";
const SYMBOLS = "☀☾★♠♥♦♣✿☂⚑";

export const maskOf = (c) => Math.floor(c / 5);
export function cardName(c) {
  return c === null || c === undefined ? "a covered card" : `mask ${LETTERS[maskOf(c)]}`;
}

function card(ctx, c, small) {
  if (c === null || c === undefined) return ctx.cardEl({ name: "a covered card" });
  const m = maskOf(c);
  return ctx.cardEl({ name: cardName(c), suit: `m${m}`, rank: LETTERS[m], mark: SYMBOLS[m], small });
}

export function seatLine(v, seat) {
  const bits = [`${v.tokens[seat]} tokens`];
  const banked = v.banked[seat];
  if (banked) bits.push(`${banked} banked`);
  if (v.placer === seat) bits.push("places now");
  return bits.join(" · ");
}

export function scoreText(s) { return `${s} tokens`; }

export function board(v, info, ctx) {
  const { h } = ctx;
  const out = [h("p", { class: "round" }, `Round ${v.round} of ${v.rounds} · ${v.deck_count} cards in the deck · stop window ${(v.stop_window_ms / 1000).toFixed(1)} s`)];
  if (v.revealed !== null && v.revealed !== undefined && v.placer !== null) {
    out.push(h("div", { class: "revealed" }, h("p", {}, `${ctx.name(v.placer)} places:`), card(ctx, v.revealed)));
  }
  out.push(h("ol", { class: "piles", "aria-label": "Actor piles" }, v.tops.map((top, i) => h("li", { class: "pile" },
    h("span", { class: "pile-name" }, `Pile ${i + 1}`),
    top === null && v.pile_sizes[i] === 0 ? h("span", { class: "card actor", role: "img", "aria-label": `actor ${i + 1}` }, h("span", { class: "rank", "aria-hidden": "true" }, `A${i + 1}`)) : card(ctx, top),
    h("span", { class: "pile-size" }, `${v.pile_sizes[i]} cards`)))));
  const l = v.latest;
  if (l) {
    out.push(h("p", { class: "latest" }, `Latest: #${l.placement}, ${cardName(l.card)} by ${ctx.name(l.seat)} on pile ${l.pile + 1}`,
      l.called ? " (Stop! was called)" : "", h("span", { class: "stop-window", "aria-live": "off" })));
  }
  if (v.over && v.piles) {
    out.push(h("div", { class: "reveal" }, h("h3", {}, "The piles, revealed"),
      v.piles.map((p, i) => h("p", {}, `Pile ${i + 1}: `, p.map((c) => card(ctx, c, true))))));
  }
  return out;
}

export function moves(v, info, ctx) {
  const { h } = ctx;
  const items = [0, 1, 2, 3].map((i) => ({ key: `place${i}`, label: `Place on pile ${i + 1}`, match: (a) => a.type === "place" && a.pile === i }));
  const number = v.can_stop ?? (v.latest ? v.latest.placement : null);
  items.push({
    key: "stop", label: "Stop!", cls: "stop",
    face: [h("span", { class: "stop-word" }, "Stop!"), h("span", { class: "stop-number" }, number === null ? "" : `#${number}`), h("span", { class: "stop-window" })],
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
    text = left > 0 ? `window ${(left / 1000).toFixed(1)} s` : v.deck_count === 0 ? "window closed" : "until the next card";
  }
  for (const el of root.querySelectorAll(".stop-window")) if (el.textContent !== text) el.textContent = text;
}

export function describe(e, ctx) {
  const n = ctx.name;
  switch (e.type) {
    case "km.started": return `The game starts: ${e.players} players, a stop window of ${(e.stop_window_ms / 1000).toFixed(1)} s.`;
    case "km.round_started": return `Round ${e.round} starts: everyone holds ${e.tokens} tokens; ${n(e.first_seat)} places first.`;
    case "km.revealed": return `${n(e.seat)} revealed ${cardName(e.card)}.`;
    case "km.placed": return `${n(e.seat)} placed ${cardName(e.card)} on pile ${e.pile + 1} (#${e.placement}).`;
    case "km.stopped": {
      const head = `${n(e.caller)} called Stop! on #${e.placement} (pile ${e.pile + 1}${e.cards.length ? ": " + e.cards.map(cardName).join(", ") : ""})`;
      if (e.matches) return `${head}: ${e.matches} match${e.matches > 1 ? "es" : ""}, ${e.moved} token${e.moved === 1 ? "" : "s"} from ${n(e.placer)} to ${n(e.caller)}.`;
      return `${head}: no match, ${n(e.caller)} returned ${e.returned} token to the box.`;
    }
    case "km.round_ended":
      return [`Round ${e.round} ends (${e.reason === "last_token" ? `${n(e.ended_by)} lost their last token` : `${n(e.ended_by)} placed the last card`}). Tokens banked:`,
        ...e.tokens.map((t, s) => `${n(s)}: ${t}`)];
    case "km.game_ended": return `The game is over: ${e.scores.map((s, i) => `${n(i)} ${s}`).join(", ")}.`;
    default: return null;
  }
}
