// Starts the app for the browser tests on a fresh, empty data folder with a known owner.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { register } from "tsx/esm/api";

const port = process.env.E2E_PORT ?? "3100";
// One data folder per server: each worker of the browser tests has a server of its own.
const dataDir = path.resolve(`.test-data/e2e-${port}`);
fs.rmSync(dataDir, { recursive: true, force: true });
// A mail server of its own that keeps what it receives as JSON files, one per message, for the tests to read.
const mailDir = `${dataDir}-mail`;
fs.rmSync(mailDir, { recursive: true, force: true });
fs.mkdirSync(mailDir, { recursive: true });
let received = 0;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, _session, callback) {
    simpleParser(stream)
      .then((mail) => {
        received += 1;
        const to = mail.to ? (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((a) => a.value.map((v) => v.address)) : [];
        fs.writeFileSync(path.join(mailDir, `${String(received).padStart(5, "0")}.json`), JSON.stringify({ to, subject: mail.subject, text: mail.text }));
        callback();
      })
      .catch(callback);
  },
});
await new Promise((resolve) => smtp.listen(0, "127.0.0.1", resolve));
const smtpPort = smtp.server.address().port;

// A webhook receiver of its own that answers 204 and keeps each message (its headers and body) as a JSON file; its
// address is written where the tests read it.
const hooksDir = `${dataDir}-hooks`;
fs.rmSync(hooksDir, { recursive: true, force: true });
fs.mkdirSync(hooksDir, { recursive: true });
let hooked = 0;
const hooks = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    hooked += 1;
    fs.writeFileSync(path.join(hooksDir, `${String(hooked).padStart(5, "0")}.json`), JSON.stringify({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }));
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => hooks.listen(0, "127.0.0.1", resolve));
const hooksPort = hooks.address().port;
fs.writeFileSync(path.join(hooksDir, "address"), `http://127.0.0.1:${hooksPort}`);

// An identity provider of its own (the tests' real OpenID Connect provider), which signs in the owner at its one button.
register();
const { startTestIdp } = await import("../tests/support/oidc-provider.ts");
const idp = await startTestIdp({ redirectUris: [`http://127.0.0.1:${port}/api/auth/callback/oidc-test`, `http://localhost:${port}/api/auth/callback/oidc-test`] });
idp.signInAs({ sub: "e2e-owner", email: "owner@e2e.test", email_verified: true, name: "E2E Owner" });

// E2E_NEXT_DEV=1: the development server instead of a production build (one spec at a time, while changing the app).
const app = process.env.E2E_NEXT_DEV === "1" ? ["node_modules/next/dist/bin/next", "dev", "-p", port] : ["scripts/start.mjs"];
const server = spawn(process.execPath, app, {
  stdio: "inherit",
  env: {
    ...process.env,
    PORT: port,
    CLAWDECK_DATA_DIR: dataDir,
    CLAWDECK_OWNER_EMAIL: "owner@e2e.test",
    CLAWDECK_OWNER_PASSWORD: "owner-e2e-password",
    DATABASE_URL: "",
    // The browser tests fetch the app's own sign-in page as "the web".
    CLAWDECK_FETCH_ALLOW: `127.0.0.1:${port},127.0.0.1:${hooksPort}`,
    // Slow the offline model's stream so a test can reload the page in the middle of its longest reply (about 5 s)
    // even on a busy machine.
    CLAWDECK_OFFLINE_DELAY_MS: "100",
    CLAWDECK_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    CLAWDECK_MAIL_FROM: "Clawdeck <deck@e2e.test>",
    CLAWDECK_OIDC_TEST_ISSUER: idp.issuer,
    CLAWDECK_OIDC_TEST_CLIENT_ID: idp.clientId,
    CLAWDECK_OIDC_TEST_CLIENT_SECRET: idp.clientSecret,
    CLAWDECK_OIDC_TEST_LABEL: "Test SSO",
  },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => {
  smtp.close();
  hooks.close();
  void idp.close();
  process.exit(code ?? 0);
});
