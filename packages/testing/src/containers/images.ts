/**
 * The images of the test infrastructure, picked in one place: the official `postgres:15` and
 * `apache/kafka:4.1.2` on Docker (a registry serves them), and on podman here, where nothing can be
 * pulled, images the project builds from Debian's packages and Maven Central (infra/containers/).
 *
 * Each built image is tagged with a hash of its recipe (Containerfile, scripts, jar list, base),
 * e.g. `localhost/tawsil-postgres:15-3fa2c1d0e4b5`: built when that tag is missing, reused
 * otherwise, rebuilt by itself when its recipe changes. Two checkouts building the same tag at once
 * are serialised by a machine-wide lock, so the second finds the first's image.
 *
 * CLI (`make test-images`): tsx packages/testing/src/containers/images.ts
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fetchKafkaJars, KAFKA_VERSION } from "../infra/kafka";
import { withMachineLock } from "./lock";
import { chooseInfraPath, type InfraPath } from "./runtime";

export interface TestImages {
  readonly postgres: string;
  readonly kafka: string;
}

export const OFFICIAL_IMAGES: TestImages = { postgres: "postgres:15", kafka: `apache/kafka:${KAFKA_VERSION}` };

const RECIPES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "infra", "containers");
const DEBIAN_SOURCES = "/etc/apt/sources.list.d/debian.sources";
const SUITE = "bookworm";

type Log = (line: string) => void;

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      reject(new Error(`${what} failed: ${err.message}\n${`${stdout}\n${stderr}`.trim().split("\n").slice(-30).join("\n")}`));
    });
  });
}

const hash = (...parts: (string | Buffer)[]) => {
  const h = createHash("sha256");
  for (const part of parts) h.update(part).update("\0");
  return h.digest("hex").slice(0, 12);
};

/** The Debian mirror the machine's apt uses (the first `URIs:` of debian.sources). */
async function debianMirror(): Promise<string> {
  const text = await readFile(DEBIAN_SOURCES, "utf8").catch(() => "");
  return /^URIs:\s*(\S+)/m.exec(text)?.[1] ?? "http://deb.debian.org/debian";
}

/** What every podman command here needs: the project's containers.conf (runc, ulimits). */
function podmanEnv(choice: InfraPath): NodeJS.ProcessEnv {
  return choice.kind !== "native" && choice.containersConf ? { ...process.env, CONTAINERS_CONF: choice.containersConf } : process.env;
}

async function imageExists(tag: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return sh("podman", ["image", "exists", tag], env, "podman image exists").then(() => true, () => false);
}

/** Builds `tag` with `build` unless it exists, under a lock so concurrent runs build it once. */
async function ensureImage(tag: string, env: NodeJS.ProcessEnv, log: Log, build: () => Promise<void>): Promise<void> {
  if (await imageExists(tag, env)) return;
  await withMachineLock(`tawsil-image-${tag.replace(/[^a-z0-9.-]/gi, "_")}`, async () => {
    if (await imageExists(tag, env)) return;
    const started = Date.now();
    log(`building ${tag}`);
    await build();
    log(`built ${tag} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}

/** A minimal Debian root filesystem by debootstrap, imported as an image. */
async function ensureBase(env: NodeJS.ProcessEnv, log: Log): Promise<string> {
  const mirror = await debianMirror();
  const tag = `localhost/tawsil-debian:${SUITE}-${hash("debootstrap --variant=minbase", SUITE, mirror)}`;
  await ensureImage(tag, env, log, async () => {
    const rootfs = await mkdtemp(path.join(os.tmpdir(), "tawsil-rootfs-"));
    try {
      await sh("debootstrap", ["--variant=minbase", SUITE, rootfs, mirror], env, "debootstrap");
      await sh("bash", ["-c", 'tar -C "$1" -c . | podman import - "$2"', "import", rootfs, tag], env, "podman import");
    } finally {
      await rm(rootfs, { recursive: true, force: true });
    }
  });
  return tag;
}

/** Builds one recipe folder of infra/containers on the base, with extra files in its context. */
async function ensureDerived(name: string, version: string, base: string, env: NodeJS.ProcessEnv, log: Log, extra?: { dir: string; as: string }): Promise<string> {
  const recipe = path.join(RECIPES, name);
  const files = (await readdir(recipe)).sort();
  const contents = await Promise.all(files.map(async (f) => `${f}\n${await readFile(path.join(recipe, f), "utf8")}`));
  const extraList = extra ? (await readdir(extra.dir)).sort().join("\n") : "";
  const tag = `localhost/tawsil-${name}:${version}-${hash(base, ...contents, extraList)}`;
  await ensureImage(tag, env, log, async () => {
    const context = await mkdtemp(path.join(os.tmpdir(), `tawsil-${name}-context-`));
    try {
      await cp(recipe, context, { recursive: true });
      if (extra) await cp(extra.dir, path.join(context, extra.as), { recursive: true });
      // The machine's apt sources are mounted for the build only: they never enter a layer.
      await sh("podman", ["build", "-q", "--build-arg", `BASE=${base}`, "-v", `${DEBIAN_SOURCES}:${DEBIAN_SOURCES}:ro`, "-f", "Containerfile", "-t", tag, context], env, `podman build ${tag}`);
    } finally {
      await rm(context, { recursive: true, force: true });
    }
  });
  return tag;
}

/** The images for this path: official ones on Docker, the project's own (built when missing) on podman. */
export async function ensureTestImages(choice: InfraPath, log: Log): Promise<TestImages> {
  if (choice.kind !== "podman") return OFFICIAL_IMAGES;
  const env = podmanEnv(choice);
  const base = await ensureBase(env, log);
  const jars = await fetchKafkaJars(log);
  const [postgres, kafka] = await Promise.all([
    ensureDerived("postgres", "15", base, env, log),
    ensureDerived("kafka", KAFKA_VERSION, base, env, log, { dir: jars, as: "jars" }),
  ]);
  return { postgres, kafka };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const log = (line: string) => console.log(`[test images] ${line}`);
  const started = Date.now();
  const choice = await chooseInfraPath();
  log(`${choice.kind}: ${choice.reason}`);
  const images = await ensureTestImages(choice, log);
  if (choice.kind === "native") log("no images: the tests will run PostgreSQL and Kafka as native processes");
  else log(`PostgreSQL ${images.postgres}, Kafka ${images.kafka} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
