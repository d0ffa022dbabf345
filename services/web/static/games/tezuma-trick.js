// Tezuma Trick (engines/tezuma_trick/view.py): cards suit*12 + rank, ranks
// 0-8 the numbers 1-9, 9-11 the suit's Trumps; abilities by snake_case name.
// The rulebook is English only: other languages use our glossary's names.
import { grid, lastTrickBody, trickEl, fold, trickInPlay } from "../table-ui.js";
import { t, tp, gameTitle } from "../i18n.js";

export const TITLE = gameTitle("tezuma-trick");
const SUITS = ["butterflies", "umbrellas", "fans", "masks"];
const MARK = ["B✦", "U☂", "F◗", "M☻"];
const ABILITY = () => ({
  sword_walking: t("tt.ability.sword_walking"),
  butterfly_dance: t("tt.ability.butterfly_dance"),
  linking_ring: t("tt.ability.linking_ring"),
  cup_and_ball: t("tt.ability.cup_and_ball"),
  fire_breathing: t("tt.ability.fire_breathing"),
  paper_egg: t("tt.ability.paper_egg"),
  water_trick: t("tt.ability.water_trick"),
  chicks: t("tt.ability.chicks"),
  pail_dance: t("tt.ability.pail_dance"),
  horse_swallowing: t("tt.ability.horse_swallowing"),
  many_umbrellas: t("tt.ability.many_umbrellas"),
  five_color_sand: t("tt.ability.five_color_sand"),
});
export const abilityName = (a) => ABILITY()[a] || a;
const suitName = (s) => [t("tt.suit.butterflies"), t("tt.suit.umbrellas"), t("tt.suit.fans"), t("tt.suit.masks")][s];

export function cardName(c) {
  const suit = suitName(Math.floor(c / 12));
  const rank = c % 12;
  return rank >= 9 ? t("tt.trump", { suit }) : t("tt.card", { n: rank + 1, suit });
}

function card(ctx, c, small) {
  const s = Math.floor(c / 12);
  return ctx.cardEl({ name: cardName(c), suit: SUITS[s], rank: c % 12 >= 9 ? "T" : String((c % 12) + 1), mark: MARK[s], small });
}

/** A card of a hand as the replay viewer draws it. */
export const handCard = (ctx, c) => card(ctx, c, false);

function bidText(v, i) {
  const b = v.bid_cards[i];
  if (!b) return t("tt.bid_n", { n: i });
  const k = b.tricks;
  const tricks = k.length === 1 ? `${k[0]}` : k.every((x, j) => j === 0 || x === k[j - 1] + 1) ? `${k[0]}-${k[k.length - 1]}` : k.join(", ");
  // "1 trick" only when the bid is exactly one trick; a range reads as plural.
  const count = k.length === 1 ? k[0] : 2;
  return t("tt.bid_text", { tricks: tp("tt.tricks", count, { n: tricks }), points: tp("unit.points", b.points) });
}

/** The board of the replay and the live miniatures: mid-table, then the trick. */
export function board(v, info, ctx) {
  return [...centre(v, info, ctx), trickEl(ctx, plays(v, info, ctx))];
}

// --- the table page's hooks (table.js places them) ---

export const handSize = (v, seat) => (v.seats[seat] ? v.seats[seat].hand_size : 0);

/** What goes on a seat's plate: score, tricks, pain suit, bid, ability, cards shown. */
export function seatInfo(v, seat) {
  const s = v.seats[seat];
  if (!s) return [];
  const bits = [tp("unit.points", s.score), tp("unit.tricks", s.tricks)];
  if (s.pain >= 0) bits.push(t("tt.pain", { suit: suitName(s.pain) }));
  if (s.bid >= 0) bits.push(t("tt.bid", { bid: bidText(v, s.bid) }));
  if (s.ability) bits.push(`${abilityName(s.ability)} (${tp("tt.uses_left", s.uses_left)})`);
  if (s.shown.length) bits.push(t("tt.shown", { cards: s.shown.map(cardName).join(", ") }));
  if (s.pain_count !== null && s.pain_count !== undefined) bits.push(t("tt.this_hand", { pain: s.pain_count, points: tp("unit.points", s.hand_points) }));
  return bits;
}

/** The trick on the table: the current one, or the won one kept until the next lead. */
export function plays(v, info, ctx) {
  const { kept, trick } = trickInPlay(v, info, ctx.memo);
  if (kept) return { winner: kept.winner, plays: withFaces(kept, ctx).plays };
  return { plays: trick.map((p) => ({ seat: p.seat, note: p.ability ? abilityName(p.ability) : "", faces: faces(ctx, p) })) };
}

/** Mid-table: the hand and trick, the led suit, the draft's open pain suits, bids and abilities; the hand's scores. */
export function centre(v, info, ctx) {
  const { h } = ctx;
  const memo = ctx.memo || {};
  const out = [h("p", { class: "round" }, t("tt.hand_line", { hand: v.hand_no, hands: v.hands_total, dealer: ctx.name(v.dealer) }) + " · "
    + (v.phase === "draft" ? t("tt.the_draft") : t("tt.trick_of", { n: Math.min(v.trick_no, 12) }))
    + (v.led_suit >= 0 ? ` · ${t("tt.led", { suit: suitName(v.led_suit) })}` : ""))];
  if (v.phase === "draft") { // after it, each seat's pain suit, bid and ability are on its plate
    out.push(h("div", { class: "draft" },
      h("p", {}, t("tt.pain_suits") + " ", v.open_pains.map((s) => h("span", { class: `chip suit-${SUITS[s]}` }, `${MARK[s]} ${suitName(s)}`)), v.open_pains.length ? "" : t("common.none_left")),
      h("p", {}, t("tt.bids") + " ", v.open_bids.map((b) => bidText(v, b)).join("; ") || t("common.none_left")),
      h("p", {}, t("tt.abilities") + " ", v.open_abilities.map(abilityName).join(", ") || t("common.none_left"))));
  }
  if (v.egged >= 0) out.push(h("p", {}, t("tt.egged", { name: ctx.name(v.egged) })));
  if (memo.handOpen && memo.hands.length) out.push(fold(ctx, handScores(memo.hands[memo.hands.length - 1], ctx)));
  return out;
}

function handScores(e, ctx) {
  const { h } = ctx;
  return h("div", { class: "reveal" }, h("h3", {}, t("tt.hand_scores_h", { hand: e.hand })),
    grid(null, [t("common.player"), t("tt.col.tricks"), t("tt.col.pain"), t("tt.col.points"), t("common.total")],
      e.points.map((p, s) => [ctx.name(s), String(e.tricks[s]), String(e.pain[s]), String(p), String(e.totals[s])])));
}

// What the page keeps from the events it has seen (table.js's ctx.memo).
export function track(memo, e) {
  memo.hands ??= [];
  memo.current ??= [];
  switch (e.type) {
    case "tt.hand_dealt": memo.current = []; break;
    case "tt.played":
      if (!memo.current.length) { if (memo.last) memo.last.open = false; memo.handOpen = false; }
      memo.current.push({ seat: e.seat, cards: e.cards, ability: e.ability });
      break;
    case "tt.trick_won": memo.last = { trick: e.trick, winner: e.winner, open: true, cards: memo.current }; memo.current = []; break;
    case "tt.hand_scored": memo.hands.push(e); memo.handOpen = true; break;
    default: break;
  }
}

function faces(ctx, p) {
  return p.cards.length ? p.cards.map((c) => card(ctx, c)) : [ctx.cardEl({ name: p.ability === "five_color_sand" ? t("tt.no_card") : t("common.face_down") })];
}

function withFaces(last, ctx) {
  return last && { ...last, plays: last.cards.map((p) => ({ seat: p.seat, note: p.ability ? abilityName(p.ability) : "", faces: faces(ctx, p), sand: p.ability === "five_color_sand" })) };
}

/** "Last trick" and each past hand's scores, one click each (table.js). */
export function recall(memo, info, ctx) {
  const items = [{ key: "last", label: t("table.last_trick"), title: t("table.last_trick"),
    body: () => lastTrickBody(ctx, withFaces(memo.last, ctx), (p) => [ctx.cardEl({ name: p.sand ? t("tt.no_card") : t("common.face_down") })]) }];
  for (const e of memo.hands || []) {
    items.push({ key: `hand${e.hand}`, label: t("tt.hand_result", { hand: e.hand }), title: t("tt.hand_scores_h", { hand: e.hand }), body: () => handScores(e, ctx) });
  }
  return items;
}

export function moves(v, info, ctx) {
  const me = v.seats[info.your_seat];
  const hand = (me && me.hand) || [];
  const items = hand.map((c) => ({ key: `c${c}`, label: cardName(c), face: card(ctx, c, true), cls: "card-move", match: (a) => a.type === "play" && a.card === c && !a.ability }));
  items.push({ key: "pain", label: t("tt.pick_pain"), dialog: { title: t("tt.pick_pain_title"), filter: (a) => a.type === "pick_pain",
    fields: [{ label: t("tt.f.pain"), get: (a) => a.suit, text: (x) => suitName(Number(x)) }] } });
  items.push({ key: "bid", label: t("tt.pick_bid"), dialog: { title: t("tt.pick_bid_title"), filter: (a) => a.type === "pick_bid",
    fields: [{ label: t("tt.f.bid"), get: (a) => a.bid, text: (x) => bidText(v, Number(x)) }] } });
  items.push({ key: "ability-pick", label: t("tt.pick_ability"), dialog: { title: t("tt.pick_ability_title"), filter: (a) => a.type === "pick_ability",
    fields: [{ label: t("tt.f.ability"), get: (a) => a.ability, text: abilityName }] } });
  if (me && me.ability) items.push({ ...abilityMove(me.ability), hint: abilityHint(me, v, info) });
  return items;
}

// What the seat's ability does and, while its button is disabled, why (TT-7, TT-8).
const LEADER_MAY_NOT = new Set(["butterfly_dance", "paper_egg", "linking_ring", "cup_and_ball"]);
const usesAbility = (ab) => (a) => a.ability === ab || (ab === "paper_egg" && a.type === "egg") || (ab === "five_color_sand" && a.type === "sand");

function abilityHint(me, v, info) {
  const ab = me.ability;
  const legal = info.legal_actions || [];
  let why = null;
  if (!legal.some(usesAbility(ab))) {
    if (me.uses_left <= 0) why = t("tt.why.spent");
    else if (v.phase !== "play") why = t("tt.why.phase");
    else if (!info.to_act.includes(info.your_seat)) why = t("tt.why.turn");
    else if (!v.trick.length && LEADER_MAY_NOT.has(ab)) why = t("tt.why.leader");
    else why = t("tt.why.cards");
  }
  const help = t(`tt.help.${ab}`);
  return { help, text: t("tt.uses_line", { ability: abilityName(ab), help: why || help, uses: tp("tt.uses_left", me.uses_left) }) };
}

// An ability is declared with its card(s) in one action (engine contract).
function abilityMove(ab) {
  const title = abilityName(ab);
  if (ab === "paper_egg") return { key: "ab", label: title, dialog: { title, intro: t("tt.egg_intro"), filter: (a) => a.type === "egg", fields: [] } };
  if (ab === "five_color_sand") return { key: "ab", label: title, dialog: { title, intro: t("tt.sand_intro"), filter: (a) => a.type === "sand", fields: [] } };
  const filter = (a) => a.type === "play" && a.ability === ab;
  if (ab === "fire_breathing") {
    return { key: "ab", label: title, dialog: { title, intro: t("tt.fire_intro"), filter,
      fields: [{ label: t("tt.f.first"), get: (a) => a.card, text: (x) => cardName(Number(x)) }, { label: t("tt.f.second"), get: (a) => a.second, text: (x) => cardName(Number(x)) }] } };
  }
  return { key: "ab", label: title, dialog: { title, intro: t("tt.with_intro", { ability: title }), filter, fields: [{ label: t("common.card"), get: (a) => a.card, text: (x) => cardName(Number(x)) }] } };
}

const REASON = () => ({ trump: t("tt.won.trump"), high: t("tt.won.high"), sword_walking: t("tt.won.sword_walking"), five_color_sand: t("tt.won.five_color_sand") });

/** An action as the API takes it, in words (the replay's analysis). */
export function actionName(a) {
  const with_ = (text) => (a.ability ? `${text} (${abilityName(a.ability)})` : text);
  switch (a.type) {
    case "play": return with_(a.second !== undefined && a.second !== null ? `${cardName(a.card)} + ${cardName(a.second)}` : cardName(a.card));
    case "egg": return abilityName("paper_egg");
    case "sand": return abilityName("five_color_sand");
    case "pick_pain": return `${t("tt.pick_pain")}: ${suitName(a.suit)}`;
    case "pick_bid": return t("tt.bid_n", { n: a.bid });
    case "pick_ability": return `${t("tt.pick_ability")}: ${abilityName(a.ability)}`;
  }
  return null;
}

export function describe(e, ctx, info) {
  const n = ctx.name;
  const v = info && info.view;
  switch (e.type) {
    case "tt.started": return t("tt.ev.started", { name: n(e.first_dealer) });
    case "tt.hand_dealt": return t("tt.ev.hand_dealt", { hand: e.hand, name: n(e.dealer), abilities: e.abilities.map(abilityName).join(", ") });
    case "tt.picked_pain": return t("tt.ev.picked_pain", { name: n(e.seat), suit: suitName(e.suit) });
    case "tt.picked_bid": return t("tt.ev.picked_bid", { name: n(e.seat), bid: v ? bidText(v, e.bid) : e.bid });
    case "tt.picked_ability": return t("tt.ev.picked_ability", { name: n(e.seat), ability: abilityName(e.ability) });
    case "tt.egg_declared": return t("tt.ev.egg", { name: n(e.seat) });
    case "tt.played": {
      const how = e.ability ? " " + t("tt.ev.with", { ability: abilityName(e.ability) }) : "";
      if (!e.cards.length) return e.ability === "five_color_sand" ? t("tt.ev.sand", { name: n(e.seat) }) : t("tt.ev.played_hidden", { name: n(e.seat), how });
      return t("tt.ev.played", { name: n(e.seat), cards: e.cards.map(cardName).join(t("tt.ev.and_the")), how });
    }
    case "tt.trick_won": {
      let text = (REASON()[e.reason] ? t(`tt.won.${e.reason}`, { name: n(e.winner) }) : t("tt.won", { name: n(e.winner) }));
      if (e.next_leader !== e.winner) text += t("tt.ev.leads", { name: n(e.next_leader) });
      if (e.returned >= 0) text += t("tt.ev.returned", { card: cardName(e.returned), name: n(e.returned_to) });
      return text + ".";
    }
    case "tt.hand_scored":
      return [t("tt.ev.hand_scored", { hand: e.hand }), ...e.points.map((p, s) => t("tt.ev.hand_line", { name: n(s), tricks: tp("unit.tricks", e.tricks[s]), pain: e.pain[s], points: tp("unit.points", p), total: e.totals[s] }))];
    case "tt.game_ended": return t("common.game_over_scores", { scores: e.scores.map((s, i) => t("common.name_score", { name: n(i), score: s })).join(", ") });
    default: return null;
  }
}
