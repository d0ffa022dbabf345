// The bot author's page (/agents): register, pause, resume, delete
// agents; run sparring series and read their reports (docs/agents.md), with
// the answer-time histogram drawn as our own SVG and strikes by reason.
import { api, currentPlayer, describe } from "./api.js";
import { h } from "./watch-ui.js";
import { gameTitle, t } from "./i18n.js";

const root = document.getElementById("agents");
const list = document.getElementById("agent-list");
const status = document.getElementById("agents-status");
const REASONS = ["timeout", "unreachable", "invalid_response", "illegal_action"];
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const kid of kids) el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return el;
}

/** Bars of the answer-time histogram ([{le_ms, count}], le_ms null = above the last). */
export function answerChart(times) {
  const buckets = times.histogram || [];
  const width = 40 * Math.max(buckets.length, 1) + 40, height = 160, base = 120;
  const top = Math.max(1, ...buckets.map((b) => b.count));
  const label = t("agents.chart_label", { count: times.count ?? 0, p50: times.p50 ?? "–", p99: times.p99 ?? "–" });
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart answer-times", role: "img", "aria-label": label, width, height });
  chart.append(svg("title", {}, label));
  buckets.forEach((b, i) => {
    const x = 30 + i * 40, barH = Math.round((b.count / top) * 100);
    const prev = i ? buckets[i - 1].le_ms : 0;
    const name = b.le_ms === null ? t("agents.over", { ms: prev }) : t("agents.le", { ms: b.le_ms });
    const bar = svg("rect", { x, y: base - barH, width: 30, height: barH, class: "bar", "data-count": b.count });
    bar.append(svg("title", {}, `${name}: ${b.count} ${t("agents.answers")}`));
    chart.append(bar,
      svg("text", { x: x + 15, y: base - barH - 4, "text-anchor": "middle", class: "count" }, b.count),
      svg("text", { x: x + 15, y: base + 14, "text-anchor": "middle", class: "axis" }, b.le_ms === null ? `>${prev}` : b.le_ms));
  });
  chart.append(svg("line", { x1: 25, y1: base, x2: width - 5, y2: base, class: "axis" }),
    svg("text", { x: width / 2, y: base + 32, "text-anchor": "middle", class: "axis" }, "ms"));
  return chart;
}

function reportView(report) {
  const strikes = report.strikes || { total: 0, by_reason: {}, games_handed_to_bot: 0 };
  const reasons = REASONS.filter((r) => strikes.by_reason?.[r]).map((r) =>
    h("tr", {}, h("th", { scope: "row" }, t(`agents.reason.${r}`)), h("td", {}, String(strikes.by_reason[r]))));
  const fmt = (x, digits = 2) => (x === null || x === undefined ? "–" : Number(x).toFixed(digits));
  return h("section", { class: "report", "aria-label": t("agents.report") },
    h("h4", {}, t("agents.report")),
    report.status === "running" ? h("p", { class: "hint" }, t("agents.wait")) : null,
    h("dl", { class: "rules" },
      h("dt", {}, t("agents.mean_score")), h("dd", {}, fmt(report.mean_score)),
      h("dt", {}, t("agents.mean_place")), h("dd", {}, fmt(report.mean_place)),
      h("dt", {}, t("agents.wins")), h("dd", {}, String(report.wins ?? 0)),
      h("dt", {}, t("agents.own_share")), h("dd", {}, report.moves ? `${Math.round(report.moves.share * 100)} %` : "–")),
    h("h5", {}, t("agents.answer_times")), answerChart(report.answer_time_ms || {}),
    h("h5", {}, t("agents.strikes")),
    h("p", {}, t("agents.strikes_total", { n: strikes.total, handed: strikes.games_handed_to_bot })),
    reasons.length ? h("table", { class: "grid strikes", "aria-label": t("agents.strikes") }, h("tbody", {}, reasons))
      : h("p", { class: "hint" }, t("agents.no_strikes")),
    h("h5", {}, t("agents.results")),
    h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["agents.col.game", "agents.col.score", "agents.col.place", "agents.col.strikes"].map((k) => h("th", { scope: "col" }, t(k))))),
      h("tbody", {}, (report.results || []).map((r, i) => h("tr", {},
        h("td", {}, h("a", { href: `/games/${r.game_id}/replay` }, `${i + 1} · ${t("agents.replay")}`)),
        h("td", {}, String(r.score ?? "–")), h("td", {}, String(r.place ?? "–")), h("td", {}, String(r.strikes ?? 0)))))));
}

async function showReport(agent, series, holder) {
  const report = await api(`/api/v1/agents/${agent.agent_id}/sparring/${series.sparring_id}`);
  holder.replaceChildren(reportView(report));
  if (report.status === "running") setTimeout(() => showReport(agent, series, holder).catch(() => null), 1000);
}

async function seriesList(agent, holder) {
  const series = await api(`/api/v1/agents/${agent.agent_id}/sparring`);
  if (!series.length) { holder.replaceChildren(h("p", { class: "hint" }, t("agents.no_series"))); return; }
  holder.replaceChildren(h("ul", {}, series.map((s) => {
    const out = h("div", {});
    return h("li", {}, t("agents.series_line", { game: gameTitle(s.game), games: s.settings?.games ?? "?", bot: s.settings?.bot ?? "", status: t(`agents.status.${s.status === "done" ? "done" : "running"}`) }), " ",
      h("button", { type: "button", onclick: () => showReport(agent, s, out).catch((e) => { out.textContent = describe(e); }) }, t("agents.show_report")), out);
  })));
}

function sparringForm(agent, holder) {
  const games = document.getElementById("sparring-games").content;
  const select = h("select", { id: `s-game-${agent.agent_id}`, name: "game" },
    [...games.querySelectorAll("option")].filter((o) => agent.games.includes(o.value)).map((o) => o.cloneNode(true)));
  const id = (k) => `s-${k}-${agent.agent_id}`;
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "form-grid", "aria-label": `${t("agents.sparring")}: ${agent.name}` },
    h("p", { class: "field" }, h("label", { for: id("game") }, t("agents.spar_game")), select),
    h("p", { class: "field" }, h("label", { for: id("games") }, t("agents.spar_games")), h("input", { id: id("games"), name: "games", type: "number", min: 1, max: 50, value: 3 })),
    h("p", { class: "field" }, h("label", { for: id("bot") }, t("agents.spar_bot")),
      h("select", { id: id("bot"), name: "bot" }, h("option", { value: "heuristic" }, "heuristic"), h("option", { value: "random" }, "random"))),
    h("p", { class: "field" }, h("label", { for: id("move") }, t("tn.f.move")), h("input", { id: id("move"), name: "move_s", type: "number", min: 0.1, step: 0.1, value: 1 })),
    h("p", {}, h("button", { type: "submit" }, t("agents.spar_start"))), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const moveMs = Math.round(Number(form.elements.move_s.value) * 1000);
    try {
      await api(`/api/v1/agents/${agent.agent_id}/sparring`, { method: "POST", body: {
        game: form.elements.game.value, games: Number(form.elements.games.value), bot: form.elements.bot.value,
        time_control: { move_ms: moveMs, bank_ms: 0 } } });
      await seriesList(agent, holder);
    } catch (err) { error.textContent = describe(err); }
  });
  return form;
}

function agentItem(agent) {
  const series = h("div", { class: "series" });
  const act = (path, method = "POST") => async () => {
    try {
      await api(`/api/v1/agents/${agent.agent_id}${path}`, { method });
      await render();
      // Announced once the list no longer shows it (a screen reader hears the
      // news when the page already agrees with it).
      if (method === "DELETE") status.textContent = t("agents.deleted", { name: agent.name });
    } catch (err) { status.textContent = describe(err); }
  };
  const paused = agent.status === "paused";
  const item = h("li", { class: "table-card agent", "data-agent-id": agent.agent_id, "aria-label": agent.name },
    h("h3", {}, agent.name),
    h("p", { class: "meta" }, `${agent.mode} · ${agent.games.map(gameTitle).join(", ")} · `,
      h("span", { class: "agent-status" }, t("agents.status", { status: t(`agents.status.${paused ? "paused" : "active"}`) }))),
    h("p", { class: "actions" },
      paused ? h("button", { type: "button", onclick: act("/resume") }, t("agents.resume"))
        : h("button", { type: "button", onclick: act("/pause") }, t("agents.pause")),
      h("button", { type: "button", class: "danger", onclick: () => {
        if (window.confirm(t("agents.confirm_delete", { name: agent.name }))) act("", "DELETE")();
      } }, t("agents.delete"))),
    h("details", {}, h("summary", {}, t("agents.sparring")), sparringForm(agent, series), h("h4", {}, t("agents.series")), series));
  seriesList(agent, series).catch((err) => { series.textContent = describe(err); });
  return item;
}

async function render() {
  const agents = await api("/api/v1/agents");
  const live = agents.filter((a) => a.status !== "deleted");
  list.replaceChildren(...live.map(agentItem));
  if (!live.length) list.replaceChildren(h("li", { class: "hint" }, t("agents.none")));
}

const form = document.getElementById("register-form");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("register-error");
  error.textContent = "";
  const games = [...form.querySelectorAll("input[name=games]:checked")].map((i) => i.value);
  const mode = form.elements.mode.value;
  const body = { name: form.elements.name.value.trim(), games, ...(mode === "push" ? { endpoint: form.elements.endpoint.value.trim() } : { mode: "pull" }) };
  try {
    const created = await api("/api/v1/agents", { method: "POST", body });
    document.getElementById("created-text").textContent = t("agents.registered", { name: created.name });
    document.getElementById("created-token").value = created.token;
    document.getElementById("created-secret-row").hidden = !created.secret;
    document.getElementById("created-secret").value = created.secret || "";
    document.getElementById("created").hidden = false;
    form.reset();
    await render();
  } catch (err) { error.textContent = describe(err); }
});

const player = await currentPlayer().catch(() => null);
if (player) {
  root.hidden = false;
  render().catch((err) => { status.textContent = describe(err); });
} else {
  document.getElementById("agents-signed-out").hidden = false;
}
