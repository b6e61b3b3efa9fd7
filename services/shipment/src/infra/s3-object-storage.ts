import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { DependencyUnavailableError } from "@tawsil/errors";
import type { ObjectStorage } from "../app/media-ports";

export interface S3Settings {
  /** Empty for AWS itself; the local and in-cluster servers are named here. */
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** bucket in the path (http://host/bucket/key): what S3-compatible servers without DNS need. */
  readonly forcePathStyle: boolean;
  readonly timeoutMs: number;
}

const unavailable = (cause: unknown) => new DependencyUnavailableError("object storage", { cause });

/**
 * The one adapter to object storage, through the S3 API with AWS's own client. Checksums are
 * computed only where the API requires them: SDK v3's default adds a CRC32 of the body to every
 * PUT, which a presigned URL cannot know in advance and S3-compatible servers do not all accept.
 * Integrity is ours anyway: the stored object is read back and its SHA-256 recorded.
 */
export class S3ObjectStorage implements ObjectStorage {
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      // A storage outage must fail a request within the caller's deadline, not after the SDK's retries.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: settings.timeoutMs, requestTimeout: settings.timeoutMs },
    });
  }

  presignPut(key: string, contentType: string, sizeBytes: number, expiresInSeconds: number): Promise<string> {
    const command = new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, ContentType: contentType, ContentLength: sizeBytes });
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(["content-type", "content-length"]) });
  }

  presignGet(key: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }), { expiresIn: expiresInSeconds });
  }

  async read(key: string, signal: AbortSignal): Promise<AsyncIterable<Uint8Array> | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }), { abortSignal: signal });
      const body = object.Body as AsyncIterable<Uint8Array> | undefined;
      return body ? guarded(body) : null;
    } catch (error) {
      if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return null;
      throw unavailable(error);
    }
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      const result = await this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }));
      if (result.Errors?.length) throw new Error(`${result.Errors.length} object(s) were not deleted: ${result.Errors[0]?.Code ?? "?"}`);
    } catch (error) {
      throw unavailable(error);
    }
  }

  async listBefore(prefix: string, before: Date, pageToken: string | null): Promise<{ keys: string[]; next: string | null }> {
    try {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: prefix, MaxKeys: 1000, ...(pageToken ? { ContinuationToken: pageToken } : {}) }),
      );
      const keys = (page.Contents ?? []).filter((o) => o.Key && o.LastModified && o.LastModified < before).map((o) => o.Key!);
      return { keys, next: page.IsTruncated && page.NextContinuationToken ? page.NextContinuationToken : null };
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/** A body whose stream breaks half-way (storage died) fails as storage being unavailable. */
async function* guarded(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* body;
  } catch (error) {
    throw unavailable(error);
  }
}
