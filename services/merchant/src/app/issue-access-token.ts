import type { Environment } from "../domain/environment";
import { InvalidClientError } from "../domain/errors";
import { canAuthenticate } from "../domain/merchant-status";
import { narrowScopes, type Scope } from "../domain/scopes";
import type { ClientStore, SecretHasher, TokenSigner } from "./ports";
import type { SigningKeyRing } from "./signing-key-ring";

export interface TokenPolicy {
  readonly issuer: string;
  readonly audience: string;
  readonly ttlSeconds: number;
  /** Only clients of this deployment authenticate here. */
  readonly environment: Environment;
}

export interface IssuedToken {
  readonly accessToken: string;
  readonly expiresInSeconds: number;
  readonly scopes: Scope[];
}

/**
 * The client credentials grant: authenticate the client by its secret, narrow the scopes, sign
 * an RFC 9068 access token. Per call: one indexed query and one scrypt verification; the signing
 * key comes from memory.
 */
export class IssueAccessToken {
  constructor(
    private readonly deps: { clients: ClientStore; keys: SigningKeyRing; secrets: SecretHasher; signer: TokenSigner; policy: TokenPolicy; now?: () => number },
  ) {}

  async execute(input: { clientId: string; clientSecret: string; scopes: readonly string[] }): Promise<IssuedToken> {
    const client = await this.deps.clients.findCredentials(input.clientId);
    // Verify even when the client is unknown or disabled, so every failure costs the same time.
    const secretMatches = await this.deps.secrets.verify(input.clientSecret, client?.secretHash);
    const { policy } = this.deps;
    if (!client || !secretMatches || !client.enabled || client.environment !== policy.environment || !canAuthenticate(client.merchantStatus)) {
      throw new InvalidClientError();
    }
    const scopes = narrowScopes(input.scopes, client.scopes);

    const key = await this.deps.keys.signingKey();
    const iat = Math.floor((this.deps.now?.() ?? Date.now()) / 1000);
    const accessToken = await this.deps.signer.sign(key, {
      iss: policy.issuer,
      aud: policy.audience,
      sub: client.clientId,
      client_id: client.clientId,
      merchant_id: client.merchantId,
      scope: scopes.join(" "),
      iat,
      nbf: iat,
      exp: iat + policy.ttlSeconds,
      jti: this.deps.signer.tokenId(),
    });
    return { accessToken, expiresInSeconds: policy.ttlSeconds, scopes };
  }
}
