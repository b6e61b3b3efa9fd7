import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { PassThrough, Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/** The body was longer than the limit of a media upload (413), or than the asset's declared size. */
export class BodyTooLargeError extends Error {
  override readonly name = "BodyTooLargeError";
  constructor(readonly overLimit: boolean) {
    super(overLimit ? "the body exceeds the media upload limit" : "the body is longer than the declared size");
  }
}

/** The body ended before the asset's declared size. */
export class BodyTooShortError extends Error {
  override readonly name = "BodyTooShortError";
}

/** Object storage did not take or give the bytes (down, reset, refused): the caller answers 503. */
export class StorageUnavailableError extends Error {
  override readonly name = "StorageUnavailableError";
}

const clientOf = (url: URL) => (url.protocol === "https:" ? https : http);

/**
 * Passes bytes through, counting: past `size` it fails (as over the limit when past `limit` too),
 * and at the end it fails unless exactly `size` went through. So the storage request is aborted
 * before its last byte and nothing is stored of a body of the wrong length.
 */
function exactly(size: number, limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > size) return done(new BodyTooLargeError(seen > limit));
      done(null, chunk);
    },
    flush(done) {
      done(seen === size ? null : new BodyTooShortError(`the body ended after ${seen} of ${size} bytes`));
    },
  });
}

/**
 * Streams a request body to a presigned PUT URL, chunk by chunk: memory holds a few socket
 * buffers, never the body. The declared type and length travel as the URL was signed for them.
 */
export async function streamToStorage(url: string, body: Readable, opts: { contentType: string; sizeBytes: number; limitBytes: number; timeoutMs: number }): Promise<void> {
  const target = new URL(url);
  const outgoing = clientOf(target).request(target, {
    method: "PUT",
    headers: { "content-type": opts.contentType, "content-length": String(opts.sizeBytes) },
    timeout: opts.timeoutMs,
  });
  outgoing.on("timeout", () => outgoing.destroy(new StorageUnavailableError("object storage timed out")));
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once("response", resolve);
    outgoing.once("error", reject);
  });
  // Piped, not pipelined: a failure must not destroy the client's socket before it reads the answer.
  const source = body.pipe(new PassThrough());
  try {
    await pipeline(source, exactly(opts.sizeBytes, opts.limitBytes), outgoing);
    const response = await answered;
    response.resume();
    if (response.statusCode !== 200) throw new StorageUnavailableError(`object storage answered ${response.statusCode}`);
  } catch (error) {
    body.unpipe(source);
    outgoing.destroy();
    answered.catch(() => undefined);
    if (error instanceof BodyTooLargeError || error instanceof BodyTooShortError || error instanceof StorageUnavailableError) throw error;
    throw new StorageUnavailableError("object storage failed during the upload", { cause: error });
  }
}

/** Opens a presigned GET URL: the object's bytes as a stream, its length if known. */
export async function streamFromStorage(url: string, timeoutMs: number): Promise<IncomingMessage> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = clientOf(target).get(target, { timeout: timeoutMs }, (response) => {
      if (response.statusCode === 200) return resolve(response);
      response.resume();
      reject(new StorageUnavailableError(`object storage answered ${response.statusCode}`));
    });
    request.on("timeout", () => request.destroy(new StorageUnavailableError("object storage timed out")));
    request.on("error", (cause) => reject(cause instanceof StorageUnavailableError ? cause : new StorageUnavailableError("object storage failed", { cause })));
  });
}
