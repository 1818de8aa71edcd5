import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../../lib/models/anthropic";
import { modelConfigFromEnv, providerKeys } from "../../lib/models/registry";
import { ModelError } from "../../lib/models/types";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic";

const API_KEY = "sk-ant-api03-Key0123456789-abcdefGHIJ";
const OTHER_KEY = "glm-other-provider-key-987654321";

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: API_KEY });
});
afterAll(async () => {
  await fake.close();
});

describe("model errors", () => {
  it("never carry a configured provider key, raw, URL-encoded or in base64", async () => {
    const quoted = [API_KEY, encodeURIComponent(API_KEY), Buffer.from(API_KEY).toString("base64"), OTHER_KEY].join(" | ");
    fake.enqueue({ kind: "http_error", status: 400, errorType: "invalid_request_error", message: `bad key material: ${quoted}` });
    const provider = createAnthropicProvider({ apiKey: API_KEY, baseURL: fake.baseURL, maxRetries: 0, redact: [OTHER_KEY] });
    let caught: unknown;
    try {
      for await (const event of provider.stream({ model: "m", system: "s", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [], maxTokens: 10 })) {
        void event;
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ModelError);
    const message = (caught as ModelError).message;
    expect(message).toContain("bad key material");
    for (const form of [API_KEY, encodeURIComponent(API_KEY), Buffer.from(API_KEY).toString("base64").replace(/=+$/, ""), OTHER_KEY]) {
      expect(message).not.toContain(form);
    }
  });

  it("are scrubbed of every key the environment configures", () => {
    const config = modelConfigFromEnv({
      ANTHROPIC_API_KEY: API_KEY,
      CLAWDECK_PROVIDER_GLM_BASE_URL: "https://glm.example.com",
      CLAWDECK_PROVIDER_GLM_API_KEY: OTHER_KEY,
    });
    expect(providerKeys(config).sort()).toEqual([API_KEY, OTHER_KEY].sort());
  });
});
