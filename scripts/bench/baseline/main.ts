/**
 * The one-process baseline as its own process (so its CPU and memory are its own):
 * PORT, DATABASE_URL, JWKS (JSON), TOKEN_ISSUER, TOKEN_AUDIENCE, CURSOR_SECRET (base64),
 * LOCATIONS (JSON: code -> saved location), PUBLIC_BASE_URL. Prints "listening <port>" when ready.
 */
import pg from "pg";
import { createBaseline } from "./app";
import { BaselineStore } from "./store";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: 10 });
const server = createBaseline({
  store: new BaselineStore(pool),
  jwks: JSON.parse(env("JWKS")),
  issuer: env("TOKEN_ISSUER"),
  audience: env("TOKEN_AUDIENCE"),
  cursorSecret: new Uint8Array(Buffer.from(env("CURSOR_SECRET"), "base64")),
  locations: JSON.parse(env("LOCATIONS")),
  publicBaseUrl: process.env.PUBLIC_BASE_URL ?? "http://localhost:8080",
});
server.keepAliveTimeout = 65_000;
server.listen(Number(env("PORT")), "127.0.0.1", () => console.log(`listening ${env("PORT")}`));
const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
