// The replay viewer's analysis (GET /api/v1/games/{id}/analysis, the shape
// of services/app/analysis/report.py): a progress bar while it is queued or
// runs (202: polled, gently, only while the page is seen), then each seat's
// figures, the graph of every seat's projected score move by move (an SVG
// drawn here) and, in step with the board, the judgement of the move shown.
// A game still being played is never analysed: no request at all.
import { h } from "./watch-ui.js";
import { t, lang } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
// Seat colours, told apart by a dash pattern too (not by colour alone).
const COLOURS = ["#7a1f2b", "#1f5a8a", "#2e7d32", "#8a5a00", "#5b2a86", "#00695c"];
const DASHES = ["", "6 3", "2 3", "8 3 2 3", "4 4", "1 2"];
const WIDTH = 640, HEIGHT = 240, PAD = { left: 40, right: 12, top: 12, bottom: 26 };

const points = (x, digits = 1) => new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
const percent = (x) => new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }).format(x);

function svg(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const kid of kids.flat()) if (kid) el.append(kid);
  return el;
}

/** An action as the API takes it, in words: the game module's actionName if
 * it has one, else its card names and the move buttons' own labels. */
export function actionText(mod, action) {
  if (action === null || action === undefined) return "?";
  if (mod && mod.actionName) {
    const text = mod.actionName(action);
    if (text) return text;
  }
  const card = (c) => (mod && mod.cardName ? mod.cardName(c) : t("watch.card_n", { n: c }));
  switch (action.type) {
    case "play": return action.second !== undefined && action.second !== null ? `${card(action.card)} + ${card(action.second)}` : card(action.card);
    case "keep": return `${t("ch.keep")}: ${card(action.card)}`;
    case "kill": return `${t("ch.kill")}: ${card(action.card)}`;
    case "pick": return `${t("ch.pick")}: ${card(action.card)}`;
    case "joker": return t("kt.joker");
    case "deal": return t("kt.deal");
    case "direct": return t("kt.director");
    case "place": return t("km.place_on", { n: action.pile + 1 });
    case "stop": return t("km.stop");
    case "pick_pain": return t("tt.pick_pain");
    case "pick_bid": return t("tt.pick_bid");
    case "pick_ability": return t("tt.pick_ability");
  }
  return JSON.stringify(action);
}

/**
 * Mount the analysis in #analysis. `go(version)` moves the replay; the
 * returned object's show(at) is called by the replay at every step.
 */
export function mountAnalysis({ gameId, info, mod, ctx, go, link }) {
  const box = document.getElementById("analysis");
  // `asked`: the person clicked "Analyse the game". Until then every read is
  // a look (?request=false), which queues nothing: an analysis that exists
  // (a tournament's games are analysed when their round ends) shows at once.
  const state = { data: null, at: 0, timer: null, tries: 0, stopped: false, asked: false };
  const url = `/api/v1/games/${encodeURIComponent(gameId)}/analysis`;
  const say = (...kids) => box.replaceChildren(...kids);

  if (info.status !== "finished") {
    say(h("p", { class: "hint" }, t("an.after_end")));
    return { show() {} };
  }

  function schedule(ms) {
    clearTimeout(state.timer);
    state.timer = setTimeout(poll, ms);
  }

  async function poll() {
    state.timer = null;
    if (document.hidden) { state.stopped = true; return; } // resumed when seen again
    let response, body;
    try {
      response = await fetch(state.asked ? url : `${url}?request=false`, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      body = await response.json().catch(() => null);
    } catch {
      say(h("p", { class: "error" }, t("an.unreachable")));
      schedule(5000);
      return;
    }
    if (response.status === 200 && body) {
      state.data = body;
      render();
      return;
    }
    if (response.status === 204) { offer(); return; } // nobody has asked for it yet
    if (response.status === 202 && body) {
      progress(body);
      state.tries += 1;
      schedule(Math.min(2000, 1000 * 1.15 ** state.tries));
      return;
    }
    if (response.status === 409) {
      const code = body && body.code;
      say(h("p", { class: "hint" }, code === "results_embargoed" ? t("an.embargoed")
        : code === "analysis_failed" ? t("an.failed_twice") : t("an.after_end")));
      return;
    }
    if (response.status === 429) {
      const wait = Math.max(1, Number(response.headers.get("Retry-After")) || 30);
      say(h("p", { class: "hint", role: "status" }, t("an.rate_limited", { s: wait })));
      schedule(wait * 1000);
      return;
    }
    say(h("p", { class: "error" }, (body && body.message) || t("an.failed", { status: response.status })));
  }

  function progress(p) {
    let bar = box.querySelector("progress");
    if (!bar) {
      bar = h("progress", { id: "an-progress", "aria-label": t("an.progress") });
      say(h("p", { id: "an-progress-text", role: "status" }), bar);
    }
    if (p.total > 0) { bar.max = p.total; bar.value = p.done; } else bar.removeAttribute("value"); // queued: indeterminate
    box.querySelector("#an-progress-text").textContent = p.status === "running" && p.total > 0
      ? t("an.running", { done: p.done, total: p.total }) : t("an.queued");
  }

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && state.stopped && !state.data) { state.stopped = false; poll(); }
  });

  function seatLine(i) {
    return { colour: COLOURS[i % COLOURS.length], dash: DASHES[i % DASHES.length] };
  }

  function graph(a) {
    const pts = a.graph || [];
    const seats = pts.length ? pts[0].expected.length : 0;
    const lo = Math.min(0, ...pts.flatMap((p) => p.expected)), hi = Math.max(0, ...pts.flatMap((p) => p.expected));
    const span = hi - lo || 1;
    const end = Math.max(1, info.version);
    const x = (v) => PAD.left + (v / end) * (WIDTH - PAD.left - PAD.right);
    const y = (e) => PAD.top + ((hi - e) / span) * (HEIGHT - PAD.top - PAD.bottom);
    const kids = [];
    // Ticks: the top, zero, the bottom (points of margin), and the moves.
    for (const e of [...new Set([hi, 0, lo])]) {
      kids.push(svg("line", { class: e === 0 ? "zero-line" : "grid-line", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(e), y2: y(e) }));
      kids.push(svg("text", { class: "axis", x: PAD.left - 4, y: y(e) + 4, "text-anchor": "end" }, document.createTextNode(points(e, 0))));
    }
    for (const v of [0, Math.round(end / 2), end]) {
      kids.push(svg("text", { class: "axis", x: x(v), y: HEIGHT - 8, "text-anchor": v === 0 ? "start" : v === end ? "end" : "middle" }, document.createTextNode(String(v))));
    }
    for (let s = 0; s < seats; s++) {
      const d = pts.map((p, i) => `${i ? "L" : "M"}${x(p.version).toFixed(1)},${y(p.expected[s]).toFixed(1)}`).join(" ");
      const { colour, dash } = seatLine(s);
      kids.push(svg("path", { class: "seat-line", d, stroke: colour, "stroke-dasharray": dash || null, "data-seat": s }));
    }
    kids.push(svg("line", { class: "marker", id: "an-marker", x1: x(0), x2: x(0), y1: PAD.top, y2: HEIGHT - PAD.bottom }));
    // The text alternative: who ends where, in words.
    const last = pts.length ? pts[pts.length - 1].expected : [];
    const summary = t("an.graph_alt", {
      n: pts.length,
      seats: last.map((e, s) => t("an.graph_seat", { name: ctx.name(s), points: points(e) })).join("; "),
    });
    const chart = svg("svg", { class: "chart analysis-graph", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": summary, preserveAspectRatio: "xMidYMid meet" }, kids);
    chart.dataset.end = String(end);
    const legend = h("ul", { class: "an-legend" }, Array.from({ length: seats }, (_, s) => {
      const { colour, dash } = seatLine(s);
      const swatch = svg("svg", { viewBox: "0 0 24 8", width: 24, height: 8, "aria-hidden": "true" },
        svg("line", { x1: 0, x2: 24, y1: 4, y2: 4, stroke: colour, "stroke-width": 3, "stroke-dasharray": dash || null }));
      return h("li", {}, swatch, " ", ctx.name(s));
    }));
    return h("figure", { class: "an-figure" }, chart, legend,
      h("figcaption", { class: "hint" }, t("an.graph_caption")));
  }

  function figures(a) {
    const margin = points(a.method.margin);
    return h("ul", { class: "an-seats" }, a.seats.map((f) => {
      const mistakes = (f.largest || []).slice(0, 3);
      return h("li", { "data-seat": f.seat },
        h("h3", {}, ctx.name(f.seat)),
        h("p", { class: "an-accuracy" }, t("an.accuracy", { pct: percent(f.accuracy), margin, n: f.decisions })),
        masksSeat(a, f.seat),
        h("p", {}, t("an.mean_loss", { loss: points(f.mean_loss, 2) }),
          f.knew_mean_loss === null || f.knew_mean_loss === undefined ? "" : " " + t("an.knew_mean_loss", { loss: points(f.knew_mean_loss, 2) })),
        mistakes.length
          ? [h("p", { class: "an-sub" }, t("an.largest")), h("ol", { class: "an-mistakes" }, mistakes.map((m) =>
            h("li", {}, h("a", { href: link(m.version), onclick: (e) => { e.preventDefault(); go(m.version); } },
              t("an.mistake", { n: m.version, played: actionText(mod, m.played), best: actionText(mod, m.best), loss: points(m.loss) })))))]
          : h("p", { class: "hint" }, t("an.no_mistakes")));
    }));
  }

  // Kabuki masks: each seat's Stops (right, wrong, missed) and memory, and
  // for a placement whether a Stop would have paid and who called.
  function masksSeat(a, seat) {
    const m = a.masks && a.masks.seats.find((x) => x.seat === seat);
    if (!m) return "";
    return h("p", { class: "an-masks" }, t("an.masks_seat", {
      right: m.right_stops, wrong: m.wrong_stops, missed: m.missed_stops, pct: percent(m.memory_accuracy), n: m.chances,
    }));
  }

  function masksVerdict(a, at) {
    const p = a.masks && a.masks.placements.find((x) => x.version === at);
    if (!p) return null;
    const caller = p.called_by === null || p.called_by === undefined ? null : ctx.name(p.called_by);
    const key = p.matches > 0 ? (caller ? "an.masks_paid" : "an.masks_missed") : (caller ? "an.masks_wrong" : "an.masks_nothing");
    return h("p", { class: p.matches > 0 && !caller ? "an-loss an-masks" : "an-masks" }, t(key, { name: caller, n: p.matches }));
  }

  function render() {
    const a = state.data;
    say(h("p", { class: "hint an-method" }, t("an.method", { margin: points(a.method.margin), worlds: a.method.worlds })),
      graph(a),
      h("div", { id: "an-move", class: "an-move", "aria-live": "polite" }),
      figures(a));
    show(state.at);
  }

  function verdict(j, margin) {
    const who = ctx.name(j.seat);
    const parts = [t("an.played", { name: who, move: actionText(mod, j.played) })];
    parts.push(j.loss <= margin ? t("an.best_move") : t("an.best_was", { best: actionText(mod, j.best), loss: points(j.loss) }));
    if (j.knew_loss !== null && j.knew_loss !== undefined) {
      parts.push(j.knew_loss <= margin ? t("an.knew_right")
        : t("an.knew_best_was", { best: actionText(mod, j.knew_best), loss: points(j.knew_loss) }));
    }
    if (!j.own) parts.push(t("an.not_own"));
    return parts;
  }

  function show(at) {
    state.at = at;
    const a = state.data;
    if (!a) return;
    const marker = box.querySelector("#an-marker");
    const chart = box.querySelector("svg.analysis-graph");
    if (marker && chart) {
      const end = Number(chart.dataset.end);
      const xx = PAD.left + (Math.min(at, end) / end) * (WIDTH - PAD.left - PAD.right);
      marker.setAttribute("x1", xx.toFixed(1));
      marker.setAttribute("x2", xx.toFixed(1));
    }
    const out = box.querySelector("#an-move");
    if (!out) return;
    const j = a.moves.find((m) => m.version === at);
    out.dataset.at = String(at);
    const stops = masksVerdict(a, at) || "";
    if (j) {
      const [first, ...rest] = verdict(j, a.method.margin);
      out.replaceChildren(h("p", {}, h("strong", {}, t("an.at_move", { n: at })), " ", first),
        ...rest.map((r) => h("p", { class: j.loss > a.method.margin && r === rest[0] ? "an-loss" : null }, r)), stops);
    } else if (a.graph.some((p) => p.version === at)) {
      out.replaceChildren(h("p", {}, h("strong", {}, t("an.at_move", { n: at })), " ", t("an.forced")), stops);
    } else {
      out.replaceChildren(h("p", { class: "hint" }, t("an.no_decision")), stops);
    }
  }

  // Asked for on a click, not on every visit: an analysis is a job of some
  // seconds of a worker's CPU, and most replays are opened to look, not to study.
  function offer() {
    const start = h("button", { type: "button", id: "an-start" }, t("an.start"));
    start.addEventListener("click", () => {
      state.asked = true;
      say(h("p", { role: "status" }, t("an.asking")));
      poll();
    });
    say(h("p", { class: "hint" }, t("an.offer")), start);
  }
  say(h("p", { role: "status" }, t("an.looking")));
  poll();
  return { show };
}
