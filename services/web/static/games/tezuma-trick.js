// Tezuma Trick (engines/tezuma_trick/view.py): cards suit*12 + rank, ranks
// 0-8 the numbers 1-9, 9-11 the suit's Trumps; abilities by snake_case name.

export const TITLE = "Tezuma Trick";
const SUITS = ["butterflies", "umbrellas", "fans", "masks"];
const MARK = ["B✦", "U☂", "F◗", "M☻"];
const ABILITY = {
  sword_walking: "Sword Walking", butterfly_dance: "Butterfly Dance", linking_ring: "Linking Ring",
  cup_and_ball: "Cup and Ball", fire_breathing: "Fire Breathing", paper_egg: "Paper Egg",
  water_trick: "Water Trick", chicks: "Chicks", pail_dance: "Pail Dance", horse_swallowing: "Horse-Swallowing",
  many_umbrellas: "Many Umbrellas", five_color_sand: "Five-Color Sand",
};
export const abilityName = (a) => ABILITY[a] || a;

export function cardName(c) {
  const suit = SUITS[Math.floor(c / 12)];
  const rank = c % 12;
  return rank >= 9 ? `Trump of ${suit}` : `${rank + 1} of ${suit}`;
}

function card(ctx, c, small) {
  const s = Math.floor(c / 12);
  return ctx.cardEl({ name: cardName(c), suit: SUITS[s], rank: c % 12 >= 9 ? "T" : String((c % 12) + 1), mark: MARK[s], small });
}

function bidText(v, i) {
  const b = v.bid_cards[i];
  if (!b) return `bid ${i}`;
  const t = b.tricks;
  const tricks = t.length === 1 ? `${t[0]}` : t.every((x, k) => k === 0 || x === t[k - 1] + 1) ? `${t[0]}-${t[t.length - 1]}` : t.join(", ");
  return `${tricks} tricks for ${b.points} points`;
}

export function seatLine(v, seat) {
  const s = v.seats[seat];
  const bits = [`${s.score} points`, `${s.tricks} tricks`, `${s.hand_size} cards`];
  if (s.pain >= 0) bits.push(`pain: ${SUITS[s.pain]}`);
  if (s.bid >= 0) bits.push(`bid: ${bidText(v, s.bid)}`);
  if (s.ability) bits.push(`${abilityName(s.ability)} (${s.uses_left} uses left)`);
  if (s.shown.length) bits.push(`shown: ${s.shown.map(cardName).join(", ")}`);
  if (s.pain_count !== null && s.pain_count !== undefined) bits.push(`this hand: ${s.pain_count} pain, ${s.hand_points} points`);
  return bits.join(" · ");
}

export function board(v, info, ctx) {
  const { h } = ctx;
  const out = [h("p", { class: "round" }, `Hand ${v.hand_no} of ${v.hands_total} · ${ctx.name(v.dealer)} deals · ${v.phase === "draft" ? "the draft" : `trick ${v.trick_no} of 12`}`
    + (v.led_suit >= 0 ? ` · led: ${SUITS[v.led_suit]}` : ""))];
  if (v.phase === "draft" || v.open_pains.length || v.open_bids.length || v.open_abilities.length) {
    out.push(h("div", { class: "draft" },
      h("p", {}, "Pain suits: ", v.open_pains.map((s) => h("span", { class: `chip suit-${SUITS[s]}` }, `${MARK[s]} ${SUITS[s]}`)), v.open_pains.length ? "" : "none left"),
      h("p", {}, "Bids: ", v.open_bids.map((b) => bidText(v, b)).join("; ") || "none left"),
      h("p", {}, "Abilities: ", v.open_abilities.map(abilityName).join(", ") || "none left")));
  }
  out.push(h("div", { class: "trick", role: "group", "aria-label": "Current trick" },
    v.trick.length ? v.trick.map((p) => h("figure", {}, p.cards.length ? p.cards.map((c) => card(ctx, c)) : ctx.cardEl({ name: p.ability === "five_color_sand" ? "no card" : "a face-down card" }),
      h("figcaption", {}, ctx.name(p.seat), p.ability ? ` · ${abilityName(p.ability)}` : "")))
      : h("p", { class: "hint" }, "No card in the trick yet.")));
  if (v.egged >= 0) out.push(h("p", {}, `${ctx.name(v.egged)} declared Paper Egg and plays last.`));
  return out;
}

export function moves(v, info, ctx) {
  const me = v.seats[info.your_seat];
  const hand = (me && me.hand) || [];
  const items = hand.map((c) => ({ key: `c${c}`, label: cardName(c), face: card(ctx, c, true), cls: "card-move", match: (a) => a.type === "play" && a.card === c && !a.ability }));
  items.push({ key: "pain", label: "Pick pain suit", dialog: { title: "Pick your pain suit", filter: (a) => a.type === "pick_pain",
    fields: [{ label: "Pain suit", get: (a) => a.suit, text: (x) => SUITS[Number(x)] }] } });
  items.push({ key: "bid", label: "Pick bid", dialog: { title: "Pick your bid", filter: (a) => a.type === "pick_bid",
    fields: [{ label: "Bid", get: (a) => a.bid, text: (x) => bidText(v, Number(x)) }] } });
  items.push({ key: "ability-pick", label: "Pick ability", dialog: { title: "Pick your ability", filter: (a) => a.type === "pick_ability",
    fields: [{ label: "Ability", get: (a) => a.ability, text: abilityName }] } });
  if (me && me.ability) items.push(abilityMove(me.ability));
  return items;
}

// An ability is declared with its card(s) in one action (engine contract).
function abilityMove(ab) {
  const title = abilityName(ab);
  if (ab === "paper_egg") return { key: "ab", label: title, dialog: { title, intro: "Paper Egg: you will play after everyone else this trick.", filter: (a) => a.type === "egg", fields: [] } };
  if (ab === "five_color_sand") return { key: "ab", label: title, dialog: { title, intro: "Five-Color Sand: win this trick without playing a card.", filter: (a) => a.type === "sand", fields: [] } };
  const filter = (a) => a.type === "play" && a.ability === ab;
  if (ab === "fire_breathing") {
    return { key: "ab", label: title, dialog: { title, intro: "Play two number cards of one suit; their numbers add up, and the lower one comes back to your hand.", filter,
      fields: [{ label: "First card", get: (a) => a.card, text: (x) => cardName(Number(x)) }, { label: "Second card", get: (a) => a.second, text: (x) => cardName(Number(x)) }] } };
  }
  return { key: "ab", label: title, dialog: { title, intro: `Play a card with ${title}.`, filter, fields: [{ label: "Card", get: (a) => a.card, text: (x) => cardName(Number(x)) }] } };
}

const REASON = { trump: "with a Trump", high: "with the highest card", sword_walking: "with Sword Walking", five_color_sand: "with Five-Color Sand" };

export function describe(e, ctx, info) {
  const n = ctx.name;
  const v = info && info.view;
  switch (e.type) {
    case "tt.started": return `The game starts; ${n(e.first_dealer)} deals first.`;
    case "tt.hand_dealt": return `Hand ${e.hand}: ${n(e.dealer)} deals. Face up: abilities ${e.abilities.map(abilityName).join(", ")}.`;
    case "tt.picked_pain": return `${n(e.seat)} picked ${SUITS[e.suit]} as their pain suit.`;
    case "tt.picked_bid": return `${n(e.seat)} picked the bid ${v ? bidText(v, e.bid) : e.bid}.`;
    case "tt.picked_ability": return `${n(e.seat)} picked ${abilityName(e.ability)}.`;
    case "tt.egg_declared": return `${n(e.seat)} used Paper Egg and will play last.`;
    case "tt.played": {
      const how = e.ability ? ` with ${abilityName(e.ability)}` : "";
      if (!e.cards.length) return e.ability === "five_color_sand" ? `${n(e.seat)} used Five-Color Sand.` : `${n(e.seat)} played a card${how}.`;
      return `${n(e.seat)} played the ${e.cards.map(cardName).join(" and the ")}${how}.`;
    }
    case "tt.trick_won": {
      let text = `${n(e.winner)} won the trick ${REASON[e.reason] || ""}`.trim();
      if (e.next_leader !== e.winner) text += `; ${n(e.next_leader)} leads next`;
      if (e.returned >= 0) text += `; the ${cardName(e.returned)} goes back to ${n(e.returned_to)}'s hand`;
      return text + ".";
    }
    case "tt.hand_scored":
      return [`Hand ${e.hand} is scored:`, ...e.points.map((p, s) => `${n(s)}: ${e.tricks[s]} tricks, ${e.pain[s]} pain, ${p} points (total ${e.totals[s]}).`)];
    case "tt.game_ended": return `The game is over: ${e.scores.map((s, i) => `${n(i)} ${s}`).join(", ")}.`;
    default: return null;
  }
}
