import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { ServiceIdentity } from "./service-identity";

/** Each identity's Ed25519 key pair, DER in base64: the forms SERVICE_IDENTITY_* settings take. */
export type IdentityKeys = Readonly<Record<string, { readonly privateKey: string; readonly publicKey: string }>>;

/** Fresh key pairs for `names` (make dev, the test meshes, scripts/identity-keys.ts for a cluster). */
export function generateIdentityKeys(names: readonly string[]): IdentityKeys {
  return Object.fromEntries(
    names.map((name) => {
      const { privateKey, publicKey } = generateKeyPairSync("ed25519");
      return [
        name,
        {
          privateKey: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
          publicKey: publicKey.export({ format: "der", type: "spki" }).toString("base64"),
        },
      ];
    }),
  );
}

/** The key pairs of given private keys (PKCS#8 DER, base64), as make dev keeps them in .dev/secrets.env. */
export function identityKeysOf(privateKeys: Readonly<Record<string, string>>): IdentityKeys {
  return Object.fromEntries(
    Object.entries(privateKeys).map(([name, privateKey]) => {
      const key = createPrivateKey({ key: Buffer.from(privateKey, "base64"), format: "der", type: "pkcs8" });
      return [name, { privateKey, publicKey: createPublicKey(key).export({ format: "der", type: "spki" }).toString("base64") }];
    }),
  );
}

/** SERVICE_IDENTITY_PUBLIC_KEYS: every identity's public key, `name:key,...`. */
export function publicKeysSetting(keys: IdentityKeys): string {
  return Object.entries(keys)
    .map(([name, pair]) => `${name}:${pair.publicKey}`)
    .join(",");
}

/** The two settings one process needs: its own private key, and every identity's public key. */
export function identityEnvFor(keys: IdentityKeys, name: string): { SERVICE_IDENTITY_PRIVATE_KEY: string; SERVICE_IDENTITY_PUBLIC_KEYS: string } {
  const own = keys[name];
  if (!own) throw new Error(`no identity key for ${name}`);
  return { SERVICE_IDENTITY_PRIVATE_KEY: own.privateKey, SERVICE_IDENTITY_PUBLIC_KEYS: publicKeysSetting(keys) };
}

/**
 * A service token as `caller` would send it to `audience` (a service's short name): for tests and
 * stock gRPC clients (grpc-js) that call a service directly; send it in the `tawsil-service-token`
 * header (SERVICE_TOKEN_HEADER). Valid for a minute.
 */
export function mintServiceToken(keys: IdentityKeys, caller: string, audience: string): Promise<string> {
  return identityFrom(keys, caller).sign(audience);
}

/** `name`'s identity from a key set, to sign calls as `name` (scripts that act for a process). */
export function identityFrom(keys: IdentityKeys, name: string): ServiceIdentity {
  const own = keys[name];
  if (!own) throw new Error(`no identity key for ${name}`);
  return new ServiceIdentity(name, createPrivateKey({ key: Buffer.from(own.privateKey, "base64"), format: "der", type: "pkcs8" }));
}
