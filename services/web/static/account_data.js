// /account: delete the account for good (the password again, then a
// confirmation); the "Download my data" link is a plain download.
import { api, currentPlayer, describe } from "./api.js";
import { t } from "./i18n.js";

const player = await currentPlayer().catch(() => null);
const form = document.getElementById("delete-form");
if (player && form) {
  const status = document.getElementById("delete-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "";
    const password = form.elements["delete-password"].value;
    if (!password) {
      status.textContent = t("signup.short");
      return;
    }
    if (!window.confirm(t("account.delete_confirm"))) return;
    try {
      await api("/api/v1/players/me", { method: "DELETE", body: { password } });
    } catch (err) {
      status.textContent = describe(err);
      return;
    }
    document.getElementById("account").hidden = true;
    document.getElementById("account-deleted").hidden = false;
    await currentPlayer({ reload: true }).catch(() => null);
  });
}
