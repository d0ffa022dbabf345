// What a finished table offers its people: "Play again" (the same seats,
// POST /api/v1/games/{id}/rematch: the first to ask opens the new table,
// the others are asked to accept with the same button) and "New opponents"
// (Play now with this game and player count; the lobby shows the wait).
// A tournament's tables offer neither: the tournament seats its rounds.
import { api, freshSeed, QUICK_PLAY_TICKET } from "./api.js";
import { t } from "./i18n.js";
import { h } from "./table-ui.js";

/** The buttons for `info` (null when there are none); `onError(err)` shows a refusal. */
export function endActions(info, onError) {
  const seat = info.your_seat;
  if (info.status !== "finished" || info.tournament_id || seat === null || seat === undefined) return null;
  if (info.seats[seat].bot) return null; // the seat went to a house bot: this person left
  const again = h("button", { type: "button", class: "primary" }, t("table.play_again"));
  again.addEventListener("click", () => go(again, async () => {
    const table = await api(`/api/v1/games/${encodeURIComponent(info.game_id)}/rematch`, { method: "POST" });
    window.location.assign(`/games/${table.game_id}`);
  }, onError));
  const fresh = h("button", { type: "button" }, t("table.new_opponents"));
  fresh.addEventListener("click", () => go(fresh, async () => {
    const ticket = await api("/api/v1/quick-play", { method: "POST", body: { game: info.game, players: info.players, client_seed: freshSeed() } });
    sessionStorage.setItem(QUICK_PLAY_TICKET, ticket.ticket_id);
    window.location.assign("/#play-now");
  }, onError));
  const asked = info.rematch ? h("p", { class: "hint" }, t("table.rematch_asked")) : null;
  return h("div", { class: "end-actions" }, asked, h("p", { class: "buttons" }, again, " ", fresh));
}

async function go(button, action, onError) {
  button.disabled = true;
  try {
    await action();
  } catch (err) {
    button.disabled = false;
    onError(err);
  }
}
