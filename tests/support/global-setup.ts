import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../../lib/db/client";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
  }
}

export const testDataRoot = path.resolve(".test-data");

/**
 * Migrates one template database with the real migrations; each test file
 * then gets its own copy (PGlite: a copied folder; PostgreSQL: CREATE
 * DATABASE … TEMPLATE), so no file pays for initialisation or sees another's rows.
 */
export default async function setup(project: TestProject) {
  if (project.name.endsWith("postgres")) return setupPostgres(project);
  return setupPglite(project);
}

async function setupPglite(project: TestProject) {
  const root = path.join(testDataRoot, `template-${process.pid}`);
  fs.rmSync(root, { recursive: true, force: true });
  const handle = await openDatabase({ driver: "pglite", dataDir: path.join(root, "pglite") });
  await handle.migrate();
  await handle.close();
  project.provide("pgliteTemplate", root);
  return () => fs.rmSync(root, { recursive: true, force: true });
}

async function setupPostgres(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is required for the PostgreSQL leg");
  const name = `clawdeck_tpl_${crypto.randomBytes(4).toString("hex")}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const templateUrl = withDatabase(url, name);
  const handle = await openDatabase({ driver: "postgres", url: templateUrl, max: 1 });
  await handle.migrate();
  await handle.close();
  project.provide("postgresTemplate", templateUrl);
  return async () => {
    const rows = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`${name}%`}`;
    for (const row of rows) await admin.unsafe(`drop database if exists ${row.datname} with (force)`);
    await admin.end();
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
