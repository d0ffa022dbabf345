// The public API from our pages. The session cookie (HttpOnly) authenticates;
// every write echoes the CSRF token from the hm_csrf cookie in X-CSRF-Token
// (services/sessions.py). Shared by every page: the table's module too.
import { t } from "./i18n.js";

// Play now's ticket while its person waits (sessionStorage): the lobby
// (quickplay.js) resumes the wait after a reload or from a finished table.
export const QUICK_PLAY_TICKET = "hm.quick-play.ticket";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|;\\s*)${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

export function csrfToken() {
  return cookie("hm_csrf");
}

/** fetch() a JSON route; resolves to the body (null for 204), throws ApiError. */
export async function api(path, { method = "GET", body, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD") {
    const token = csrfToken();
    if (token) headers["X-CSRF-Token"] = token;
  }
  const response = await fetch(path, {
    method, headers, signal, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiError(response.status, data?.code ?? "error", data?.message ?? response.statusText);
  }
  return data;
}

let sessionPromise = null;

/** The signed-in player ({player_id, name, kind, ...}) or null. Without the
 * CSRF cookie there is no session: no request (a 401 would be logged as a
 * console error on every page a visitor opens). */
export function currentPlayer({ reload = false } = {}) {
  if (reload) sessionPromise = null;
  if (!sessionPromise) {
    sessionPromise = csrfToken()
      ? api("/api/v1/session").catch((err) => {
          if (err instanceof ApiError && err.status === 401) return null;
          throw err;
        })
      : Promise.resolve(null);
  }
  return sessionPromise;
}

/** A fresh id for a command (retries reuse it: the server answers once). */
export function commandId() {
  return crypto.randomUUID();
}

/**
 * This browser's entropy for a table's deal (docs/fairness.md, "Client
 * seeds"): 32 random hex digits, drawn once per table and kept, so a reload
 * sends the same seed again (the server keeps the first one a seat sends).
 */
export function clientSeed(gameId) {
  const key = `hm.client-seed.${gameId}`;
  let seed = localStorage.getItem(key);
  if (!seed) {
    seed = freshSeed();
    localStorage.setItem(key, seed);
  }
  return seed;
}

/** 32 random hex digits: a client seed for a table not known yet (a Play now ticket). */
export function freshSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Take a seat (null: the first open one), the deal's client seed with it. */
export function takeSeat(gameId, seat = null) {
  const body = { client_seed: clientSeed(gameId) };
  if (seat !== null) body.seat = seat;
  return api(`/api/v1/games/${encodeURIComponent(gameId)}/seats`, { method: "POST", body });
}

/**
 * Follow an SSE route and resume after a drop from the last event seen, with
 * no reload: EventSource reconnects by itself on a network error (sending
 * Last-Event-ID), and when it gives up (the server ended the stream for a
 * restart, or answered an error) we open it again with ?after=<last id>.
 *
 * handlers: {eventName: (data, messageEvent) => void}; onStatus("live" |
 * "reconnecting" | "ended"). Returns {close(), get last()}.
 */
export function follow(path, handlers, { after = 0, onStatus = () => {} } = {}) {
  let last = after;
  let source = null;
  let closed = false;
  let delay = 500;
  let timer = null;

  const open = () => {
    const sep = path.includes("?") ? "&" : "?";
    source = new EventSource(last ? `${path}${sep}after=${last}` : path, { withCredentials: true });
    source.onopen = () => {
      delay = 500;
      onStatus("live");
    };
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
        if (event.lastEventId) {
          const id = Number(event.lastEventId);
          if (Number.isFinite(id) && id > last) last = id;
        }
        let data = event.data;
        try { data = JSON.parse(event.data); } catch { /* keep the text */ }
        handler(data, event);
        if (name === "end") stop("ended");
      });
    }
    source.onerror = () => {
      if (closed) return;
      onStatus("reconnecting");
      if (source.readyState === EventSource.CLOSED) {
        clearTimeout(timer);
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 10000);
      }
    };
  };

  const stop = (status) => {
    closed = true;
    clearTimeout(timer);
    if (source) source.close();
    onStatus(status);
  };

  open();
  return {
    close: () => stop("ended"),
    get last() { return last; },
  };
}

/** Text for an error, for a role="alert" region. */
/** A refusal the page makes itself before asking the server (a rule it
 * knows, such as a password's length): shown as it is, like the server's. */
export class PageRefusal extends Error {}

export function describe(err) {
  return err instanceof ApiError || err instanceof PageRefusal ? err.message : t("api.failed");
}
