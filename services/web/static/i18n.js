// The pages' language: the server chose it (services/web/i18n.py:
// the hm_lang cookie, else Accept-Language) and wrote it in <html lang>; the
// glossary is static/i18n/<lang>.json, the same file the server's shells use.
// Modules import { t } from here; top-level await makes them wait for it.
export const lang = ["en", "it", "es"].includes(document.documentElement.lang) ? document.documentElement.lang : "en";

async function load(code) {
  const response = await fetch(new URL(`./i18n/${code}.json`, import.meta.url));
  return response.ok ? response.json() : {};
}

const dict = await load(lang);
const english = lang === "en" ? dict : await load("en");

/** The key's text with {name} placeholders filled. A missing key is a bug:
 * it is logged as an error (the browser tests fail on console errors) and
 * the English text, or the key itself, is shown. */
export function t(key, values = {}) {
  let text = dict[key];
  if (text === undefined) {
    console.error(`i18n: missing key ${key} in ${lang}`);
    text = english[key] ?? key;
  }
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

/** A game's name in this language (the rulebook's where there is one). */
// Whether a text exists for `key` (labels with a fallback of their own).
export const hasText = (key) => dict[key] !== undefined || english[key] !== undefined;

export const gameTitle = (game) => (dict[`game.${game}`] ? t(`game.${game}`) : game);

// Plurals: the glossary has `key.one` and `key.other` ("1 trick", "2 tricks");
// the language's plural rules pick one (CLDR's "many" of large Spanish
// numbers reads as "other"). {n} is the count.
const plurals = new Intl.PluralRules(lang);
export function tp(key, n, values = {}) {
  const form = plurals.select(n) === "one" ? "one" : "other";
  return t(`${key}.${form}`, { n, ...values });
}

/** A place: 1st, 2nd (en); 1º (it); 1.º (es). */
export function ordinal(n) {
  if (lang === "it") return `${n}º`;
  if (lang === "es") return `${n}.º`;
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th";
  return `${n}${s}`;
}

/** A list of names: "Ana, Ben and Cy" in this language. */
export const list = (items) => new Intl.ListFormat(lang, { type: "conjunction" }).format(items);
