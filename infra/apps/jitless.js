// Evaluated before the SDK's modules (view-entry.js imports it first): zod's JIT compiles parsers
// with `new Function`, and zod decides whether it may as each schema is built, by trying
// `new Function("")` once. The SDK's App turns the JIT off (`jitless`) only in its constructor,
// after its schemas were built at load, so under the views' CSP (no 'unsafe-eval') that probe is
// blocked and reported as a `script-src eval` violation. Off from the start, nothing tries an eval.
import { config } from "zod/v4/core";

config({ jitless: true });
