// Tournaments (/tournaments): upcoming with a countdown and registration,
// running, finished; a form with every field of POST /api/v1/tournaments.
import { api, currentPlayer, describe } from "./api.js";
import { h, countdown, fmtDate, title } from "./watch-ui.js";
import { t as tr } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let me = null;
let mine = new Set(); // the upcoming tournaments the signed-in player is registered in
const statusName = (s) => ({ registering: tr("tn.status.registering"), running: tr("tn.status.running"), finished: tr("tn.status.finished"), cancelled: tr("tn.status.cancelled") })[s] || s;

async function register(t, button) {
  button.disabled = true;
  try {
    await api(`/api/v1/tournaments/${t.tournament_id}/registrations`, { method: "POST" });
    button.textContent = tr("tn.registered");
  } catch (err) {
    if (err.code === "already_registered") { // registered in another tab meanwhile
      button.textContent = tr("tn.registered");
      return;
    }
    button.disabled = false;
    button.after(h("span", { class: "error", role: "alert" }, ` ${describe(err)}`));
  }
}

function item(t) {
  const when = t.status === "registering"
    ? h("span", { class: "countdown", "data-start": t.start_ms }, tr("tn.starts_in", { time: countdown(t.start_ms) }))
    : fmtDate(t.start_ms);
  const registered = mine.has(t.tournament_id);
  const register_ = t.status === "registering" && me
    ? (registered ? h("span", { class: "badge" }, tr("tn.registered"))
      : h("button", { type: "button", class: "secondary", onclick: (e) => register(t, e.currentTarget) }, tr("tn.register")))
    : null;
  return h("li", { class: "table-card" }, h("h3", {}, h("a", { href: `/tournaments/${t.tournament_id}` }, tr("tn.heading", { game: title(t.game) }))),
    h("p", { class: "meta" }, when, ` · ${statusName(t.status)}`), register_ ? h("p", { class: "actions" }, register_) : null);
}

async function render() {
  me = await currentPlayer().catch(() => null);
  const all = await api("/api/v1/tournaments");
  const groups = { registering: [], running: [], finished: [] };
  for (const t of all) (groups[t.status === "cancelled" ? "finished" : t.status] || groups.finished).push(t);
  groups.registering.sort((a, b) => a.start_ms - b.start_ms);
  // The listing says nothing of who is registered: each upcoming one's summary does.
  if (me) {
    const summaries = await Promise.all(groups.registering.map((x) => api(`/api/v1/tournaments/${x.tournament_id}`).catch(() => null)));
    mine = new Set(summaries.filter((s) => s && s.registered.some((e) => e.id === me.player_id)).map((s) => s.tournament_id));
  }
  for (const [k, list] of Object.entries(groups)) $(`t-${k}`).replaceChildren(...list.map(item));
}

const ms = (v) => (v ? new Date(v).getTime() : undefined);
const num = (v) => (v === "" || v === null || v === undefined ? undefined : Number(v));

/** The body of POST /api/v1/tournaments from the form: empty fields are left out. */
export function body(form) {
  const f = new FormData(form);
  const points = {};
  for (const part of String(f.get("points") || "").split(";")) {
    const [size, list] = part.split(":");
    if (list) points[size.trim()] = list.split(",").map(Number);
  }
  const out = {
    game: f.get("game"), start_ms: ms(f.get("start")), format: f.get("format"), rounds: num(f.get("rounds")),
    table_size: num(f.get("table_size")), min_table_size: num(f.get("min_table_size")),
    min_entrants: num(f.get("min_entrants")), max_entrants: num(f.get("max_entrants")), bots: f.get("bots"),
    fill_bot: f.get("fill_bot") || undefined,
    fill_to: num(f.get("fill_to")), every_minutes: num(f.get("every_minutes")), opens_ms: ms(f.get("opens")),
    closes_ms: ms(f.get("closes")), advance: num(f.get("advance")), bye_points: num(f.get("bye_points")),
    ranked: f.get("ranked") === "on", duplicate: f.get("duplicate") === "on",
    options: JSON.parse(String(f.get("options") || "{}")),
    time_control: { move_ms: Math.round(Number(f.get("move_s")) * 1000), bank_ms: Math.round(Number(f.get("bank_s") || 0) * 1000) },
  };
  if (Object.keys(points).length) out.points = points;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined && v !== null && !Number.isNaN(v)));
}

// fill_bot: the house bot that fills seats, added beside the bots policy.
if (!$("f-fill-bot") && $("f-bots")) {
  const levels = ["heuristic", "expert", "random"];
  $("f-bots").closest("p").after(h("p", { class: "field" }, h("label", { for: "f-fill-bot" }, "fill_bot"),
    h("select", { id: "f-fill-bot", name: "fill_bot" }, ...levels.map((v) => h("option", { value: v }, v)))));
}

$("create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  $("create-error").textContent = "";
  try {
    const t = await api("/api/v1/tournaments", { method: "POST", body: body(e.currentTarget) });
    location.assign(`/tournaments/${t.tournament_id}`);
  } catch (err) {
    $("create-error").textContent = err instanceof SyntaxError ? tr("tn.options_json") : describe(err);
  }
});

const start = new Date(Date.now() + 10 * 60000);
start.setSeconds(0, 0);
$("f-start").value = new Date(start.getTime() - start.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
// Countdowns tick every second between renders.
setInterval(() => {
  for (const el of document.querySelectorAll(".countdown[data-start]")) {
    el.textContent = tr("tn.starts_in", { time: countdown(Number(el.dataset.start)) });
  }
}, 1000);
render().catch((err) => { $("t-registering").replaceChildren(h("li", { class: "error" }, describe(err))); });
setInterval(() => {
  for (const el of document.querySelectorAll(".countdown")) el.textContent = tr("tn.starts_in", { time: countdown(Number(el.dataset.start)) });
}, 1000);
