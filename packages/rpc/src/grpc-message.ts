/**
 * grpc-message as the gRPC spec encodes it (PROTOCOL-HTTP2.md): bytes of the UTF-8 message outside
 * printable ASCII, and "%", percent-encoded; everything else as is.
 *
 * connect-es encodes the message with encodeURIComponent, which the grammar allows, but
 * @grpc/grpc-js decodes it with decodeURI, which leaves reserved characters encoded: a stock Node
 * client read "pickup and destination are in different cities%3B deliveries are intra-city". The
 * spec's own encoding reads the same in grpc-js, in other languages' clients and in Connect's.
 */
export function specEncodedGrpcMessage(connectEncoded: string): string {
  let message: string;
  try {
    message = decodeURIComponent(connectEncoded);
  } catch {
    return connectEncoded;
  }
  let out = "";
  for (const byte of Buffer.from(message, "utf8")) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

type Headers = Record<string, unknown>;
interface GrpcResponse {
  writeHead(status: number, ...rest: unknown[]): unknown;
  addTrailers(trailers: Headers): void;
}

const GRPC_MESSAGE = "grpc-message";

function reencode(headers: unknown): void {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) return;
  const fields = headers as Headers;
  const value = fields[GRPC_MESSAGE];
  if (typeof value === "string") fields[GRPC_MESSAGE] = specEncodedGrpcMessage(value);
}

/**
 * Re-encodes grpc-message wherever connect-node writes it on a gRPC response: in the trailers, or
 * in the headers of a trailers-only answer. Only gRPC (not gRPC-web, whose status travels in the
 * body, nor Connect, which has no grpc-message) pays for the wrapping.
 */
export function encodeGrpcMessageAsSpecified(contentType: string | undefined, res: GrpcResponse): void {
  if (contentType === undefined || !/^application\/grpc(\+|;|$)/.test(contentType)) return;
  const writeHead = res.writeHead.bind(res);
  const addTrailers = res.addTrailers.bind(res);
  // writeHead(status, [statusMessage,] headers): the headers come last.
  res.writeHead = (status, ...rest) => (reencode(rest.at(-1)), writeHead(status, ...rest));
  res.addTrailers = (trailers) => (reencode(trailers), addTrailers(trailers));
}
