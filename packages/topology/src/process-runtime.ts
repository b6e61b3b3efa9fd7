/**
 * How every process runs, here as in the image: source maps point stack traces at the TypeScript.
 * A young generation of at most 2 x 4 MiB instead of V8's 2 x 16 MiB, which a process fills once
 * under load and keeps resident for good: about 20 MiB less per process, and no measurable change
 * in CPU per request (A/B of estimate and create, issue 9's notes).
 * Settings from NODE_OPTIONS (a profiler hook, say) still apply, as Node reads them itself.
 */
export const NODE_FLAGS = ["--enable-source-maps", "--max-semi-space-size=4"] as const;

/**
 * Environment every process runs with, here as in the image (Dockerfile ENV): glibc gives each
 * thread that allocates its own malloc arena (Node's libuv and V8 worker threads), and the arenas'
 * unused pages stay resident; two arenas cost nothing measurable in speed and about 10-20 MiB of
 * resident memory less per process (issue 9's idle RSS). A value already set in the environment wins.
 */
export const PROCESS_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

/** Each process's bundle, relative to its directory (scripts/build.ts writes it). */
export const BUNDLE = "dist/main.mjs";
