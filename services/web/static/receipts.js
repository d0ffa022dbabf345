// A player's receipts of a log nobody can quietly rewrite (docs/fairness.md):
// the chain head that each accepted move's answer and each `turn` event of
// the player's own seat carried. Kept in this browser's localStorage, one
// entry per game, and offered as a file once the game is over, for
// `hanamichi verify GAME.ndjson --receipts FILE`. Nothing here is secret:
// a chain head reveals nothing of the cards (it is keyed).
import { h } from "./table-ui.js";

const PREFIX = "hanamichi.receipts.";
const MAX_PER_GAME = 2000; // a long game's moves and turns; a bound on what one game may keep
let shownUrl = null; // the file last offered: revoked when the result is drawn again

function read(gameId) {
  try {
    const kept = JSON.parse(localStorage.getItem(PREFIX + gameId) || "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

/** Keep the receipt {game_id, version, chain_head} (once per version). */
export function keep(gameId, version, chainHead) {
  if (!gameId || !Number.isInteger(version) || typeof chainHead !== "string") return;
  const kept = read(gameId);
  if (kept.some((r) => r.version === version)) return;
  kept.push({ game_id: gameId, version, chain_head: chainHead });
  try {
    localStorage.setItem(PREFIX + gameId, JSON.stringify(kept.slice(-MAX_PER_GAME)));
  } catch {
    // Storage full or refused (private browsing): the game goes on without receipts.
  }
}

/** A "Download my receipts" link for the game (null when none are kept):
 * the file is the JSON list of {"version", "chain_head"} that verify reads. */
export function receiptsLink(gameId, label) {
  const kept = read(gameId);
  if (!kept.length) return null;
  const file = kept.map((r) => ({ version: r.version, chain_head: r.chain_head })).sort((a, b) => a.version - b.version);
  if (shownUrl) URL.revokeObjectURL(shownUrl);
  const url = (shownUrl = URL.createObjectURL(new Blob([JSON.stringify(file, null, 1)], { type: "application/json" })));
  return h("p", {}, h("a", { href: url, download: `receipts-${gameId}.json` }, label));
}
