// The table page (/games/{id}): a client of the public API like any other.
// It renders the seat's own `view` from GET /api/v1/games/{id}, follows the
// game's SSE stream (the session cookie authenticates it), and acts with
// POST .../actions. What each game looks like lives in games/<game>.js; this
// module does what every game shares: seats and clocks, "Your moves", the
// dialogs of composite actions, the move list and the result.
import { endActions } from "./table-end.js";
import { keep as keepReceipt, receiptsLink } from "./receipts.js";
import { h, cardEl, ordinal, trickEl } from "./table-ui.js";
import { api, clientSeed, commandId, currentPlayer, describe as errorText, follow, takeSeat } from "./api.js";
import { t, tp, gameTitle, list } from "./i18n.js";

const root = document.getElementById("table");
const gameId = root.dataset.gameId;
const statusLine = document.getElementById("table-status");

let info = null; // the latest GET /api/v1/games/{id}
let mod = null; // games/<game>.js
let offsetMs = 0; // server clock minus ours: clocks count down by the server's time
// After a move is sent, no button is enabled until the page shows the state
// the move made (its version): a second click would act on a stale turn.
let sending = false;
let minVersion = 0;
const regions = {};
const buttons = new Map(); // key -> button, kept across renders so focus stays put
// Keyboard users keep their place: when the focused move goes (a card played)
// or is disabled while a move is under way, focus waits on the "Your moves"
// heading and returns to the same place once moves are enabled again, unless
// the person has gone elsewhere meanwhile. The index of that place, or null.
let parkedAt = null;

// Seat names as a person says them: a house bot "Bot (heuristic)", anyone
// else their own name; twins (two bots of a kind, two namesakes) get a
// number by seating order: "Bot (random) 1", "Bot (random) 2".
function baseName(s, seat) {
  if (s && s.kind === "bot") return s.bot ? t("table.bot_named", { bot: s.bot }) : t("table.bot");
  return (s && s.name) || t("common.seat", { n: seat + 1 });
}

function names(seat) {
  if (mod && mod.seatName) {
    const special = mod.seatName(seat, info);
    if (special) return special;
  }
  const seats = info ? info.seats : [];
  const name = baseName(seats[seat], seat);
  const twins = seats.map((x, i) => (x.taken || x.name ? baseName(x, i) : null)).map((n, i) => [n, i]).filter(([n]) => n === name);
  return twins.length > 1 ? t("table.name_twin", { name, n: twins.findIndex(([, i]) => i === seat) + 1 }) : name;
}

// `memo`: what the game's module keeps from the events this page has seen
// (mod.track): the last completed trick, past rounds' results. Only events
// the stream sent this viewer, so nothing hidden; a page loaded later gets
// the history, where a won trick's cards are already face down (GEN-1).
const ctx = { h, cardEl, name: names, ordinal, now: () => Date.now() + offsetMs, memo: {}, fold };

// A result or score table on the felt folds away (closed on a phone, open
// from 800 px wide unless `open: false`: a title that says it all); whether
// the person opened or closed it is kept across renders. `el`: an element
// whose first child is its title.
const wide = matchMedia("(min-width: 800px)");
const folds = new Map();
function fold(el, { open = true } = {}) {
  const kids = [...el.childNodes];
  const key = kids[0].textContent;
  const d = h("details", { class: el.className }, h("summary", {}, kids[0]), kids.slice(1));
  d.open = folds.has(key) ? folds.get(key) : open && wide.matches;
  d.addEventListener("toggle", () => folds.set(key, d.open));
  // A table wider than a phone scrolls sideways: a Tab stop, so the keyboard can scroll it too.
  for (const table of d.querySelectorAll("table")) table.tabIndex = 0;
  return d;
}

// --- loading and refreshing ----------------------------------------------------

let inFlight = false;
let dirty = false;

async function refresh() {
  // One GET at a time; events that arrive meanwhile ask for one more, so a
  // burst of events costs two requests and responses never arrive out of order.
  if (inFlight) { dirty = true; return; }
  inFlight = true;
  try {
    do {
      dirty = false;
      const sent = Date.now();
      const next = await api(`/api/v1/games/${encodeURIComponent(gameId)}`);
      const got = Date.now();
      if (typeof next.server_time_ms === "number") offsetMs = next.server_time_ms - Math.round((sent + got) / 2);
      await apply(next);
    } while (dirty);
  } catch (err) {
    showError(err);
  } finally {
    inFlight = false;
  }
}

async function apply(next) {
  const first = info === null;
  info = next;
  if (first) {
    mod = await import(`./games/${info.game}.js`);
    layout();
  }
  render();
  if (first) openStream();
  sendClientSeed();
}

let clientSeedSent = false;

/**
 * A seat the server gave this player (Play now, Play again) adds its client
 * seed while the table waits for the deal; one taken here sent it already
 * (takeSeat). Refusals are fine: the deal came first, or it was sent.
 */
function sendClientSeed() {
  if (clientSeedSent || !info.commitment || info.status !== "open" || info.your_seat === null) return;
  clientSeedSent = true;
  api(`/api/v1/games/${encodeURIComponent(gameId)}/client-seed`, {
    method: "POST",
    body: { client_seed: clientSeed(gameId) },
  }).catch(() => {});
}

function layout() {
  const title = document.getElementById("table-title");
  const name = gameTitle(info.game);
  title.textContent = name;
  document.title = `${name} · Hanamichi`;
  const help = h("p", { class: "help" }, h("a", { href: `/how-to-play/${info.game}` }, t("table.how_to_play", { game: name })));
  regions.turn = h("p", { class: "turn", id: "turn-line", "aria-live": "polite" });
  regions.join = h("p", { class: "join", hidden: true });
  regions.leaving = h("p", { class: "leaving", hidden: true });
  regions.error = h("p", { class: "error", role: "alert", id: "move-error" });
  // The felt: the seats around it, the trick in the middle, each card in
  // front of the seat that played it; the hand along its bottom edge.
  regions.board = h("div", { class: "board felt" });
  // "Last trick" and past results: kept across renders so focus stays put.
  regions.recall = h("div", { class: "recall", hidden: !mod.recall });
  regions.moves = h("div", { class: "move-buttons" });
  regions.movesHeading = h("h2", { tabindex: "-1" }, t("table.your_moves")); // where focus waits (parkedAt)
  regions.moves.addEventListener("keydown", arrowKeys);
  regions.yourMoves = h("section", { class: "your-moves", "aria-label": t("table.your_moves") }, regions.movesHeading, regions.error, regions.moves);
  regions.result = h("section", { class: "result", "aria-labelledby": "result-h", hidden: true });
  regions.log = h("ol", { class: "log", tabindex: "0", "aria-labelledby": "log-h" });
  // The move list opens on demand on a phone (the table fills the screen).
  const logBox = h("details", { class: "log-box" }, h("summary", {}, h("h2", { id: "log-h" }, t("table.move_list"))), regions.log);
  logBox.open = wide.matches;
  root.classList.add(`game-${info.game}`);
  root.append(
    help,
    regions.turn,
    regions.join,
    regions.leaving,
    regions.result,
    h("section", { class: "table-board", "aria-label": t("table.title") }, regions.board, regions.yourMoves, regions.recall),
    h("section", { class: "move-list", "aria-labelledby": "log-h" }, logBox),
  );
  setInterval(tick, 250);
}

// --- rendering -------------------------------------------------------------------

function render() {
  renderBoard();
  renderResult();
  renderMoves();
  renderTurn();
  renderJoin();
  renderLeaving();
  tick();
}

// Where each seat sits, seen from the viewer (a spectator: seat 0) at the
// bottom: 2 players, the other across; 3, across-left and across-right;
// 4, left, across, right; more, left, along the top, right. `card`: the
// trick's cell in front of the seat (table.css .mid).
function places(n, me) {
  const out = [];
  const top = n === 2 ? [1] : n === 3 ? [1, 2] : Array.from({ length: n - 3 }, (_, i) => i + 2);
  const cells = top.length === 1 ? ["t"] : top.length === 2 ? ["tl", "tr"] : top.length === 3 ? ["tl", "t", "tr"] : top.map(() => "t");
  for (let s = 0; s < n; s++) {
    const rel = (s - me + n) % n;
    if (rel === 0) out[s] = { slot: "me", card: "b" };
    else if (n >= 4 && rel === 1) out[s] = { slot: "left", card: "l" };
    else if (n >= 4 && rel === n - 1) out[s] = { slot: "right", card: "r" };
    else out[s] = { slot: "top", card: cells[top.indexOf(rel)] };
  }
  return out;
}

const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
let seenPlays = new Map(); // seat -> what it has in the trick (names of its cards)
let seenFlips = new Map(); // data-flip key -> data-face, for a pile that turns over
let seenWinner = null;
let fromRect = null; // where the card just clicked was

function renderBoard() {
  const view = info.view;
  const n = view && mod.seatCount ? mod.seatCount(view, info) : info.seats.length;
  const me = info.your_seat ?? 0;
  const at = places(n, me);
  if (!view || !mod.plays) {
    const inside = view ? [mod.board(view, info, ctx)].flat() : [h("p", { class: "hint" }, info.status === "open" ? t("table.waiting_sit") : t("table.nothing_yet"))];
    const plates = seatPlates(at, n);
    regions.board.replaceChildren(...arrange(plates, me), h("div", { class: "mid no-trick" }, h("div", { class: "centre" }, inside)));
    renderRecall();
    return;
  }
  const trick = mod.plays(view, info, ctx) || { plays: [] };
  const winner = trick.winner ?? null;
  const group = trickEl(ctx, trick, (seat) => `at-${at[seat] ? at[seat].card : "b"}`);
  const figs = [...group.querySelectorAll("figure")];
  const centre = [mod.centre(view, info, ctx)].flat().filter(Boolean);
  // Results and scores get a row of their own; so does all of it on a phone
  // with seats at the sides (the middle is the trick's then).
  const notes = centre.filter((el) => el.tagName === "DETAILS" || (n >= 4 && !wide.matches && !trick.none));
  // Two seats across (three players): each half of the middle is under its plate.
  const across = at.filter((p) => p.slot === "top").length;
  const mid = h("div", { class: `mid${trick.none ? " no-trick" : ""}${across === 2 ? " across-2" : ""}` }, h("div", { class: "centre" }, centre.filter((el) => !notes.includes(el))), trick.none ? null : group);
  const plates = seatPlates(at, n);
  // A kept trick about to go (the next card led): where its cards were, so they can fly to the winner.
  const leaving = seenWinner !== null && winner === null && !reducedMotion.matches
    ? [...regions.board.querySelectorAll(".trick.completed figure")].map((f) => [f, f.getBoundingClientRect()]) : [];
  regions.board.replaceChildren(notes.length ? h("div", { class: "notes" }, notes) : "", ...arrange(plates, me), mid);
  renderRecall();
  if (leaving.length) gather(leaving, seenWinner);
  motion(figs, winner);
  showPending();
}

// Motion where it explains (never awaited, never with reduced motion): a new
// card comes from the hand or the seat that played it; a won trick's cards
// lean toward the winner; a pile whose top changed turns over.
function motion(figs, winner) {
  const still = reducedMotion.matches;
  const plays = new Map(figs.map((f) => [Number(f.dataset.seat), [...f.querySelectorAll("[role=img]")].map((c) => c.getAttribute("aria-label")).join("|")]));
  const flips = new Map([...regions.board.querySelectorAll("[data-flip]")].map((el) => [el.dataset.flip, el]));
  if (!still) {
    for (const f of figs) {
      const seat = Number(f.dataset.seat);
      if (seenPlays.get(seat) === plays.get(seat) || winner !== null) continue;
      const plate = regions.board.querySelector(`.seat[data-seat="${seat}"]`);
      const from = seat === info.your_seat && fromRect ? fromRect : plate && plate.getBoundingClientRect();
      if (!from) continue;
      const to = f.getBoundingClientRect();
      const dx = from.left + from.width / 2 - (to.left + to.width / 2);
      const dy = from.top + from.height / 2 - (to.top + to.height / 2);
      f.animate([{ transform: `translate(${dx}px, ${dy}px) scale(0.8)` }, { transform: "none" }], { duration: 220, easing: "ease-out" });
    }
    if (winner !== null && seenWinner === null && seenPlays.size) {
      const w = figs.find((f) => Number(f.dataset.seat) === winner);
      const plate = regions.board.querySelector(`.seat[data-seat="${winner}"]`);
      if (w && plate) {
        const p = plate.getBoundingClientRect();
        for (const f of figs) {
          const r = f.getBoundingClientRect();
          const dx = (p.left + p.width / 2 - (r.left + r.width / 2)) * 0.25;
          const dy = (p.top + p.height / 2 - (r.top + r.height / 2)) * 0.25;
          f.animate([{ transform: "none" }, { transform: `translate(${dx}px, ${dy}px) scale(0.92)`, offset: 0.6 }, { transform: "none" }], { duration: 280, easing: "ease-in-out" });
        }
      }
    }
    for (const [key, el] of flips) {
      if (seenFlips.has(key) && seenFlips.get(key) !== el.dataset.face) el.animate([{ transform: "rotateY(90deg)" }, { transform: "none" }], { duration: 240, easing: "ease-out" });
    }
  }
  seenPlays = plays;
  seenWinner = winner;
  seenFlips = new Map([...flips].map(([k, el]) => [k, el.dataset.face]));
  fromRect = null;
}

// The plates in reading order: the viewer's, then round the table (left,
// across, right); the seats across share one row (.across).
function arrange(plates, me) {
  const n = plates.length;
  const byTurn = plates.map((_, i) => plates[(me + i) % n]);
  const across = h("div", { class: "across" }, byTurn.filter((p) => p.dataset.slot === "top"));
  const out = [];
  for (const p of byTurn) {
    if (p.dataset.slot !== "top") out.push(p);
    else if (!out.includes(across)) out.push(across);
  }
  if (!out.includes(across)) out.push(across);
  return out;
}

// The won trick's cards go to the winner's seat: copies (hidden from screen
// readers, removed when done) fly from where the cards lay to the plate.
function gather(leaving, winner) {
  const plate = regions.board.querySelector(`.seat[data-seat="${winner}"]`);
  if (!plate) return;
  const p = plate.getBoundingClientRect();
  for (const [f, r] of leaving) {
    const ghost = f.cloneNode(true);
    ghost.querySelector("figcaption")?.remove();
    ghost.setAttribute("aria-hidden", "true");
    ghost.classList.add("ghost");
    Object.assign(ghost.style, { position: "fixed", left: `${r.left}px`, top: `${r.top}px`, margin: "0", pointerEvents: "none", zIndex: "5" });
    document.body.append(ghost);
    const dx = p.left + p.width / 2 - (r.left + r.width / 2);
    const dy = p.top + p.height / 2 - (r.top + r.height / 2);
    const a = ghost.animate([{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(0.4)`, opacity: 0 }], { duration: 260, easing: "ease-in" });
    a.onfinish = a.oncancel = () => ghost.remove();
  }
}

function seatPlates(at, n = info.seats.length) {
  const view = info.view;
  const out = [];
  for (let i = 0; i < n; i++) {
    const s = info.seats[i] || { taken: true };
    const acting = info.to_act.includes(i);
    const slot = at ? at[i].slot : "top";
    const bits = view && mod.seatInfo ? mod.seatInfo(view, i, info, ctx) : [];
    const cards = view && mod.handSize && (i !== info.your_seat) ? mod.handSize(view, i) : 0;
    const kind = s.kind === "agent" ? " " + t("table.agent") : "";
    out.push(h("div", { class: `seat slot-${slot}${acting ? " acting" : ""}`, "data-seat": i, "data-slot": slot, "aria-current": acting ? "true" : null },
      h("span", { class: "seat-name" }, (s.taken ? names(i) : t("table.open_seat")) + kind + (i === info.your_seat ? " " + t("table.you") : "")),
      cards ? h("span", { class: "backs", role: "img", "aria-label": tp("unit.cards", cards) }, Array.from({ length: Math.min(cards, 12) }, () => h("span", { class: "back" }))) : null,
      bits.length ? h("span", { class: "seat-extra" }, bits.map((b) => h("span", {}, b))) : null,
      h("span", { class: "clock", "data-seat": i }),
      !s.taken && info.you_created && info.status === "open" ? addBotButton(i) : null));
  }
  return out;
}

function renderTurn() {
  let text;
  if (info.status === "finished") text = t("table.over"); // the one "game over" sentence (the status line says nothing then)
  else if (info.status === "cancelled") text = t("table.cancelled");
  else if (info.status === "open") text = t("table.waiting_players");
  else if (info.legal_actions.length) text = t("table.your_turn");
  else {
    const others = info.to_act.filter((s) => s !== info.your_seat).map(names);
    text = others.length ? t("table.waiting_for", { names: list(others) }) : t("table.waiting");
  }
  if (regions.turn.textContent !== text) regions.turn.textContent = text;
}

// An open table (an invite link lands here): a seat for whoever is signed in.
async function renderJoin() {
  const open = info.status === "open" && info.your_seat === null && info.seats.some((s) => !s.taken);
  if (!open) { regions.join.hidden = true; return; }
  const player = await currentPlayer();
  if (player) {
    if (!regions.join.querySelector("button")) {
      const b = h("button", { type: "button" }, t("table.take_seat"));
      b.addEventListener("click", async () => {
        b.disabled = true;
        try {
          await takeSeat(gameId);
        } catch (err) {
          showError(err);
          b.disabled = false;
        }
        refresh();
      });
      regions.join.replaceChildren(b);
    }
  } else {
    regions.join.replaceChildren(h("a", { href: "/signin" }, t("nav.signin")), " " + t("table.to_sit"));
  }
  regions.join.hidden = false;
}

// No table traps anyone: the creator seats a house bot at an open seat or
// cancels the table before the deal; anyone seated may leave (a house bot
// then plays the seat, ranked last, once the cards are dealt).
let defaultBot = null; // the catalog's default bot for this game

function addBotButton(seat) {
  const b = h("button", { type: "button", class: "add-bot" }, t("table.add_bot"));
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      if (!defaultBot) {
        const spec = (await api("/api/v1/games/catalog")).find((g) => g.game === info.game);
        defaultBot = spec.default_bot || spec.bots[0];
      }
      await api(`/api/v1/games/${encodeURIComponent(gameId)}/bots`, { method: "POST", body: { seat, bot: defaultBot } });
    } catch (err) {
      showError(err);
      b.disabled = false;
    }
    refresh();
  });
  return b;
}

function renderLeaving() {
  const seat = info.your_seat;
  const active = info.status === "open" || info.status === "playing";
  const seated = active && seat !== null && !info.seats[seat].bot;
  const host = info.you_created && info.status === "open";
  if (!seated && !host) { regions.leaving.hidden = true; regions.leaving.replaceChildren(); return; }
  const wanted = [host ? "cancel" : null, seated ? "leave" : null].filter(Boolean).join(",");
  if (regions.leaving.dataset.shown === wanted) { regions.leaving.hidden = false; return; }
  regions.leaving.dataset.shown = wanted;
  const items = [];
  if (seated) {
    const leave = h("button", { type: "button" }, t("table.leave"));
    leave.addEventListener("click", () => confirmLeave(leave));
    items.push(leave);
  }
  if (host) {
    const cancel = h("button", { type: "button" }, t("table.cancel_table"));
    cancel.addEventListener("click", async () => {
      cancel.disabled = true;
      try {
        await api(`/api/v1/games/${encodeURIComponent(gameId)}`, { method: "DELETE" });
      } catch (err) {
        showError(err);
        cancel.disabled = false;
      }
      refresh();
    });
    items.push(" ", cancel);
  }
  regions.leaving.replaceChildren(...items);
  regions.leaving.hidden = false;
}

function confirmLeave(opener) {
  const dlg = h("dialog", { "aria-labelledby": "leave-h" });
  const note = h("p", {}, info.status === "playing" ? t("table.leave_playing") : t("table.leave_open"));
  const leave = h("button", { type: "button" }, t("table.leave_confirm"));
  const stay = h("button", { type: "button" }, t("table.stay"));
  leave.addEventListener("click", async () => {
    leave.disabled = true;
    try {
      await api(`/api/v1/games/${encodeURIComponent(gameId)}/leave`, { method: "POST" });
      dlg.close();
    } catch (err) {
      dlg.close();
      showError(err);
    }
    refresh();
  });
  stay.addEventListener("click", () => dlg.close());
  dlg.append(h("h2", { id: "leave-h" }, t("table.leave_title")), note, h("p", { class: "buttons" }, leave, stay));
  dlg.addEventListener("close", () => { dlg.remove(); if (opener.isConnected) opener.focus(); });
  document.body.append(dlg);
  dlg.showModal();
}

function renderResult() {
  const result = info.result;
  if (!result) { regions.result.hidden = true; return; }
  const places = result.table_places || result.places;
  const order = places.map((p, s) => [p, s]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const items = order.map(([p, s]) => h("li", {},
    t("table.place_line", { place: ordinal(p), name: names(s), score: mod.scoreText ? mod.scoreText(result.scores[s]) : tp("unit.points", result.scores[s]) })
    + ((result.forfeited || []).includes(s) ? " " + t("table.forfeited") : "")));
  regions.result.replaceChildren(h("h2", { id: "result-h", tabindex: "-1" }, t("table.result")), h("ol", { class: "places" }, items),
    h("p", {}, h("a", { href: `/games/${encodeURIComponent(gameId)}/replay` }, t("table.replay_link"))),
    ...[receiptsLink(gameId, t("table.receipts_download")), endActions(info, showError)].filter(Boolean)); // replaceChildren would print a null as "null"
  regions.result.hidden = false;
}

// "Last trick" (any time) and the game's past results, each one click away:
// the module lists them ({key, label, title, body()}); a button opens a
// dialog with what the page has seen (ctx.memo).
const recallButtons = new Map();

function renderRecall() {
  if (!mod.recall) return;
  const items = mod.recall(ctx.memo, info, ctx);
  const list = items.map((item) => {
    let b = recallButtons.get(item.key);
    if (!b) {
      b = h("button", { type: "button", "aria-haspopup": "dialog" });
      b.addEventListener("click", () => openRecall(b, b._item));
      recallButtons.set(item.key, b);
    }
    b._item = item;
    if (b.textContent !== item.label) b.textContent = item.label;
    return b;
  });
  const same = list.length === regions.recall.children.length && list.every((b, i) => regions.recall.children[i] === b);
  if (!same) regions.recall.replaceChildren(...list);
}

function openRecall(opener, item) {
  const id = `recall-${Math.random().toString(36).slice(2)}`;
  const dlg = h("dialog", { class: "move-dialog recall-dialog", "aria-labelledby": `${id}-h` });
  const close = h("button", { type: "button" }, t("table.close"));
  close.addEventListener("click", () => dlg.close());
  dlg.append(h("h2", { id: `${id}-h` }, item.title), ...[item.body()].flat().filter(Boolean), h("p", { class: "buttons" }, close));
  dlg.addEventListener("close", () => { dlg.remove(); if (opener.isConnected) opener.focus(); });
  document.body.append(dlg);
  dlg.showModal();
  close.focus();
}

// "Your moves": one button per card in hand and per other action the game
// has, enabled exactly when legal_actions offers it now.
function renderMoves() {
  const before = document.activeElement;
  if (info.status === "finished" || info.status === "cancelled") {
    // No moves left: no buttons at all (focus, if it was there, goes to the result).
    const had = regions.yourMoves.contains(before);
    regions.yourMoves.hidden = true;
    regions.moves.replaceChildren();
    buttons.clear();
    if (had && regions.result.firstChild) regions.result.firstChild.focus({ preventScroll: true });
    return;
  }
  const focusedAt = regions.moves.contains(before) ? [...regions.moves.children].indexOf(before) : -1;
  const legal = info.legal_actions || [];
  const items = info.view && info.your_seat !== null && info.your_seat !== undefined ? mod.moves(info.view, info, ctx) : [];
  const seen = new Set();
  const list = [];
  for (const item of items) {
    seen.add(item.key);
    let b = buttons.get(item.key);
    if (!b) {
      b = h("button", { type: "button" });
      b.addEventListener("click", () => onMove(b._item));
      buttons.set(item.key, b);
    }
    b._item = item;
    b.className = `move ${item.cls || ""}`;
    b.setAttribute("aria-label", item.label);
    b.replaceChildren(...[item.face || item.label].flat());
    const candidates = legal.filter(item.dialog ? item.dialog.filter : item.match);
    b.disabled = candidates.length === 0 || sending || info.version < minVersion;
    if (item.dialog) b.setAttribute("aria-haspopup", "dialog"); else b.removeAttribute("aria-haspopup");
    describe(b, item);
    list.push(b);
  }
  for (const key of [...buttons.keys()]) if (!seen.has(key)) buttons.delete(key);
  if (!list.length) list.push(h("p", { class: "hint" }, info.your_seat === null || info.your_seat === undefined ? t("table.watching") : t("table.no_moves")));
  regions.moves.replaceChildren(...list);
  keepFocus(before, focusedAt, list);
}

// A move that explains itself (a Tezuma ability, `item.hint` {help, text}):
// what it does on hover (title) and, on screen for every input (touch has
// no hover, a disabled button takes no focus), a line saying why it cannot
// be played now, or what it does while it can; the button names the line
// as its description.
function describe(b, item) {
  if (!item.hint) { b.removeAttribute("aria-describedby"); b.removeAttribute("title"); return; }
  const id = `hint-${item.key}`;
  let line = document.getElementById(id);
  if (!line) {
    line = h("p", { class: "move-hint", id });
    regions.yourMoves.append(line);
  }
  if (line.textContent !== item.hint.text) line.textContent = item.hint.text;
  b.title = item.hint.help;
  b.setAttribute("aria-describedby", id);
}

// Re-adding the buttons drops focus (a removed node loses it), and a played
// card's button is gone: put focus back where the person was (see parkedAt).
function keepFocus(before, focusedAt, list) {
  const active = document.activeElement;
  if (focusedAt >= 0 && (active !== before || before.disabled)) parkedAt = focusedAt;
  else if (active !== regions.movesHeading && active !== document.body && active !== null) parkedAt = null; // elsewhere
  if (parkedAt === null) return;
  const enabled = list.filter((b) => b.tagName === "BUTTON" && !b.disabled);
  if (!enabled.length) { regions.movesHeading.focus({ preventScroll: true }); return; }
  const target = enabled.includes(before) ? before : list.slice(parkedAt).find((b) => enabled.includes(b)) || enabled[enabled.length - 1];
  parkedAt = null;
  target.focus({ preventScroll: true });
}

// Arrow keys (and Home/End) move between the enabled moves; Tab still leaves.
function arrowKeys(e) {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
  if (!step && e.key !== "Home" && e.key !== "End") return;
  const enabled = [...regions.moves.querySelectorAll("button:enabled")];
  if (!enabled.length) return;
  e.preventDefault();
  const i = enabled.indexOf(document.activeElement);
  const n = enabled.length;
  const next = e.key === "Home" ? 0 : e.key === "End" ? n - 1 : i < 0 ? (step > 0 ? 0 : n - 1) : (i + step + n) % n;
  enabled[next].focus();
}

function tick() {
  if (!info) return;
  const now = Date.now() + offsetMs;
  for (const el of regions.board.querySelectorAll(".clock")) {
    const seat = Number(el.dataset.seat);
    const c = (info.clock || []).find((x) => x.seat === seat);
    let text = "";
    if (c && info.status === "playing") {
      const move = Math.max(0, c.deadline_ms - now);
      text = t("table.clock", { move: fmt(move), bank: fmt(c.bank_ms) });
      el.classList.toggle("low", move < 10000);
    } else if (c && info.status !== "finished") text = t("table.bank", { bank: fmt(c.bank_ms) });
    if (el.textContent !== text) el.textContent = text;
  }
  if (mod && mod.tick) mod.tick(root, info, ctx);
}

function fmt(ms) {
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// --- acting ------------------------------------------------------------------------

function onMove(item) {
  const b = buttons.get(item.key);
  const face = b && b.querySelector(".card");
  fromRect = face ? face.getBoundingClientRect() : null;
  const legal = info.legal_actions || [];
  if (item.dialog) return openDialog(item, legal.filter(item.dialog.filter));
  const action = legal.find(item.match);
  if (!action) return;
  // A card clicked is a card played: it lies on the table at once, as at a
  // real one (the button was enabled because the server offers exactly this
  // move); the server's answer confirms it, a refusal takes it back.
  if (face && mod.plays) pending = face.cloneNode(true);
  send(action);
  if (pending) showPending();
}

async function send(action) {
  regions.error.textContent = "";
  sending = true;
  renderMoves();
  try {
    const accepted = await api(`/api/v1/games/${encodeURIComponent(gameId)}/actions`, { method: "POST", body: { action, command_id: commandId() } });
    minVersion = Math.max(minVersion, accepted.version);
    keepReceipt(gameId, accepted.version, accepted.chain_head);
  } catch (err) {
    if (pending) { pending = null; renderBoard(); }
    showError(err);
  } finally {
    sending = false;
  }
  refresh();
}

// The card this person has just played, until the board shows it from the
// server's events (renderBoard draws the felt anew and puts it back meanwhile).
let pending = null;

function showPending() {
  const me = info.your_seat;
  const group = regions.board.querySelector(".mid > .trick:not(.completed)");
  if (!pending || me === null || me === undefined || !group) return;
  const label = pending.getAttribute("aria-label");
  const mine = [...group.querySelectorAll(`figure[data-seat="${me}"] [role=img]`)];
  if (mine.some((c) => c.getAttribute("aria-label") === label)) {
    pending = null; // the events have it now
    return;
  }
  const n = info.view && mod.seatCount ? mod.seatCount(info.view, info) : info.seats.length;
  group.querySelector(":scope > .hint")?.remove();
  const fig = h("figure", { class: `at-${places(n, me)[me].card} pending`, "data-seat": me }, pending.cloneNode(true),
    h("figcaption", {}, h("span", { class: "who" }, names(me))));
  group.append(fig);
  if (fromRect && !reducedMotion.matches) {
    const to = fig.getBoundingClientRect();
    const dx = fromRect.left + fromRect.width / 2 - (to.left + to.width / 2);
    const dy = fromRect.top + fromRect.height / 2 - (to.top + to.height / 2);
    fig.animate([{ transform: `translate(${dx}px, ${dy}px) scale(0.8)` }, { transform: "none" }], { duration: 220, easing: "ease-out" });
  }
  fromRect = null;
  seenPlays.set(me, label); // the events' drawing of it does not fly in a second time
}

function showError(err) {
  const text = errorText(err);
  if (regions.error) regions.error.textContent = text;
  else statusLine.textContent = text;
}

// A composite action: labelled controls over exactly the legal actions of
// its kind; "Confirm" sends the one the controls name (disabled when that
// combination is not allowed now). It opens on the first legal choice.
function openDialog(item, candidates) {
  const spec = item.dialog;
  if (!candidates.length) return;
  const id = `dlg-${Math.random().toString(36).slice(2)}`;
  const dlg = h("dialog", { class: "move-dialog", "aria-labelledby": `${id}-h` });
  const form = h("form", { method: "dialog" });
  const selects = spec.fields.map((f, i) => {
    const values = [];
    for (const a of candidates) { const v = String(f.get(a)); if (!values.includes(v)) values.push(v); }
    if (f.sort) values.sort(f.sort);
    const sel = h("select", { id: `${id}-f${i}`, name: `f${i}` }, values.map((v) => h("option", { value: v }, f.text ? f.text(v, info.view) : v)));
    sel.value = String(f.get(candidates[0]));
    form.append(h("p", { class: "field" }, h("label", { for: `${id}-f${i}` }, f.label), sel));
    return sel;
  });
  const note = h("p", { class: "note", role: "status" });
  const confirm = h("button", { type: "submit", class: "primary", value: "confirm" }, t("table.confirm"));
  const cancel = h("button", { type: "button" }, t("table.cancel"));
  const chosen = () => candidates.find((a) => spec.fields.every((f, i) => String(f.get(a)) === selects[i].value));
  const update = () => {
    const a = chosen();
    confirm.disabled = !a;
    note.textContent = a ? (spec.explain ? spec.explain(a, info.view) : "") : t("table.not_allowed");
  };
  form.addEventListener("change", update);
  cancel.addEventListener("click", () => dlg.close());
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const a = chosen();
    dlg.close();
    if (a) send(a);
  });
  if (spec.intro) form.prepend(h("p", {}, spec.intro));
  form.prepend(h("h2", { id: `${id}-h` }, spec.title));
  form.append(note, h("p", { class: "buttons" }, confirm, cancel));
  dlg.append(form);
  dlg.addEventListener("close", () => { dlg.remove(); const b = buttons.get(item.key); if (b && !b.disabled) b.focus(); });
  document.body.append(dlg);
  update();
  dlg.showModal();
}

// --- live updates -------------------------------------------------------------------

function openStream() {
  follow(`/api/v1/games/${encodeURIComponent(gameId)}/stream`, {
    game(data) {
      if (mod.track) {
        // The board shows a trick's completion as the event comes, not a
        // GET later (by then a house bot may have led the next trick).
        ctx.memo.version = data.version;
        mod.track(ctx.memo, data.event, ctx);
        if (info && info.view) renderBoard();
      }
      logEvent(data.event, data.version);
      refresh();
    },
    turn(data) {
      if (data && typeof data === "object") keepReceipt(gameId, data.version, data.chain_head);
      refresh();
    },
    end(data) { // follow() stops after `end`; a seat's end brings the head of the whole log
      if (data && typeof data === "object") keepReceipt(gameId, data.version, data.chain_head);
      refresh();
    },
  }, {
    onStatus(s) {
      statusLine.textContent = s === "live" ? t("table.live") : s === "reconnecting" ? t("table.reconnecting") : ""; // the turn line says the game is over
      statusLine.dataset.state = s;
      if (s === "live") refresh(); // whatever changed while we were away
    },
  });
}

function logEvent(event, version) {
  const lines = [mod.describe(event, ctx, info) || describeTable(event)].flat().filter(Boolean);
  if (!lines.length) return;
  const atBottom = regions.log.scrollHeight - regions.log.scrollTop - regions.log.clientHeight < 40;
  const [head, ...rest] = lines;
  const li = h("li", { class: `ev ev-${String(event.type).replace(/\W/g, "-")}`, "data-version": version }, head);
  if (rest.length) li.append(h("ul", {}, rest.map((t) => h("li", {}, t))));
  regions.log.append(li);
  if (atBottom) regions.log.scrollTop = regions.log.scrollHeight;
}

function describeTable(event) {
  switch (event.type) {
    case "hm.game_finished": return null; // the game's own end event says it
    case "hm.move_played_for_seat":
      return t("reason.move_played", { name: names(event.seat), reason: t(`agents.reason.${event.reason}`), strikes: event.strikes });
    case "hm.seat_handed_to_bot": return t("reason.handed", { name: names(event.seat) });
    default: return null;
  }
}

refresh();
