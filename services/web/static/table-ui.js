// Small DOM helpers shared by the table page and its game modules.
import { t, ordinal as placeName } from "./i18n.js";

/** h("p", {class: "x", "aria-label": "y"}, child, [children], "text") */
export function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "hidden") el.hidden = true;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false || kid === "") continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
  return el;
}

/**
 * A card drawn in CSS: its rank, and its suit twice, as a colour and as a
 * letter plus symbol (so colour-blind players tell suits apart). `name` is
 * the rulebook's name ("7 of purple"), which screen readers say.
 * A face-down card (a card whose moment has passed, GEN-1) has no suit.
 */
export function cardEl({ name, suit = "", rank = "", mark = "", small = false }) {
  if (!suit && !rank) return h("span", { class: "card down", role: "img", "aria-label": name || t("common.face_down") });
  return h("span", { class: `card suit-${suit}${small ? " small" : ""}`, role: "img", "aria-label": name, title: name },
    // Drawn by CSS (::before, attr(data-t)): a card's name is its one text, so a
    // card button's visible text never differs from its name (axe label-content-name-mismatch).
    h("span", { class: "rank", "aria-hidden": "true", "data-t": rank }),
    h("span", { class: "mark", "aria-hidden": "true", "data-t": mark }));
}

// Places in the page's language (1st, 1º, 1.º).
export const ordinal = placeName;

/** A small table: header cells, then rows of cells. */
export function grid(caption, head, rows) {
  return h("table", { class: "grid" },
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", {}, c)))))));
}

/**
 * The trick on the table, from a module's plays(): each play a figure (its
 * cards, its seat's name, a note); a won trick (`winner` set) is the group
 * "Trick won by <name>", the winner's card marked in words and outline.
 * `cell(seat)`: a class that places a card in front of its seat (table.js).
 */
export function trickEl(ctx, { plays, winner = null, label, empty }, cell = () => null) {
  const done = winner !== null;
  const figs = plays.map((p) => h("figure", { class: [p.cls, done && p.seat === winner ? "won" : null, cell(p.seat)].filter(Boolean).join(" ") || null, "data-seat": p.seat },
    p.faces, h("figcaption", {}, h("span", { class: "who" }, ctx.name(p.seat)), p.note ? ` · ${p.note}` : "", done && p.seat === winner ? h("span", { class: "won-mark" }, ` · ${t("table.winner")}`) : "")));
  return done
    ? h("div", { class: "trick completed", role: "group", "aria-label": t("table.completed_trick", { name: ctx.name(winner) }) }, figs)
    : h("div", { class: "trick", role: "group", "aria-label": label || t("common.current_trick") }, figs.length ? figs : h("p", { class: "hint" }, empty || t("common.no_card_trick")));
}

/** A result or score table folded away where the page folds them (ctx.fold, table.js); elsewhere as it is. */
export const fold = (ctx, el, how = {}) => (ctx.fold ? ctx.fold(el, how) : el);

/**
 * What lies on the table (ctx.memo from the module's `track`): `{kept}`, a
 * won trick kept until the next lead, or `{trick}`, the cards in play. The
 * events seen may be ahead of the view (it is fetched after them): then the
 * cards seen so far, not an empty trick.
 */
export function trickInPlay(v, info, memo = {}) {
  const ahead = Boolean(info) && memo.version > info.version;
  const trick = ahead || !v.trick.length ? memo.current || [] : v.trick;
  if (!trick.length && memo.last && memo.last.open) return { kept: memo.last };
  return { trick };
}

/**
 * The "Last trick" dialog's body. `last`: {trick, plays, winner, open} or
 * null; `faceDown(play)` draws a card whose moment has passed (GEN-1: once
 * the next card is led a won trick's cards are face down until the round's
 * reveal, KT-11/TT-14), the seats, order and winner staying public.
 */
export function lastTrickBody(ctx, last, faceDown) {
  if (!last) return [h("p", {}, t("table.no_last_trick"))];
  const rows = last.plays.map((p) => h("li", { class: p.seat === last.winner ? "won" : null },
    h("span", { class: "faces" }, last.open ? p.faces : faceDown(p)),
    " ", h("span", {}, ctx.name(p.seat) + (p.note ? ` · ${p.note}` : "") + (p.seat === last.winner ? ` · ${t("table.winner")}` : ""))));
  return [
    h("p", {}, t("table.trick_won_by", { n: last.trick, name: ctx.name(last.winner) })),
    h("ol", { class: "last-trick", "aria-label": t("table.last_trick") }, rows),
    last.open ? null : h("p", { class: "hint" }, t("table.last_trick_down")),
  ];
}
