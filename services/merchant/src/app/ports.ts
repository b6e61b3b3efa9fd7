import type { Coordinate, RateCardTerms } from "@tawsil/domain";
import type { Environment } from "../domain/environment";
import type { MerchantStatus } from "../domain/merchant-status";

/*
 * What the merchant use cases need from the outside world, declared here and implemented by the
 * adapters in infra/ (Prisma repositories, scrypt, ES256, AES-GCM); server.ts wires one to the other.
 */

export interface MerchantRow {
  readonly id: string;
  readonly code: string;
  readonly displayName: string;
  readonly legalName: string;
  readonly status: MerchantStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A client as reads see it: never with its secret hash. */
export interface ClientRow {
  readonly id: string;
  readonly clientId: string;
  readonly merchantId: string;
  readonly name: string;
  readonly scopes: string[];
  readonly environment: Environment;
  readonly enabled: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What authenticating a client needs, read in one round trip. */
export interface ClientCredentialsRow {
  readonly clientId: string;
  readonly merchantId: string;
  readonly secretHash: string;
  readonly scopes: string[];
  readonly environment: Environment;
  readonly enabled: boolean;
  readonly merchantStatus: MerchantStatus;
}

export interface SavedLocationRow {
  readonly id: string;
  readonly merchantId: string;
  readonly code: string;
  readonly latitudeMicro: number;
  readonly longitudeMicro: number;
  readonly addressLine: string;
  readonly cityCode: string;
  readonly createdAt: Date;
}

export interface BranchRow {
  readonly id: string;
  readonly merchantId: string;
  readonly code: string;
  readonly name: string;
  readonly createdAt: Date;
}

export interface RateCardRecord extends RateCardTerms {
  readonly id: string;
  readonly version: number;
  readonly effectiveAt: Date;
}

/** Every write that other services cache is announced in its own transaction (the adapters' outbox). */
export interface MerchantStore {
  /** Throws AlreadyExistsError when the code is taken. */
  create(input: { code: string; displayName: string; legalName: string }): Promise<MerchantRow>;
  findByCode(code: string): Promise<MerchantRow | null>;
  /** Up to `limit` merchants by code, each with the version of its rate card in force (null: none). */
  list(limit: number): Promise<(MerchantRow & { readonly rateCardVersion: number | null })[]>;
  /** A malformed id finds nothing. */
  findById(id: string): Promise<MerchantRow | null>;
  /** Compare-and-set on the status: null when it is no longer `from`. */
  setStatus(id: string, from: MerchantStatus, to: MerchantStatus): Promise<MerchantRow | null>;
}

export interface ClientStore {
  create(input: { clientId: string; merchantId: string; name: string; secretHash: string; scopes: string[]; environment: Environment }): Promise<ClientRow>;
  findByClientId(clientId: string): Promise<ClientRow | null>;
  setEnabled(clientId: string, enabled: boolean): Promise<ClientRow | null>;
  findCredentials(clientId: string): Promise<ClientCredentialsRow | null>;
}

/** A driver's client as reads see it: never with its secret hash. */
export interface DriverClientRow {
  readonly clientId: string;
  readonly driverId: string;
  readonly enabled: boolean;
}

/** What authenticating a driver's client needs. */
export interface DriverCredentialsRow {
  readonly clientId: string;
  readonly driverId: string;
  readonly secretHash: string;
  readonly environment: Environment;
  readonly enabled: boolean;
}

/** Disabling or rotating announces the revocation of the client's live tokens in the same transaction. */
export interface DriverClientStore {
  /** Throws AlreadyExistsError when the driver has a client. */
  create(input: { clientId: string; driverId: string; secretHash: string; environment: Environment }): Promise<DriverClientRow>;
  list(limit: number): Promise<DriverClientRow[]>;
  setEnabled(driverId: string, enabled: boolean): Promise<DriverClientRow | null>;
  replaceSecret(driverId: string, secretHash: string): Promise<DriverClientRow | null>;
  findCredentials(clientId: string): Promise<DriverCredentialsRow | null>;
}

export interface PlaceStore {
  addSavedLocation(merchantId: string, input: { code: string; coordinate: Coordinate; addressLine: string; cityCode: string }): Promise<SavedLocationRow>;
  findSavedLocation(merchantId: string, code: string): Promise<SavedLocationRow | null>;
  listSavedLocations(merchantId: string): Promise<SavedLocationRow[]>;
  addBranch(merchantId: string, input: { code: string; name: string }): Promise<BranchRow>;
  findBranch(merchantId: string, code: string): Promise<BranchRow | null>;
  listBranches(merchantId: string): Promise<BranchRow[]>;
}

export interface RateCardStore {
  current(merchantId: string): Promise<RateCardRecord | undefined>;
  /** Appends the next version; with `expectedVersion`, a compare-and-set (VersionConflictError). */
  addNext(merchantId: string, terms: RateCardTerms, opts: { effectiveAt: Date; expectedVersion?: number }): Promise<RateCardRecord>;
}

/** The public half of a P-256 key, exactly the members RFC 7638 hashes into the kid. */
export interface PublicJwk {
  readonly kty: "EC";
  readonly crv: "P-256";
  readonly x: string;
  readonly y: string;
}

export interface SigningKeyRow {
  readonly kid: string;
  readonly publicJwk: PublicJwk;
  readonly privateKeyEncrypted: Uint8Array;
  readonly createdAt: Date;
  readonly retiredAt: Date | null;
  readonly publishUntil: Date | null;
}

/** Writes of signing keys, only inside `SigningKeyStore.exclusively`. */
export interface SigningKeyWriter {
  current(): Promise<SigningKeyRow | null>;
  insert(key: { kid: string; publicJwk: PublicJwk; privateKeyEncrypted: Buffer }): Promise<SigningKeyRow>;
  retire(kid: string, retiredAt: Date, publishUntil: Date): Promise<void>;
}

export interface SigningKeyStore {
  /** Runs `fn` holding the signing-key lock across replicas, so there is never more than one current key. */
  exclusively<T>(fn: (writer: SigningKeyWriter) => Promise<T>): Promise<T>;
  current(): Promise<SigningKeyRow | null>;
  /** The current key and every retired key still inside its publication window, newest first. */
  published(now: Date): Promise<SigningKeyRow[]>;
}

/** A key ready to sign, imported once; what else it holds is the signer's business. */
export interface ActiveSigningKey {
  readonly kid: string;
}

export interface GeneratedKey {
  readonly kid: string;
  readonly publicJwk: PublicJwk;
  /** PKCS#8 PEM of the private key: seal it before it goes anywhere. */
  readonly pkcs8: Buffer;
}

/** Access tokens' keys and signatures (ES256, RFC 9068). */
export interface TokenSigner {
  generateKey(): Promise<GeneratedKey>;
  importKey(kid: string, pkcs8: Buffer): Promise<ActiveSigningKey>;
  /** A fresh, unique token id (the `jti` claim). */
  tokenId(): string;
  /** A compact JWS over `claims`; the caller sets every registered claim. */
  sign(key: ActiveSigningKey, claims: Readonly<Record<string, unknown>>): Promise<string>;
}

/** Private keys at rest: `context` (the kid) is authenticated, so a key copied onto another row fails to open. */
export interface KeySealer {
  seal(plaintext: Buffer, context: string): Buffer;
  open(sealed: Uint8Array, context: string): Buffer;
}

/** Client secrets at rest: only a slow, salted hash is stored. */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  /** Constant time; with no hash (an unknown client) it costs the same and answers false. */
  verify(secret: string, hash: string | undefined): Promise<boolean>;
}

/** Fresh, unguessable client ids and secrets. */
export interface CredentialGenerator {
  clientId(): string;
  clientSecret(): string;
}
