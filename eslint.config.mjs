import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTypescript,
  {
    ignores: [".next/**", "node_modules/**", "data/**", ".test-data/**", "drizzle/**", "test-results/**", "playwright-report/**", "next-env.d.ts"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-empty-object-type": "off",
    },
  },
  {
    // Domain modules run without Next.js: they must not reach into the app or its components.
    files: ["lib/**/*.ts"],
    ignores: ["lib/http/**", "lib/client/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["next", "next/*", "@/app/*", "@/components/*", "server-only"], message: "lib/ domain code runs without Next.js." }] },
      ],
    },
  },
];

export default config;
