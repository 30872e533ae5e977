// ESLint for Cockpit's JavaScript: the in-page scripts (cockpit/resources/js) and the demo site's.
// Run from the repository root: `npm ci --no-audit --no-fund && npx eslint` (it lints
// cockpit/resources and this file).
// In-page scripts are classic scripts (each host file is one function expression that
// cockpit.core.resources.script() puts behind the modules it declares),
// so sourceType is "script" and every name a file reads that is not a browser global must be
// declared in it (`/* global X */` for a module it uses, `/* exported X */` for what it defines).
"use strict";

const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  // Not ours: virtual environments, build output, the test suite's page fixtures (some hostile on purpose).
  { ignores: [".venv/", "build/", "dist/", "out/", "site/", "tests/", "bench/.apps/"] },
  js.configs.recommended,
  {
    files: ["cockpit/resources/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: { ...globals.browser },
    },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
  },
];
