// A tournament's page (/tournaments/{id}): rules, entrants, live standings
// with the tie-breaks, every round's tables with watch/replay links, your own
// table highlighted, register/withdraw, the final ranking, a duplicate
// tournament's deal comparison (travellers). Follows the
// tournament's SSE stream and redraws on each event.
import { api, currentPlayer, describe, follow, freshSeed } from "./api.js";
import { h, countdown, fmtDate, ordinal, title } from "./watch-ui.js";
import { t } from "./i18n.js";

const root = document.getElementById("tournament");
const tid = root.dataset.tournamentId;
const $ = (id) => document.getElementById(id);
let me = null;

const formatName = (f) => ({ swiss: t("tn.swiss"), knockout: t("tn.knockout"), "round-robin": t("tn.round-robin") })[f] || f;
export const kindName = (k) => ({ bot: t("tn.kind.bot"), agent: t("tn.kind.agent"), human: t("tn.kind.human") })[k] || k;
export const statusName = (s) => ({ registering: t("tn.status.registering"), running: t("tn.status.running"), finished: t("tn.status.finished"), cancelled: t("tn.status.cancelled") })[s] || s;

function rules(s) {
  const tc = s.time_control || {};
  const rows = [
    [t("tn.f.game"), title(s.game)], [t("tn.f.format"), formatName(s.format) + (s.duplicate ? " " + t("tn.duplicate") : "")],
    [t("tn.f.rounds"), s.format === "knockout" ? t("tn.until_final") : String(s.rounds || t("tn.meet_everyone"))],
    [t("tn.f.table_size"), `${s.table_size}${s.min_table_size ? " " + t("tn.at_least", { n: s.min_table_size }) : ""}`],
    [t("tn.time_control"), t("tn.tc", { move: (tc.move_ms || 0) / 1000, bank: (tc.bank_ms || 0) / 1000 })],
    [t("tn.points"), Object.keys(s.points || {}).length ? Object.entries(s.points).map(([n, p]) => t("tn.tables_of", { n, points: p.join(", ") })).join("; ") : t("tn.default_points")],
    [t("tn.tie_breaks"), t("tn.tie_breaks_text")],
    [t("tn.f.bots"), { fill: t("tn.bots_fill"), none: t("tn.bots_none"), bots_only: t("tn.bots_only") }[s.bots] || s.bots],
    [t("tn.f.ranked"), s.ranked ? t("replay.yes") : t("tn.no")], [t("tn.starts"), fmtDate(s.start_ms)],
  ];
  if (s.advance) rows.push([t("tn.advance"), String(s.advance)]);
  return rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]);
}

function standingsTable(st, names) {
  if (!st.standings.length) return h("p", { class: "hint" }, t("tn.no_standings"));
  // Seven columns: scrolled inside their box on a phone, not widening the page.
  const caption = st.final ? t("tn.final_ranking") : t("tn.after_round", { n: st.round });
  return h("div", { class: "table-scroll", tabindex: "0", role: "group", "aria-label": caption }, h("table", { class: "grid" }, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, [t("tn.col.place"), t("tn.col.entrant"), t("tn.points"), "Buchholz", t("tn.col.score"), t("tn.col.firsts"), t("tn.col.forfeits")].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, st.standings.map((r, i) => h("tr", { class: me && r.entrant === me.player_id ? "mine" : "" },
      h("td", {}, ordinal(r.place ?? i + 1)), h("th", { scope: "row" }, r.kind === "bot" ? names[r.entrant] || r.name : h("a", { href: `/players/${r.entrant}` }, r.name || r.entrant)),
      h("td", {}, String(r.points ?? "")), h("td", {}, String(r.buchholz ?? "")), h("td", {}, String(r.score ?? r.game_score ?? "")),
      h("td", {}, String(r.firsts ?? "")), h("td", {}, String(r.forfeits ?? 0)))))));
}

// Knockout: the bracket, a column per round (CSS), each table a box with its
// entrants; once a table is over, its places and who goes through (the
// `advance` best, Settings.advancing).
function bracket(rounds, names, advance) {
  return h("div", { class: "bracket", role: "group", "aria-label": t("tn.bracket") }, rounds.map((r) =>
    h("div", { class: "bracket-round" }, h("h4", {}, t("tn.round_n", { n: r.round })), r.tables.map((tb) =>
      h("ol", { class: "bracket-table", "aria-label": t("tn.table_n", { n: tb.table }) }, tb.seats.map((id, s) => {
        const place = tb.result ? tb.result.places[s] : null;
        const through = place !== null && place <= advance;
        return h("li", { class: place === null ? "" : through ? "through" : "out" }, names[id] || t("tn.bot"),
          place === null ? "" : ` · ${ordinal(place)}${through ? " " + t("tn.through") : ""}`);
      }))))));
}

// Duplicate: the tables of a deal group got the same deals, so the entrants
// in the same seat across them held the same cards.
function dealGroups(r, names) {
  const groups = new Map();
  for (const tb of r.tables) if (tb.deal_seed_group !== null) groups.set(tb.deal_seed_group, [...(groups.get(tb.deal_seed_group) || []), tb]);
  return [...groups].map(([g, tables]) => h("table", { class: "grid deal-group" },
    h("caption", {}, t("tn.group_h", { n: g })),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("tn.col.cards")), tables.map((tb) => h("th", { scope: "col" }, t("tn.table_n", { n: tb.table }))))),
    h("tbody", {}, tables[0].seats.map((_, s) => h("tr", {}, h("th", { scope: "row" }, t("tn.same_cards", { n: s + 1 })),
      tables.map((tb) => h("td", {}, names[tb.seats[s]] || t("tn.bot"))))))));
}

// Duplicate: the travellers of every ended round (GET .../travellers): per
// deal group, a table per seat of the deal with what each table made of
// those cards, and links to both replays at the first move where the
// tables' play of them differed. The round in play shows nothing (the API
// withholds it).
function travellersView(answer, names) {
  const out = [];
  for (const g of answer.groups) {
    out.push(h("h3", {}, t("tn.trav.group", { round: g.round, n: g.group })));
    for (const seat of g.seats) {
      const caption = t("tn.trav.seat", { n: seat.seat + 1 });
      out.push(h("div", { class: "table-scroll", tabindex: "0", role: "group", "aria-label": caption }, h("table", { class: "grid traveller" },
        h("caption", {}, caption),
        h("thead", {}, h("tr", {}, [t("tn.trav.table"), t("tn.col.entrant"), t("tn.col.score"), t("tn.col.place"), t("tn.trav.difference")].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, seat.lines.map((line) => {
          const d = line.first_difference;
          return h("tr", { class: me && line.entrant === me.player_id ? "mine" : "" },
            h("th", { scope: "row" }, h("a", { href: line.replay }, t("tn.table_n", { n: line.table }))),
            h("td", {}, names[line.entrant] || line.name),
            h("td", {}, String(line.score)), h("td", {}, ordinal(line.place)),
            h("td", {}, d ? [h("a", { href: d.replay, class: "first-difference" }, t("tn.trav.first")), ` (${t("tn.trav.move", { n: d.move })}) · `,
              h("a", { href: d.against_replay, class: "against" }, t("tn.trav.against", { n: d.against_table }))] : t("tn.trav.same")));
        })))));
    }
  }
  if (answer.withheld_round !== null) out.push(h("p", { class: "hint" }, t("tn.trav.withheld", { n: answer.withheld_round })));
  if (!out.length) out.push(h("p", { class: "hint" }, t("tn.trav.none")));
  return out;
}

async function roundsView(summary, names) {
  const out = [];
  const all = [];
  let mine = null;
  for (let n = summary.round; n >= 1; n -= 1) {
    const r = await api(`/api/v1/tournaments/${tid}/rounds/${n}`).catch(() => null);
    if (!r) continue;
    all.unshift(r);
    out.push(h("h3", {}, t("tn.round_n", { n })));
    if (summary.settings.duplicate) out.push(...dealGroups(r, names));
    out.push(h("ul", { class: "tables" }, r.tables.map((tb) => {
      const isMine = me && tb.seats.includes(me.player_id);
      if (isMine && !tb.result && n === summary.round) mine = tb;
      return h("li", { class: `table-card${isMine ? " mine" : ""}`, "aria-current": isMine ? "true" : null },
        // Table numbers and deal groups are 1-based already (engines/tournament/events.py).
        h("h4", {}, t("tn.table_n", { n: tb.table }) + (isMine ? " " + t("tn.your_table") : "")),
        h("p", { class: "meta" }, tb.seats.map((id) => names[id] || t("tn.bot")).join(", "), tb.deal_seed_group !== null && summary.settings.duplicate ? ` · ${t("tn.deal_group", { n: tb.deal_seed_group })}` : ""),
        h("p", { class: "actions" }, tb.result ? h("a", { href: `/games/${tb.game_id}/replay?at=0` }, t("replay.title")) : h("a", { href: `/games/${tb.game_id}` }, t("live.watch"))));
    })));
    if (r.byes && r.byes.length) out.push(h("p", { class: "hint" }, t("tn.byes", { names: r.byes.map((id) => names[id] || id).join(", ") })));
  }
  if (summary.settings.format === "knockout" && all.length) {
    const advance = summary.settings.advance ?? (summary.settings.table_size <= 3 ? 1 : Math.floor(summary.settings.table_size / 2));
    out.unshift(h("h3", {}, t("tn.bracket")), bracket(all, names, advance));
  }
  return { nodes: out, mine };
}

async function render() {
  const summary = await api(`/api/v1/tournaments/${tid}`);
  const s = summary.settings;
  $("t-title").textContent = t("tn.heading", { game: title(s.game) });
  const everyone = [...summary.registered, ...summary.entrants];
  // House bots read as at the table ("Bot (heuristic)"), numbered as the field numbers them.
  const shown = (e) => (e.kind === "bot" ? `${t("table.bot_named", { bot: s.fill_bot })} ${e.id.replace(/^bot-/, "")}` : e.name);
  const names = Object.fromEntries(everyone.map((e) => [e.id, shown(e)]));
  const registered = me && summary.registered.some((e) => e.id === me.player_id);
  startsAt = summary.status === "registering" ? s.start_ms : null;
  $("t-status").textContent = summary.status === "registering" ? t("tn.reg_open", { time: countdown(s.start_ms) })
    : summary.status === "running" ? t("tn.round_in_play", { n: summary.round }) : summary.status === "finished" ? t("tn.finished") : statusName(summary.status);
  const actions = [];
  if (summary.status === "registering" && me) {
    actions.push(registered
      ? h("button", { type: "button", class: "secondary", onclick: () => act("DELETE") }, t("tn.withdraw"))
      : h("button", { type: "button", onclick: () => act("POST") }, t("tn.register")));
  } else if (summary.status === "registering") actions.push(h("a", { href: "/signin" }, t("tn.signin_register")));
  $("t-actions").replaceChildren(...actions);
  $("t-rules").replaceChildren(...rules(s));
  const list = summary.entrants.length ? summary.entrants : summary.registered;
  $("t-entrants").replaceChildren(...list.map((e) => h("li", {}, e.kind === "bot" ? shown(e) : h("a", { href: `/players/${e.id}` }, e.name),
    e.kind !== "human" ? h("span", { class: `badge ${e.kind}` }, kindName(e.kind)) : null, me && e.id === me.player_id ? " " + t("table.you") : "")));
  if (!list.length) $("t-entrants").replaceChildren(h("li", { class: "hint" }, t("tn.nobody")));
  const st = await api(`/api/v1/tournaments/${tid}/standings`);
  $("t-standings").replaceChildren(standingsTable(st, names));
  const rounds = await roundsView(summary, names);
  $("t-rounds").replaceChildren(...(rounds.nodes.length ? rounds.nodes : [h("p", { class: "hint" }, t("tn.no_round"))]));
  const panel = $("t-travellers-panel");
  panel.hidden = !s.duplicate || summary.round === 0;
  if (!panel.hidden) {
    const answer = await api(`/api/v1/tournaments/${tid}/travellers`);
    $("t-travellers").replaceChildren(...travellersView(answer, names));
  }
  const my = $("my-table");
  my.hidden = !rounds.mine;
  if (rounds.mine) my.replaceChildren(h("a", { class: "button", href: `/games/${rounds.mine.game_id}` }, t("tn.go_to_table")));
}

async function act(method) {
  try {
    // Registering brings this browser's entropy for the tables' deals (docs/fairness.md).
    const body = method === "POST" ? { client_seed: freshSeed() } : undefined;
    await api(`/api/v1/tournaments/${tid}/registrations`, { method, body });
  } catch (err) {
    $("t-status").textContent = describe(err);
  }
  await render();
}

// The countdown ticks every second between renders while registration is open.
let startsAt = null;
setInterval(() => {
  if (startsAt !== null) $("t-status").textContent = t("tn.reg_open", { time: countdown(startsAt) });
}, 1000);

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
