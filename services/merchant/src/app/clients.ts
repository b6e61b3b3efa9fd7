import { FailedPreconditionError, NotFoundError, ValidationError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import { parseName } from "../domain/codes";
import type { Environment } from "../domain/environment";
import { canAuthenticate } from "../domain/merchant-status";
import { parseClientScopes } from "../domain/scopes";
import type { ClientRow, ClientStore, CredentialGenerator, SecretHasher } from "./ports";
import type { Merchants } from "./merchants";
import { revocationSecondPassed } from "./revocation-second";

export type { ClientRow };

/** OAuth clients of merchants. A secret exists in clear only in the response that creates it. */
export class Clients {
  constructor(
    private readonly deps: { clients: ClientStore; merchants: Merchants; secrets: SecretHasher; credentials: CredentialGenerator; environment: Environment; logger: Logger },
  ) {}

  async create(input: { merchantCode: string; name: string; scopes: readonly string[] }): Promise<{ client: ClientRow; secret: string }> {
    const name = parseName("name", input.name);
    const scopes = parseClientScopes("scopes", input.scopes);
    const merchant = await this.deps.merchants.byCode(input.merchantCode, "merchant_code");
    if (!canAuthenticate(merchant.status)) {
      throw new FailedPreconditionError("MERCHANT_TERMINATED", "a terminated merchant gets no new clients");
    }
    const secret = this.deps.credentials.clientSecret();
    const client = await this.deps.clients.create({
      clientId: this.deps.credentials.clientId(),
      merchantId: merchant.id,
      name,
      secretHash: await this.deps.secrets.hash(secret),
      scopes,
      environment: this.deps.environment,
    });
    this.deps.logger.info({ clientId: client.clientId, merchantId: merchant.id, scopes }, "client created");
    return { client, secret };
  }

  async get(clientId: string): Promise<ClientRow> {
    const client = await this.deps.clients.findByClientId(requireClientId(clientId));
    if (!client) throw new NotFoundError("client");
    return client;
  }

  async setEnabled(clientId: string, enabled: boolean): Promise<ClientRow> {
    const client = await this.deps.clients.setEnabled(requireClientId(clientId), enabled);
    if (!client) throw new NotFoundError("client");
    if (!enabled) await revocationSecondPassed();
    this.deps.logger.info({ clientId: client.clientId, enabled }, enabled ? "client enabled" : "client disabled");
    return client;
  }
}

function requireClientId(clientId: string): string {
  if (clientId === "") throw new ValidationError("client_id", "is required");
  return clientId;
}
