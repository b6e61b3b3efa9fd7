import type { Credentials } from "./stack";

/** POST /oauth/token with form parameters and optional Basic credentials. */
export function requestToken(baseUrl: string, form: Record<string, string>, basic?: Credentials, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(basic ? { authorization: `Basic ${Buffer.from(`${basic.clientId}:${basic.clientSecret}`).toString("base64")}` } : {}),
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}
