import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import type { Server } from "../../lib/server";

/**
 * A page on a local port for the tests of the enclosing `describe`, allowed
 * through the fetch guard of the test server's runtime while they run (as
 * `CLAWDECK_FETCH_ALLOW` would): "the web" that agents read. Returns the
 * page's address once the server listens.
 */
export function useLocalWebPage(server: () => Server, html: string): () => string {
  let page: http.Server;
  let origin = "";
  beforeAll(async () => {
    page = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(html);
    });
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    const { port } = page.address() as AddressInfo;
    origin = `http://127.0.0.1:${port}`;
    server().runtime.deps.fetchAllow = [`127.0.0.1:${port}`];
  });
  afterAll(async () => {
    server().runtime.deps.fetchAllow = [];
    await new Promise((resolve) => page.close(resolve));
  });
  return () => origin;
}
