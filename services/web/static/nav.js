// Every page: who is signed in, with Sign out; or Sign in / Sign up.
import { api, currentPlayer } from "./api.js";

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
    const account = link("/account", player.name);
    account.setAttribute("aria-label", `Account: ${player.name}`);
    const out = document.createElement("button");
    out.type = "button";
    out.className = "link";
    out.textContent = "Sign out";
    out.addEventListener("click", async () => {
      await api("/api/v1/session", { method: "DELETE" }).catch(() => null);
      window.location.assign("/");
    });
    who.append(account, out);
  } else {
    who.append(link("/signin", "Sign in"), link("/signup", "Sign up"));
  }
}

render();
