// Every page: who is signed in, with Sign out; or Sign in / Sign up.
import { api, currentPlayer } from "./api.js";
import { t } from "./i18n.js";

function link(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

async function render() {
  const who = document.getElementById("who");
  if (!who) return;
  const player = await currentPlayer().catch(() => null);
  who.replaceChildren();
  if (player) {
    // The name is the person's public profile; their settings are "Account".
    const profile = link(`/players/${encodeURIComponent(player.player_id)}`, player.name);
    profile.setAttribute("aria-label", t("nav.profile", { name: player.name }));
    const account = link("/account", t("nav.settings"));
    account.setAttribute("aria-label", t("nav.account", { name: player.name }));
    const out = document.createElement("button");
    out.type = "button";
    out.className = "link";
    out.textContent = t("nav.signout");
    out.addEventListener("click", async () => {
      await api("/api/v1/session", { method: "DELETE" }).catch(() => null);
      window.location.assign("/");
    });
    who.append(profile, account, out);
  } else {
    who.append(link("/signin", t("nav.signin")), link("/signup", t("nav.signup")));
  }
}

render();
