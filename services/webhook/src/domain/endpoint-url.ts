import { EndpointUrlError } from "./errors";

export const MAX_URL_LENGTH = 2048;

/**
 * The syntax rules of an endpoint URL (decisions.md section 11): absolute, https (http too when the
 * local-use setting allows it), at most 2048 characters, no userinfo, no fragment. The address rules
 * need a resolver and live in the use case. Returns the parsed URL.
 */
export function parseEndpointUrl(raw: string, opts: { allowHttp: boolean }): URL {
  if (raw.length > MAX_URL_LENGTH) throw new EndpointUrlError({ code: "TOO_LONG", rule: "LENGTH" });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointUrlError({ code: "INVALID_FORMAT", rule: "ABSOLUTE" });
  }
  const schemes = opts.allowHttp ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) throw new EndpointUrlError({ code: "UNSUPPORTED_VALUE", rule: "SCHEME" });
  if (url.username !== "" || url.password !== "" || /^[a-z]+:\/\/[^/?#]*@/i.test(raw)) {
    throw new EndpointUrlError({ code: "INCONSISTENT_VALUE", rule: "USERINFO" });
  }
  if (raw.includes("#")) throw new EndpointUrlError({ code: "INCONSISTENT_VALUE", rule: "FRAGMENT" });
  if (url.hostname === "") throw new EndpointUrlError({ code: "INVALID_FORMAT", rule: "ABSOLUTE" });
  return url;
}
