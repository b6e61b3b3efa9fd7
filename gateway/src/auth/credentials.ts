export type ClientCredentials =
  | { readonly kind: "basic" | "body"; readonly clientId: string; readonly clientSecret: string }
  | { readonly kind: "conflict"; readonly reason: string }
  | { readonly kind: "none" };

const MAX_LENGTH = 256;

/** RFC 6749 section 2.3.1: Basic credentials are form-encoded before base64. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

function basic(header: string): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  return clientId && clientSecret ? { clientId, clientSecret } : undefined;
}

/**
 * The client's credentials from exactly one method: HTTP Basic or the client_id/client_secret
 * body parameters. Using both is an invalid_request (RFC 6749 section 2.3); an unreadable header
 * or a missing half counts as no credentials (invalid_client).
 */
export function clientCredentials(authorization: string | undefined, params: URLSearchParams): ClientCredentials {
  const bodyId = params.get("client_id");
  const bodySecret = params.get("client_secret");
  if (authorization !== undefined && authorization.trim() !== "") {
    if (bodySecret !== null) return { kind: "conflict", reason: "Use one client authentication method, not both." };
    const fromHeader = basic(authorization);
    if (!fromHeader || fromHeader.clientId.length > MAX_LENGTH || fromHeader.clientSecret.length > MAX_LENGTH) return { kind: "none" };
    if (bodyId !== null && bodyId !== fromHeader.clientId) return { kind: "conflict", reason: "client_id does not match the Authorization header." };
    return { kind: "basic", ...fromHeader };
  }
  if (!bodyId || !bodySecret || bodyId.length > MAX_LENGTH || bodySecret.length > MAX_LENGTH) return { kind: "none" };
  return { kind: "body", clientId: bodyId, clientSecret: bodySecret };
}
