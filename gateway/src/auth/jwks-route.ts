import type { FastifyInstance } from "fastify";
import type { SigningKeys } from "./signing-keys";
import { resource } from "../routes/route-table";

/** GET /.well-known/jwks.json: the public keys that verify this environment's access tokens. */
export function registerJwks(app: FastifyInstance, keys: SigningKeys): void {
  resource(app, "/.well-known/jwks.json", {
    GET: {
      handler: async (_request, reply) => reply.header("cache-control", "public, max-age=300").send(await keys.current()),
    },
  });
}
