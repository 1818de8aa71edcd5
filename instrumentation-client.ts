import { config } from "zod/v4/core";

// Runs in the browser before the app's code. zod compiles object parsers with `new Function`
// when it may; under the Content-Security-Policy it may not, and even its probe is reported as a
// violation. Interpreted parsing is fast enough for what the browser validates. Only zod's config is
// imported here (the same global setting for zod and zod/mini), so no page loads zod for this alone.
config({ jitless: true });
