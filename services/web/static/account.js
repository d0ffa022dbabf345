// /account: change the password (the current one is asked for), rotate the API token.
import { api, currentPlayer, describe } from "./api.js";
import { t } from "./i18n.js";

const player = await currentPlayer().catch(() => null);
if (!player) {
  document.getElementById("account-signed-out").hidden = false;
} else {
  document.getElementById("account").hidden = false;
  document.getElementById("account-name").textContent = player.name;

  const form = document.getElementById("password-form");
  const status = document.getElementById("password-status");
  // Changing a password needs the current one; a first one (an account
  // made with a token only) has none to give.
  const current = form.elements["current-password"];
  if (!player.has_password) current.closest("p").hidden = true;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const password = form.elements["new-password"].value;
    status.textContent = "";
    if (password.length < 8) {
      status.textContent = t("signup.short");
      return;
    }
    try {
      const body = player.has_password ? { password, current_password: current.value } : { password };
      await api("/api/v1/players/me/password", { method: "POST", body });
      player.has_password = true;
      current.closest("p").hidden = false;
      form.reset();
      status.textContent = t("account.saved");
    } catch (err) {
      status.textContent = describe(err);
    }
  });

  const rotate = document.getElementById("rotate-token");
  const tokenStatus = document.getElementById("token-status");
  rotate.addEventListener("click", async () => {
    tokenStatus.textContent = "";
    try {
      const answer = await api("/api/v1/players/me/token", { method: "POST" });
      const out = document.getElementById("token-value");
      out.value = answer.token;
      document.getElementById("token-out").hidden = false;
      out.select();
      tokenStatus.textContent = t("account.token_made");
    } catch (err) {
      tokenStatus.textContent = describe(err);
    }
  });
}
