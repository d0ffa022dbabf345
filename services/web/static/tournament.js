// A tournament's page (/tournaments/{id}): rules, entrants, live standings
// with the tie-breaks, every round's tables with watch/replay links, your own
// table highlighted, register/withdraw, the final ranking. Follows the
// tournament's SSE stream and redraws on each event.
import { api, currentPlayer, describe, follow } from "./api.js";
import { h, countdown, fmtDate, ordinal, title } from "./watch-ui.js";

const root = document.getElementById("tournament");
const tid = root.dataset.tournamentId;
const $ = (id) => document.getElementById(id);
let me = null;

function rules(s) {
  const tc = s.time_control || {};
  const rows = [
    ["Game", title(s.game)], ["Format", `${s.format}${s.duplicate ? " (duplicate)" : ""}`],
    ["Rounds", s.format === "knockout" ? "until the final table" : String(s.rounds || "enough to meet everyone")],
    ["Table size", `${s.table_size}${s.min_table_size ? ` (at least ${s.min_table_size})` : ""}`],
    ["Time control", `${(tc.move_ms || 0) / 1000} s per move, ${(tc.bank_ms || 0) / 1000} s bank`],
    ["Points", Object.keys(s.points || {}).length ? Object.entries(s.points).map(([n, p]) => `tables of ${n}: ${p.join(", ")}`).join("; ") : "n, n−2, n−3 … 0 by place (tables of 2: 1/0)"],
    ["Tie-breaks", "points, Buchholz, total game score, first places, then a seeded coin"],
    ["Bots", { fill: "house bots fill empty seats", none: "no bots", bots_only: "bots and agents only" }[s.bots] || s.bots],
    ["Ranked", s.ranked ? "yes" : "no"], ["Starts", fmtDate(s.start_ms)],
  ];
  if (s.advance) rows.push(["Advance per table", String(s.advance)]);
  return rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]);
}

function standingsTable(st) {
  if (!st.standings.length) return h("p", { class: "hint" }, "No standings yet.");
  return h("table", { class: "grid" }, h("caption", {}, st.final ? "Final ranking" : `Standings after round ${st.round}`),
    h("thead", {}, h("tr", {}, ["Place", "Entrant", "Points", "Buchholz", "Score", "Firsts", "Forfeits"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, st.standings.map((r, i) => h("tr", { class: me && r.entrant === me.player_id ? "mine" : "" },
      h("td", {}, ordinal(r.place ?? i + 1)), h("th", { scope: "row" }, r.kind === "bot" ? r.name : h("a", { href: `/players/${r.entrant}` }, r.name || r.entrant)),
      h("td", {}, String(r.points ?? "")), h("td", {}, String(r.buchholz ?? "")), h("td", {}, String(r.score ?? r.game_score ?? "")),
      h("td", {}, String(r.firsts ?? "")), h("td", {}, String(r.forfeits ?? 0))))));
}

async function roundsView(summary, names) {
  const out = [];
  let mine = null;
  for (let n = summary.round; n >= 1; n -= 1) {
    const r = await api(`/api/v1/tournaments/${tid}/rounds/${n}`).catch(() => null);
    if (!r) continue;
    out.push(h("h3", {}, `Round ${n}`), h("ul", { class: "tables" }, r.tables.map((t) => {
      const isMine = me && t.seats.includes(me.player_id);
      if (isMine && !t.result && n === summary.round) mine = t;
      return h("li", { class: `table-card${isMine ? " mine" : ""}`, "aria-current": isMine ? "true" : null },
        h("h4", {}, `Table ${t.table + 1}${isMine ? " (your table)" : ""}`),
        h("p", { class: "meta" }, t.seats.map((id) => names[id] || "bot").join(", "), t.deal_seed_group !== null && summary.settings.duplicate ? ` · deal group ${t.deal_seed_group + 1} (same cards as the group's other tables)` : ""),
        h("p", { class: "actions" }, t.result ? h("a", { href: `/games/${t.game_id}/replay?at=0` }, "Replay") : h("a", { href: `/games/${t.game_id}` }, "Watch")));
    })));
    if (r.byes && r.byes.length) out.push(h("p", { class: "hint" }, `Byes: ${r.byes.map((id) => names[id] || id).join(", ")}`));
  }
  return { nodes: out, mine };
}

async function render() {
  const summary = await api(`/api/v1/tournaments/${tid}`);
  const s = summary.settings;
  $("t-title").textContent = `${title(s.game)} tournament`;
  const everyone = [...summary.registered, ...summary.entrants];
  const names = Object.fromEntries(everyone.map((e) => [e.id, e.name]));
  const registered = me && summary.registered.some((e) => e.id === me.player_id);
  $("t-status").textContent = summary.status === "registering" ? `Registration open · starts in ${countdown(s.start_ms)}`
    : summary.status === "running" ? `Round ${summary.round} in play` : summary.status === "finished" ? "Finished" : summary.status;
  const actions = [];
  if (summary.status === "registering" && me) {
    actions.push(registered
      ? h("button", { type: "button", class: "secondary", onclick: () => act("DELETE") }, "Withdraw")
      : h("button", { type: "button", onclick: () => act("POST") }, "Register"));
  } else if (summary.status === "registering") actions.push(h("a", { href: "/signin" }, "Sign in to register"));
  $("t-actions").replaceChildren(...actions);
  $("t-rules").replaceChildren(...rules(s));
  const list = summary.entrants.length ? summary.entrants : summary.registered;
  $("t-entrants").replaceChildren(...list.map((e) => h("li", {}, e.kind === "bot" ? e.name : h("a", { href: `/players/${e.id}` }, e.name),
    e.kind !== "human" ? h("span", { class: `badge ${e.kind}` }, e.kind) : null, me && e.id === me.player_id ? " (you)" : "")));
  if (!list.length) $("t-entrants").replaceChildren(h("li", { class: "hint" }, "Nobody yet."));
  const st = await api(`/api/v1/tournaments/${tid}/standings`);
  $("t-standings").replaceChildren(standingsTable(st));
  const rounds = await roundsView(summary, names);
  $("t-rounds").replaceChildren(...(rounds.nodes.length ? rounds.nodes : [h("p", { class: "hint" }, "No round paired yet.")]));
  const my = $("my-table");
  my.hidden = !rounds.mine;
  if (rounds.mine) my.replaceChildren(h("a", { class: "button", href: `/games/${rounds.mine.game_id}` }, "Go to my table"));
}

async function act(method) {
  try {
    await api(`/api/v1/tournaments/${tid}/registrations`, { method });
  } catch (err) {
    $("t-status").textContent = describe(err);
  }
  await render();
}

let pending = false;
async function redraw() {
  if (pending) return;
  pending = true;
  setTimeout(async () => { pending = false; await render().catch((err) => { $("t-status").textContent = describe(err); }); }, 200);
}

(async () => {
  me = await currentPlayer().catch(() => null);
  await render().catch((err) => { $("t-status").textContent = describe(err); });
  follow(`/api/v1/tournaments/${tid}/stream`, { tournament: redraw, end: redraw });
})();
