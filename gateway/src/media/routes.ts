import type { Client } from "@connectrpc/connect";
import { isUuid } from "@tawsil/domain";
import type { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import type { Readable } from "node:stream";
import { ProblemError } from "../problem/problem-error";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../problem/from-connect";
import type { DownloadLinks } from "./download-links";
import { BodyTooLargeError, BodyTooShortError, streamFromStorage, streamToStorage, StorageUnavailableError } from "./object-transfer";
import { fileNameOf, renderAsset } from "./render";
import { createAssetBody, createDriverAssetBody } from "./schemas";
import { validateBody } from "../validation/validate";
import type { z } from "zod";
import { resource } from "../routes/route-table";

/** Who owns the assets of a route family: exactly one of merchant_id and driver_id goes to the shipment service. */
type Owner = { merchantId: string } | { driverId: string };

/**
 * One family of asset routes (decisions.md sections 16 and 17): the merchants' under
 * /v2/external, the drivers' under /v2/driver. The same code serves both; what differs is here.
 */
interface AssetRoutes {
  readonly path: string;
  readonly guard: { read: onRequestAsyncHookHandler[]; write: onRequestAsyncHookHandler[] };
  readonly ownerOf: (request: FastifyRequest) => Owner;
  readonly createBody: z.ZodType<{ purpose: string; contentType: string; sizeBytes: number }>;
  /** A read answers a downloadUrl (merchants); a driver only uploads its evidence and is given none. */
  readonly downloads: boolean;
}

/** A download can never render in the gateway's origin: no script, no plugin, no sniffing, saved not shown. */
const SAFE_DOWNLOAD_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; sandbox",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "private, no-store",
} as const;

export interface MediaRouteOptions {
  readonly links: DownloadLinks;
  readonly limitBytes: number;
  readonly transferTimeoutMs: number;
}

function assetIdOf(request: FastifyRequest): string {
  const id = (request.params as { mediaAssetId?: string }).mediaAssetId ?? "";
  if (!isUuid(id)) throw new ProblemError("INVALID_PARAMETER", { en: "The media asset id in the path is not a uuid.", ar: "معرّف ملف الوسائط في المسار ليس UUID صالحًا." });
  return id.toLowerCase();
}

const storageDown = () =>
  new ProblemError(
    "SERVICE_UNAVAILABLE",
    { en: "Media storage is unavailable; nothing was kept. Retry the upload with exponential backoff.", ar: "تخزين الوسائط غير متاح؛ لم يُحتفظ بشيء. أعد الرفع مع تأخير متزايد." },
    { headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) } },
  );
const rejected = () =>
  new ProblemError("MEDIA_REJECTED", { en: "The body's length is not the asset's sizeBytes; nothing was kept.", ar: "طول المحتوى لا يساوي sizeBytes المعلن؛ لم يُحتفظ بشيء." });
const tooLarge = (limitBytes: number) =>
  new ProblemError("PAYLOAD_TOO_LARGE", { en: `A media upload's body may not exceed ${limitBytes} bytes.`, ar: `لا يجوز أن يتجاوز محتوى رفع الوسائط ${limitBytes} بايت.` });

/**
 * How long the rest of a refused upload is read and thrown away before the connection is cut: as
 * long as a 10 MiB body takes at a slow 1 MB/s, like nginx's `lingering_time`.
 */
const LINGER_MS = 10_000;

/**
 * A refusal while the client may still be sending: the rest of the body is read and discarded
 * (for at most LINGER_MS) instead of the connection being closed under it. Closing a socket with
 * unread bytes resets it, and a client still writing (fetch, curl) then fails with EPIPE or
 * ECONNRESET and never reads the 413 (seen under load in media.e2e): the "lingering close" of
 * nginx and Go's net/http. The answer goes at once; a client that keeps sending past the bound
 * is cut off, so a declared 10 GB costs at most LINGER_MS of reading.
 */
function lingering<E>(request: FastifyRequest, problem: E): E {
  const body = request.raw;
  if (body.complete) return problem;
  const cutOff = setTimeout(() => body.socket?.destroy(), LINGER_MS).unref();
  body.once("end", () => clearTimeout(cutOff));
  body.once("close", () => clearTimeout(cutOff));
  body.resume();
  return problem;
}

/** Streams the body to storage (counted against the declared size and the limit), then has the shipment service check it. */
async function uploadContent(media: Client<typeof MediaAssetService>, opts: MediaRouteOptions, owner: Owner, request: FastifyRequest) {
  const mediaAssetId = assetIdOf(request);
  const length = request.headers["content-length"];
  if (length !== undefined && Number(length) > opts.limitBytes) throw tooLarge(opts.limitBytes);
  const begun = await media.beginMediaUpload({ ...owner, mediaAssetId });
  const sizeBytes = Number(begun.asset?.sizeBytes ?? 0);
  if (length !== undefined && Number(length) !== sizeBytes) throw rejected();
  try {
    await streamToStorage(begun.uploadUrl, request.body as Readable, {
      contentType: begun.asset?.contentType ?? "application/octet-stream",
      sizeBytes,
      limitBytes: opts.limitBytes,
      timeoutMs: opts.transferTimeoutMs,
    });
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error.overLimit ? tooLarge(opts.limitBytes) : rejected();
    if (error instanceof BodyTooShortError) throw rejected();
    if (error instanceof StorageUnavailableError) throw storageDown();
    throw error;
  }
  const { asset } = await media.completeMediaUpload({ ...owner, mediaAssetId });
  return renderAsset(asset);
}

/**
 * The asset resource (decisions.md section 16). The content upload streams: this route alone
 * takes any body type as a stream (its own content-type parser, in its own plugin scope), counts
 * it against the declared size and the 10 MiB limit while passing it on to a presigned PUT, and
 * then asks the shipment service to check what was stored. Every other route keeps the JSON
 * parser and BODY_LIMIT_BYTES.
 */
export function registerMediaAssets(app: FastifyInstance, media: Client<typeof MediaAssetService>, opts: MediaRouteOptions): void {
  registerAssetRoutes(app, media, opts, {
    path: "/v2/external/media-assets",
    guard: { read: app.guard("shipments:read"), write: app.guard("shipments:write") },
    ownerOf: (request) => ({ merchantId: request.principal!.merchantId }),
    createBody: createAssetBody(opts.limitBytes),
    downloads: true,
  });
  registerDownloads(app, media, opts);
}

/** The drivers' evidence (decisions.md section 17): the same routes under /v2/driver, owned by the driver of the token. */
export function registerDriverMediaAssets(app: FastifyInstance, media: Client<typeof MediaAssetService>, opts: MediaRouteOptions): void {
  const guard = app.driverGuard();
  registerAssetRoutes(app, media, opts, {
    path: "/v2/driver/media-assets",
    guard: { read: guard, write: guard },
    ownerOf: (request) => ({ driverId: request.principal?.kind === "driver" ? request.principal.driverId : "" }),
    createBody: createDriverAssetBody(opts.limitBytes),
    downloads: false,
  });
}

function registerAssetRoutes(app: FastifyInstance, media: Client<typeof MediaAssetService>, opts: MediaRouteOptions, routes: AssetRoutes): void {
  const { path } = routes;
  resource(app, path, {
    POST: {
      onRequest: routes.guard.write,
      handler: async (request, reply) => {
        const body = validateBody(routes.createBody, request.body);
        const { asset } = await media.createMediaAsset({ ...routes.ownerOf(request), ...body, sizeBytes: BigInt(body.sizeBytes) });
        const rendered = renderAsset(asset);
        return reply.code(201).header("location", `${path}/${rendered.mediaAssetId}`).send(rendered);
      },
    },
  });
  resource(app, `${path}/:mediaAssetId`, {
    GET: {
      onRequest: routes.guard.read,
      handler: async (request) => {
        const owner = routes.ownerOf(request);
        const { asset, downloadUrl } = await media.getMediaAsset({ ...owner, mediaAssetId: assetIdOf(request) });
        const link = routes.downloads && "merchantId" in owner && downloadUrl && asset ? opts.links.urlFor({ merchantId: owner.merchantId, mediaAssetId: asset.mediaAssetId }) : undefined;
        return renderAsset(asset, link);
      },
    },
  });
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    resource(scope, `${path}/:mediaAssetId/content`, {
      PUT: {
        onRequest: routes.guard.write,
        // Any refusal (a 403 before the body, a 413 within it, a 503 from storage) lets the client finish sending.
        handler: (request) => uploadContent(media, opts, routes.ownerOf(request), request).catch((error: unknown) => Promise.reject(lingering(request, error))),
      },
    });
  });
}

/** Signed download links: they carry their own authority, no token. */
function registerDownloads(app: FastifyInstance, media: Client<typeof MediaAssetService>, opts: MediaRouteOptions): void {
  resource(app, "/v2/media-downloads/:mediaAssetId", {
    GET: {
      handler: async (request, reply) => {
        const grant = opts.links.verify(assetIdOf(request), request.query as Record<string, unknown>);
        if (!grant) {
          throw new ProblemError("ACCESS_DENIED", { en: "This download link is not valid or has expired; read the asset again for a new one.", ar: "رابط التنزيل هذا غير صالح أو انتهت صلاحيته؛ اقرأ الملف مجددًا للحصول على رابط جديد." });
        }
        const { asset, downloadUrl } = await media.getMediaAsset(grant);
        if (!asset || !downloadUrl) throw new ProblemError("MEDIA_ASSET_NOT_FOUND", { en: "The asset has no content yet.", ar: "لا يحوي الملف محتوى بعد." });
        let object;
        try {
          object = await streamFromStorage(downloadUrl, opts.transferTimeoutMs);
        } catch {
          throw storageDown();
        }
        // The type is the one the bytes were verified as, never what storage says.
        return reply
          .headers({
            ...SAFE_DOWNLOAD_HEADERS,
            "content-type": asset.contentType,
            "content-length": String(asset.sizeBytes),
            "content-disposition": `attachment; filename="${fileNameOf(asset)}"`,
          })
          .send(object);
      },
    },
  });
}
