// Helpers of the watching pages: live, replay, tournaments,
// leaderboards, players. Boards are drawn by the table's own game modules
// (games/<game>.js); a game without one shows its view as text.
import { gameTitle, t, lang, ordinal as placeName } from "./i18n.js";

export function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "hidden") el.hidden = true;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false || kid === "") continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
  return el;
}

export const ordinal = placeName;

/** A rating as every page shows it: the API's `rating` (1500 at the start,
 * services/app/ratings/scale.py) with "?" appended while provisional. The
 * "?" is said as "(provisional)" to a screen reader and explained on hover. */
export function ratingEl(r) {
  if (!r.provisional) return h("span", { class: "rating" }, String(r.rating));
  return h("span", { class: "rating provisional", title: t("lb.provisional_title") }, String(r.rating),
    h("span", { "aria-hidden": "true" }, "?"), h("span", { class: "visually-hidden" }, ` (${t("lb.provisional")})`));
}

export function cardEl({ name, suit = "", rank = "", mark = "", small = false }) {
  if (!suit && !rank) return h("span", { class: "card down", role: "img", "aria-label": name || t("common.face_down") });
  return h("span", { class: `card suit-${suit}${small ? " small" : ""}`, role: "img", "aria-label": name, title: name },
    h("span", { class: "rank", "aria-hidden": "true" }, rank), h("span", { class: "mark", "aria-hidden": "true" }, mark));
}

const modules = new Map();

/** games/<game>.js, or null when the game has no module (yet). */
export function gameModule(game) {
  if (!modules.has(game)) modules.set(game, import(`./games/${game}.js`).catch(() => null));
  return modules.get(game);
}

/** The context a game module draws with: names from the table's seats. */
export function contextFor(info, mod) {
  const name = (seat) => {
    const special = mod && mod.seatName ? mod.seatName(seat, info) : null;
    if (special) return special;
    const s = info && info.seats && info.seats[seat];
    const base = (s && s.name) || t("common.seat", { n: seat + 1 });
    const twins = info && info.seats ? info.seats.filter((x) => x.name === base).length : 1;
    return twins > 1 ? t("common.seat_twin", { name: base, n: seat + 1 }) : base;
  };
  return { h, cardEl, name, ordinal, now: () => Date.now() };
}

/** The board of a view, by the game's module, or its public fields as text. */
export function drawBoard(mod, view, info, ctx) {
  if (!view) return [h("p", { class: "hint" }, t("watch.nothing"))];
  if (mod && mod.board) {
    try { return [mod.board(view, info, ctx)].flat(); } catch { /* fall through to text */ }
  }
  return [h("pre", { class: "view-text" }, JSON.stringify(view, null, 1))];
}

export function cardName(mod, c) {
  return mod && mod.cardName ? mod.cardName(c) : t("watch.card_n", { n: c });
}

export function fmtDate(ms) {
  return ms ? new Date(ms).toLocaleString(lang === "en" ? "en-GB" : lang, { dateStyle: "medium", timeStyle: "short" }) : "";
}

export function countdown(ms) {
  let s = Math.max(0, Math.round((ms - Date.now()) / 1000));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const hh = Math.floor(s / 3600); s -= hh * 3600;
  const mm = Math.floor(s / 60); s -= mm * 60;
  return d ? t("watch.d_h", { d, h: hh }) : hh ? t("watch.h_min", { h: hh, m: mm }) : t("watch.min_s", { m: mm, s });
}

// Game names from the glossary: the rulebook's own in its language (i18n.js).
export const title = (g) => gameTitle(g);
