// eslint for the web pages' own ES modules (services/web/static), which the
// browser loads as they are: recommended rules, browser globals, modules.
// A development tool only: nothing from node_modules is served.
import js from "@eslint/js";
import globals from "globals";

export default [
  // Not ours, or not source: installed packages, build and test output.
  {
    ignores: [".venv/**", "node_modules/**", "build/**", "dist/**", "site/**", ".hanamichi/**",
      "test-artifacts/**", "tests/web/artifacts/**"],
  },
  {
    files: ["services/web/static/**/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: globals.browser,
    },
  },
];
