import type { Environment } from "../domain/environment";
import { InvalidClientError, InvalidScopeError } from "../domain/errors";
import { canAuthenticate } from "../domain/merchant-status";
import { narrowScopes } from "../domain/scopes";
import type { ClientStore, DriverClientStore, DriverCredentialsRow, SecretHasher, TokenSigner } from "./ports";
import type { SigningKeyRing } from "./signing-key-ring";

export interface TokenPolicy {
  readonly issuer: string;
  readonly audience: string;
  /** `aud` of a driver's tokens: only the gateway's driver routes admit it (decisions.md section 17). */
  readonly driverAudience: string;
  readonly ttlSeconds: number;
  /** Only clients of this deployment authenticate here. */
  readonly environment: Environment;
}

export interface IssuedToken {
  readonly accessToken: string;
  readonly expiresInSeconds: number;
  readonly scopes: readonly string[];
}

/** The one scope of a driver's token. */
export const DRIVER_SCOPE = "driver";

/**
 * The client credentials grant: authenticate the client by its secret, narrow the scopes, sign
 * an RFC 9068 access token. Per call: one indexed query and one scrypt verification; the signing
 * key comes from memory.
 */
export class IssueAccessToken {
  constructor(
    private readonly deps: { clients: ClientStore; drivers: Pick<DriverClientStore, "findCredentials">; keys: SigningKeyRing; secrets: SecretHasher; signer: TokenSigner; policy: TokenPolicy; now?: () => number },
  ) {}

  async execute(input: { clientId: string; clientSecret: string; scopes: readonly string[] }): Promise<IssuedToken> {
    const client = await this.deps.clients.findCredentials(input.clientId);
    // Client ids are random over both tables: one that is no merchant's may be a driver's.
    const driver = client ? null : await this.deps.drivers.findCredentials(input.clientId);
    // Verify even when the client is unknown or disabled, so every failure costs the same time.
    const secretMatches = await this.deps.secrets.verify(input.clientSecret, client?.secretHash ?? driver?.secretHash);
    const { policy } = this.deps;
    if (driver) {
      if (!secretMatches) throw new InvalidClientError();
      return this.#driverToken(driver, input.scopes);
    }
    if (!client || !secretMatches || !client.enabled || client.environment !== policy.environment || !canAuthenticate(client.merchantStatus)) {
      throw new InvalidClientError();
    }
    const scopes = narrowScopes(input.scopes, client.scopes);

    return this.#sign({ aud: policy.audience, sub: client.clientId, client_id: client.clientId, merchant_id: client.merchantId }, scopes);
  }

  /** A driver's token: the driver's id, the scope `driver` and the drivers' audience, never a merchant. */
  async #driverToken(driver: DriverCredentialsRow, requested: readonly string[]): Promise<IssuedToken> {
    const { policy } = this.deps;
    if (!driver.enabled || driver.environment !== policy.environment) throw new InvalidClientError();
    const outside = requested.find((scope) => scope !== "" && scope !== DRIVER_SCOPE);
    if (outside !== undefined) throw new InvalidScopeError(outside);
    return this.#sign({ aud: policy.driverAudience, sub: driver.clientId, client_id: driver.clientId, driver_id: driver.driverId }, [DRIVER_SCOPE]);
  }

  async #sign(subject: Readonly<Record<string, string>>, scopes: readonly string[]): Promise<IssuedToken> {
    const { policy } = this.deps;
    const key = await this.deps.keys.signingKey();
    const iat = Math.floor((this.deps.now?.() ?? Date.now()) / 1000);
    const accessToken = await this.deps.signer.sign(key, {
      iss: policy.issuer,
      ...subject,
      scope: scopes.join(" "),
      iat,
      nbf: iat,
      exp: iat + policy.ttlSeconds,
      jti: this.deps.signer.tokenId(),
    });
    return { accessToken, expiresInSeconds: policy.ttlSeconds, scopes };
  }
}
