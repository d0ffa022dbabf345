// /signup and /signin.
import { api, currentPlayer, describe, PageRefusal } from "./api.js";
import { t } from "./i18n.js";

function next() {
  // Back where the visitor came from (e.g. an invite link), on this site
  // only: the browser's own URL parser says where the target leads (it reads
  // "/\\host" and "/<tab>/host" as another site), the same rule as
  // services/web/redirects.py.
  const target = new URLSearchParams(window.location.search).get("next") || "/";
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (!target.startsWith("/") || /[\s\\\x00-\x1f\x7f]/.test(target)) return "/";
  const url = new URL(target, window.location.origin);
  return url.origin === window.location.origin ? url.pathname + url.search + url.hash : "/";
}

function wire(formId, submit) {
  const form = document.getElementById(formId);
  if (!form) return;
  const error = document.getElementById("form-error");
  const button = form.querySelector("button[type=submit]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const name = form.elements.name.value.trim();
    const password = form.elements.password.value;
    if (!name || !password) {
      error.textContent = t("signup.enter_both");
      return;
    }
    button.disabled = true;
    try {
      await submit(name, password);
      await currentPlayer({ reload: true });
      window.location.assign(next());
    } catch (err) {
      error.textContent = describe(err);
      button.disabled = false;
    }
  });
  button.disabled = false; // wired: the page sends it (the page's HTML leaves it disabled until now)
}

wire("signup-form", async (name, password) => {
  if (password.length < 8) throw new PageRefusal(t("signup.short"));
  await api("/api/v1/players", { method: "POST", body: { name, password } });
  await api("/api/v1/session", { method: "POST", body: { name, password } });
});

wire("signin-form", async (name, password) => {
  await api("/api/v1/session", { method: "POST", body: { name, password } });
});
