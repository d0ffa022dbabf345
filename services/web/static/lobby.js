// The lobby (/): open tables, tables in play, recently finished; a "New
// table" form built from the catalog. While the page is visible it follows
// the lobby's stream (GET /api/v1/lobby/stream: the three lists at once, then
// again whenever they change); a list is re-drawn only when it changed (so
// focus and the reader's place stay put). While the stream is broken the
// lists are read every 15 s, and the stream is opened again.
import { api, currentPlayer, describe, takeSeat as sit } from "./api.js";
import { t, tp, gameTitle, hasText } from "./i18n.js";

const SLOW_POLL_MS = 15000;
const LISTS = [
  ["open", "tables-open", 20],
  ["playing", "tables-playing", 20],
  ["finished", "tables-finished", 10],
];

const player = await currentPlayer().catch(() => null);
const catalog = await api("/api/v1/games/catalog");
const byName = Object.fromEntries(catalog.map((g) => [g.game, g]));
const status = document.getElementById("lobby-status");

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...children.filter((c) => c !== null && c !== undefined));
  return el;
}

// An option's name and value as the person's language says them; a key
// without a text of its own (a new option) still reads as words.
const words = (key) => key.replace(/_/g, " ").replace(/\bms\b/, "(ms)");
const human = (key) => (hasText(`opt.${key}`) ? t(`opt.${key}`) : words(key));
const humanValue = (v) => (hasText(`opt.value.${v}`) ? t(`opt.value.${v}`) : words(String(v)));
const title = (game) => gameTitle(game) ?? byName[game]?.title ?? game;

function optionsText(table) {
  const defaults = byName[table.game]?.options ?? {};
  const changed = Object.entries(table.options).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(defaults[k]));
  if (!changed.length) return t("lobby.standard");
  return changed.map(([k, v]) => `${human(k)}: ${typeof v === "object" ? t("lobby.custom") : humanValue(v)}`).join(", ");
}

function clockText(tc) {
  if (!tc) return t("lobby.untimed");
  const s = Math.round(tc.move_ms / 1000);
  return tc.bank_ms ? t("lobby.per_move_bank", { s, bank: Math.round(tc.bank_ms / 1000) }) : t("lobby.per_move", { s });
}

function seatItem(seat) {
  if (!seat.taken) return h("li", { text: t("table.open_seat") });
  const kind = seat.kind === "bot" ? "bot" : seat.kind === "agent" ? "agent" : null;
  return h("li", {}, seat.name ?? "?", kind ? h("span", { class: `badge ${kind}`, text: kind === "bot" ? t("tn.kind.bot") : t("tn.kind.agent") }) : null);
}

async function takeSeat(table, button) {
  button.disabled = true;
  try {
    await sit(table.game_id);
    window.location.assign(`/games/${table.game_id}`);
  } catch (err) {
    status.textContent = describe(err);
    button.disabled = false;
  }
}

function tableCard(table) {
  const invite = `${window.location.origin}/games/${table.game_id}`;
  const heading = t("lobby.heading", { game: title(table.game), players: tp("lobby.players", table.players) });
  const mine = player && table.seats.some((s) => s.taken && s.name === player.name);
  const free = table.seats.some((s) => !s.taken);
  const actions = h("div", { class: "actions" });
  if (table.status === "open" && free && player && !mine) {
    const join = h("button", { type: "button", text: t("table.take_seat"), "aria-label": t("lobby.take_seat_at", { table: heading }) });
    join.addEventListener("click", () => takeSeat(table, join));
    actions.append(join);
  }
  const verb = mine ? t("lobby.go") : table.status === "finished" ? t("lobby.see_result") : t("live.watch");
  actions.append(h("a", { href: `/games/${table.game_id}`, text: verb, "aria-label": `${verb}: ${heading}` }));
  if (table.status === "open") {
    const copy = h("button", { type: "button", class: "secondary", text: t("lobby.copy_invite"), "aria-label": t("lobby.copy_invite_to", { table: heading }) });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(invite);
        status.textContent = t("lobby.copied");
      } catch {
        status.textContent = t("lobby.invite_is", { link: invite });
      }
    });
    actions.append(copy, h("a", { class: "invite", href: invite, text: t("lobby.invite"), "aria-label": t("lobby.invite_to", { table: heading }) }));
  }
  return h(
    "li",
    { class: "table-card", "data-game-id": table.game_id },
    h("article", { "aria-label": heading },
      h("h3", {}, heading, table.ranked ? h("span", { class: "badge ranked", text: t("live.ranked") }) : null),
      h("p", { class: "meta", text: `${optionsText(table)} · ${clockText(table.time_control)}${table.tournament_id ? " · " + t("live.tournament") : ""}` }),
      h("ol", { class: "seats", "aria-label": t("lobby.seats") }, ...table.seats.map(seatItem)),
      actions,
    ),
  );
}

const drawn = {};

function draw(which, id, page) {
  const key = JSON.stringify(page.games);
  if (drawn[which] === key) return;
  drawn[which] = key;
  document.getElementById(id).replaceChildren(...page.games.map(tableCard));
}

function reached() {
  if (status.dataset.offline) {
    delete status.dataset.offline;
    status.textContent = "";
  }
}

// The fallback while the stream is broken: the three lists, read.
async function poll() {
  try {
    await Promise.all(LISTS.map(async ([which, id, limit]) => {
      draw(which, id, await api(`/api/v1/games?status=${which}&limit=${limit}`));
    }));
    reached();
  } catch {
    status.dataset.offline = "1";
    status.textContent = t("lobby.offline");
  }
}

let source = null;
let slowPoll = null;
let reopen = null;

function stopSlowPoll() {
  clearInterval(slowPoll);
  slowPoll = null;
}

function follow() {
  clearTimeout(reopen);
  if (source || document.visibilityState !== "visible") return;
  source = new EventSource("/api/v1/lobby/stream");
  source.addEventListener("lobby", (e) => {
    const lobby = JSON.parse(e.data);
    for (const [which, id] of LISTS) draw(which, id, lobby[which]);
    reached();
    stopSlowPoll();
    // Play now's counts (quickplay.js) come with it.
    document.documentElement.dataset.lobbyStream = "open";
    document.dispatchEvent(new CustomEvent("hm:lobby", { detail: lobby }));
  });
  source.addEventListener("error", () => {
    document.documentElement.dataset.lobbyStream = "lost";
    if (!slowPoll) {
      poll();
      slowPoll = setInterval(poll, SLOW_POLL_MS);
    }
    // A dropped connection is retried by the browser; a refusal (503) closes
    // the stream for good: open it again after a while.
    if (source.readyState === EventSource.CLOSED) {
      source = null;
      reopen = setTimeout(follow, SLOW_POLL_MS);
    }
  });
}

function unfollow() {
  delete document.documentElement.dataset.lobbyStream;
  clearTimeout(reopen);
  stopSlowPoll();
  source?.close();
  source = null;
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") follow();
  else unfollow();
});
follow();

// --- New table ---------------------------------------------------------------

const form = document.getElementById("new-table-form");
if (!player) {
  document.getElementById("new-table-signin").hidden = false;
} else {
  buildForm();
  form.hidden = false;
}

function field(label, input, cls = "field") {
  return h("p", { class: cls }, h("label", { for: input.id, text: label }), input);
}

function buildForm() {
  const game = h("select", { id: "nt-game", name: "game" }, ...catalog.map((g) => h("option", { value: g.game, text: title(g.game) })));
  const players = h("input", { id: "nt-players", name: "players", type: "number", required: true });
  const options = h("fieldset", {}, h("legend", { text: t("lobby.options") }));
  const seats = h("fieldset", {}, h("legend", { text: t("lobby.seats") }));
  const timed = h("input", { id: "nt-timed", type: "checkbox" });
  const moveS = h("input", { id: "nt-move-s", type: "number", min: "1", max: "3600", value: "60" });
  const bankS = h("input", { id: "nt-bank-s", type: "number", min: "0", max: "36000", value: "0" });
  const ranked = h("input", { id: "nt-ranked", type: "checkbox" });
  const error = h("p", { class: "error", role: "alert", id: "nt-error" });
  const submit = h("button", { type: "submit", text: t("lobby.create") });

  const drawOptions = () => {
    const spec = byName[game.value];
    options.replaceChildren(h("legend", { text: t("lobby.options") }));
    const grid = h("div", { class: "form-grid" });
    for (const [key, value] of Object.entries(spec.options)) {
      const id = `nt-opt-${key}`;
      let input;
      if (typeof value === "boolean") {
        input = h("input", { id, type: "checkbox", "data-option": key, "data-kind": "bool", checked: value });
        grid.append(field(human(key), input, "field inline"));
        continue;
      }
      const choices = spec.option_choices?.[key];
      if (choices) {
        input = h("select", { id, "data-option": key, "data-kind": "choice" },
          ...choices.map((c) => h("option", { value: JSON.stringify(c), text: humanValue(c) })));
        input.value = JSON.stringify(value);
      } else if (typeof value === "number") input = h("input", { id, type: "number", value: String(value), "data-option": key, "data-kind": "number" });
      else if (typeof value === "string") input = h("input", { id, type: "text", value, "data-option": key, "data-kind": "text" });
      else {
        input = h("textarea", { id, "data-option": key, "data-kind": "json", rows: "3" });
        input.value = JSON.stringify(value);
      }
      grid.append(field(human(key), input));
    }
    if (!Object.keys(spec.options).length) grid.append(h("p", { class: "hint", text: t("lobby.no_options") }));
    options.append(grid);
  };

  const drawSeats = () => {
    const spec = byName[game.value];
    const n = Number(players.value);
    const kept = [...seats.querySelectorAll("select")].map((s) => s.value);
    seats.replaceChildren(h("legend", { text: t("lobby.seats") }), h("p", { class: "hint", text: t("lobby.seat1") }));
    const grid = h("div", { class: "form-grid" });
    for (let i = 1; i < n; i++) {
      const select = h("select", { id: `nt-seat-${i}`, "data-seat": String(i) },
        h("option", { value: "", text: t("lobby.open_person") }),
        ...spec.bots.map((b) => h("option", { value: b, text: t("lobby.house_bot", { bot: b }) })));
      // The other seats default to the catalog's default house bot: a table
      // of one person starts at once instead of waiting for people who may never come.
      select.value = spec.default_bot || spec.bots[0] || "";
      if (kept[i - 1] !== undefined && [...select.options].some((o) => o.value === kept[i - 1])) select.value = kept[i - 1];
      grid.append(field(t("common.seat", { n: i + 1 }), select));
    }
    seats.append(grid);
  };

  const drawPlayers = () => {
    const spec = byName[game.value];
    players.min = String(spec.min_players);
    players.max = String(spec.max_players);
    const v = Number(players.value);
    if (!v || v < spec.min_players || v > spec.max_players) players.value = String(Math.min(Math.max(v || 4, spec.min_players), spec.max_players));
  };

  game.addEventListener("change", () => { drawPlayers(); drawOptions(); drawSeats(); });
  players.addEventListener("change", drawSeats);
  const timing = h("fieldset", {}, h("legend", { text: t("tn.time_control") }),
    field(t("lobby.timed"), timed, "field inline"), h("div", { class: "form-grid" }, field(t("lobby.seconds"), moveS), field(t("lobby.bank"), bankS)));
  form.append(
    h("div", { class: "form-grid" }, field(t("tn.f.game"), game), field(t("table.players"), players)),
    options, seats, timing, field(t("tn.f.ranked"), ranked, "field inline"), h("p", {}, submit), error,
  );
  drawPlayers();
  drawOptions();
  drawSeats();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const spec = byName[game.value];
    const body = { game: game.value, players: Number(players.value), options: {}, ranked: ranked.checked };
    try {
      for (const input of options.querySelectorAll("[data-option]")) {
        const key = input.dataset.option;
        const kind = input.dataset.kind;
        let value = kind === "bool" ? input.checked : kind === "number" ? Number(input.value) : input.value;
        if (kind === "choice") value = JSON.parse(input.value);  // the catalog's option_choices, as given
        if (kind === "json") {
          try { value = JSON.parse(input.value); } catch { throw new Error(t("lobby.bad_json", { option: human(key) })); }
        }
        if (JSON.stringify(value) !== JSON.stringify(spec.options[key])) body.options[key] = value;
      }
    } catch (err) {
      error.textContent = err.message;
      return;
    }
    if (timed.checked) body.time_control = { move_ms: Number(moveS.value) * 1000, bank_ms: Number(bankS.value) * 1000 };
    submit.disabled = true;
    try {
      const table = await api("/api/v1/games", { method: "POST", body });
      await sit(table.game_id, 0);
      for (const select of seats.querySelectorAll("select")) {
        if (select.value) {
          await api(`/api/v1/games/${table.game_id}/bots`, { method: "POST", body: { seat: Number(select.dataset.seat), bot: select.value } });
        }
      }
      window.location.assign(`/games/${table.game_id}`);
    } catch (err) {
      error.textContent = describe(err);
      submit.disabled = false;
    }
  });
}
