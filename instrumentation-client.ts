import { z } from "zod";

// Runs in the browser before the app's code. zod compiles object parsers with `new Function`
// when it may; under the Content-Security-Policy it may not, and even its probe is reported as a
// violation. Interpreted parsing is fast enough for what the browser validates.
z.config({ jitless: true });
