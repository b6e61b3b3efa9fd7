import { type CallOptions, send, type Transport } from "./http.js";
import { type Clock, DEFAULT_RETRY_POLICY, type RetryPolicy, systemClock } from "./retry.js";
import { TokenSource } from "./token.js";
import type {
  CancelShipmentRequestA,
  CancelShipmentRequestB,
  CreateMediaAssetRequest,
  CreateShipmentRequestA,
  CreateShipmentRequestB,
  ListShipmentsQuery,
  MediaAsset,
  MerchantProfile,
  MerchantTracking,
  PriceEstimate,
  PriceEstimateRequest,
  PublicTracking,
  RegisterWebhookRequest,
  ShipmentA,
  ShipmentB,
  ShipmentPage,
  UpdateWebhookRequest,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from "./types.js";

export interface TawsilClientOptions {
  /** The environment's origin, e.g. https://sandbox.api.tawsil.sa. */
  baseUrl: string;
  /** The OAuth client; only public tracking works without one. */
  clientId?: string;
  clientSecret?: string;
  /** Narrows the tokens to these scopes (space-separated); all of the client's when omitted. */
  scope?: string;
  /** Overrides parts of the retry policy (4 attempts, 250 ms doubling to 8 s, 30 s in all). */
  retry?: Partial<RetryPolicy>;
  /** Defaults to the global fetch, looked up at each call. */
  fetch?: typeof fetch;
  /** Time and randomness; tests inject their own. */
  clock?: Partial<Clock>;
}

export interface IdempotentCallOptions extends CallOptions {
  /**
   * The Idempotency-Key of this call, reused by its retries. By default a new one per call; `false`
   * sends none (the server then deduplicates on the reference or the shipment id), and the call is
   * not retried.
   */
  idempotencyKey?: string | false;
}

/** A create's answer: the shipment in the request's shape, and whether it was a replay (200). */
export interface CreatedShipment<T> {
  shipment: T;
  replayed: boolean;
  etag: string;
  location: string;
}

export type ConditionalRead<T> = { notModified: false; shipment: T; etag: string } | { notModified: true; etag: string };

/** The webhook endpoint's version (its ETag, If-Match): `{ version }` or the endpoint itself. */
export type EndpointVersion = { version: number };

const ifMatch = ({ version }: EndpointVersion) => ({ "if-match": `"${version}"` });
const keyOf = (options: IdempotentCallOptions | undefined) =>
  options?.idempotencyKey === false ? undefined : (options?.idempotencyKey ?? globalThis.crypto.randomUUID());

export class TawsilClient {
  private readonly transport: Transport;

  constructor(options: TawsilClientOptions) {
    const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const clock = { ...systemClock, ...options.clock };
    const tokens =
      options.clientId !== undefined && options.clientSecret !== undefined
        ? new TokenSource({ baseUrl: options.baseUrl, clientId: options.clientId, clientSecret: options.clientSecret, scope: options.scope, fetch, clock })
        : undefined;
    this.transport = { baseUrl: options.baseUrl, fetch, clock, retry: { ...DEFAULT_RETRY_POLICY, ...options.retry }, tokens };
  }

  /** A current access token (cached; fetched when missing or close to expiry). */
  accessToken(): Promise<string> {
    if (!this.transport.tokens) throw new Error("this client has no clientId and clientSecret");
    return this.transport.tokens.token();
  }

  /** The merchant profile bound to the OAuth client. */
  async me(options?: CallOptions): Promise<MerchantProfile> {
    return (await send<MerchantProfile>(this.transport, { ...options, method: "GET", path: "/v2/external/me" })).body;
  }

  readonly estimates = {
    /** The route distance and price of a delivery; nothing is persisted. */
    create: async (request: PriceEstimateRequest, options?: CallOptions): Promise<PriceEstimate> =>
      (await send<PriceEstimate>(this.transport, { ...options, method: "POST", path: "/v2/external/shipment-price-estimates", body: request })).body,
  };

  readonly shipments = new Shipments(() => this.transport);

  readonly media = {
    /** Declares an asset (purpose, type, exact size); its bytes follow with `upload`. */
    create: async (request: CreateMediaAssetRequest, options?: CallOptions): Promise<MediaAsset> =>
      (await send<MediaAsset>(this.transport, { ...options, method: "POST", path: "/v2/external/media-assets", body: request })).body,
    /** Sends an asset's bytes; the answer is the asset READY (or a MEDIA_REJECTED problem, nothing kept). */
    upload: async (mediaAssetId: string, file: Blob | Uint8Array, contentType: string, options?: CallOptions): Promise<MediaAsset> =>
      (await send<MediaAsset>(this.transport, { ...options, method: "PUT", path: `/v2/external/media-assets/${encodeURIComponent(mediaAssetId)}/content`, content: { data: file, type: contentType } })).body,
    /** The asset, with a downloadUrl (15 minutes, no token needed) once READY. */
    get: async (mediaAssetId: string, options?: CallOptions): Promise<MediaAsset> =>
      (await send<MediaAsset>(this.transport, { ...options, method: "GET", path: `/v2/external/media-assets/${encodeURIComponent(mediaAssetId)}` })).body,
  };

  /**
   * Declares and uploads a file in one call; name the answer's mediaAssetId in a create's
   * timelineMedia within 24 hours. The type is the Blob's own unless given.
   */
  async uploadMediaAsset(file: Blob | Uint8Array, opts: { contentType?: CreateMediaAssetRequest["contentType"]; purpose?: CreateMediaAssetRequest["purpose"] } & CallOptions = {}): Promise<MediaAsset> {
    const { contentType: given, purpose = "SHIPMENT_CREATION_EVIDENCE", ...options } = opts;
    const contentType = given ?? (file instanceof Blob ? file.type : "");
    if (!contentType) throw new Error("uploadMediaAsset needs a contentType for a file without one");
    const sizeBytes = file instanceof Blob ? file.size : file.byteLength;
    const asset = await this.media.create({ purpose, contentType: contentType as CreateMediaAssetRequest["contentType"], sizeBytes }, options);
    return this.media.upload(asset.mediaAssetId, file, contentType, options);
  }

  readonly tracking = {
    /** The merchant's view of a shipment's tracking. */
    get: async (shipmentId: string, options?: CallOptions): Promise<MerchantTracking> =>
      (await send<MerchantTracking>(this.transport, { ...options, method: "GET", path: `/v2/external/shipments/${encodeURIComponent(shipmentId)}/tracking` })).body,
    /** The customer's view behind a tracking link's code; needs no credentials. */
    public: async (code: string, options?: CallOptions): Promise<PublicTracking> =>
      (await send<PublicTracking>(this.transport, { ...options, method: "GET", path: `/v2/public/tracking/${encodeURIComponent(code)}`, authenticated: false })).body,
  };

  readonly webhook = {
    /** The endpoint, without secrets; its `version` is what update, delete and rotateSecret need. */
    get: async (options?: CallOptions): Promise<WebhookEndpoint> =>
      (await send<WebhookEndpoint>(this.transport, { ...options, method: "GET", path: "/v2/external/webhook" })).body,
    /** Registers the merchant's webhook; the answer holds the signing secret, this once only. */
    register: async (request: RegisterWebhookRequest, options?: CallOptions): Promise<WebhookEndpointWithSecret> =>
      (await send<WebhookEndpointWithSecret>(this.transport, { ...options, method: "POST", path: "/v2/external/webhook", body: request })).body,
    /** Changes url, status or events of the endpoint at `current.version` (412 when it moved on). */
    update: async (current: EndpointVersion, changes: UpdateWebhookRequest, options?: CallOptions): Promise<WebhookEndpoint> =>
      (await send<WebhookEndpoint>(this.transport, { ...options, method: "PATCH", path: "/v2/external/webhook", body: changes, headers: ifMatch(current) })).body,
    /** Deletes the endpoint and its secrets; pausing keeps the secret. */
    delete: async (current: EndpointVersion, options?: CallOptions): Promise<void> => {
      await send<undefined>(this.transport, { ...options, method: "DELETE", path: "/v2/external/webhook", headers: ifMatch(current) });
    },
    /** A new signing secret; the previous one keeps signing for 24 hours. */
    rotateSecret: async (current: EndpointVersion, options?: CallOptions): Promise<WebhookEndpointWithSecret> =>
      (await send<WebhookEndpointWithSecret>(this.transport, { ...options, method: "POST", path: "/v2/external/webhook/rotate-secret", headers: ifMatch(current) })).body,
  };
}

class Shipments {
  constructor(private readonly transport: () => Transport) {}

  /** Creates (or replays) a shipment; the answer has the request's shape. */
  create(request: CreateShipmentRequestA, options?: IdempotentCallOptions): Promise<CreatedShipment<ShipmentA>>;
  create(request: CreateShipmentRequestB, options?: IdempotentCallOptions): Promise<CreatedShipment<ShipmentB>>;
  async create(request: CreateShipmentRequestA | CreateShipmentRequestB, options?: IdempotentCallOptions): Promise<CreatedShipment<ShipmentA | ShipmentB>> {
    const reply = await send<ShipmentA | ShipmentB>(this.transport(), { ...options, method: "POST", path: "/v2/external/shipments", body: request, idempotencyKey: keyOf(options) });
    return { shipment: reply.body, replayed: reply.status === 200, etag: reply.headers.get("etag") ?? "", location: reply.headers.get("location") ?? "" };
  }

  /** Reads a shipment; with `ifNoneMatch` (an earlier ETag) an unchanged one answers notModified. */
  async get(shipmentId: string, options?: CallOptions & { ifNoneMatch?: string }): Promise<ConditionalRead<ShipmentB>> {
    const reply = await send<ShipmentB>(this.transport(), {
      ...options,
      method: "GET",
      path: `/v2/external/shipments/${encodeURIComponent(shipmentId)}`,
      headers: options?.ifNoneMatch === undefined ? {} : { "if-none-match": options.ifNoneMatch },
      acceptStatuses: [304],
    });
    const etag = reply.headers.get("etag") ?? "";
    return reply.status === 304 ? { notModified: true, etag } : { notModified: false, shipment: reply.body, etag };
  }

  /** One page of the list, newest first. */
  async page(query: ListShipmentsQuery = {}, options?: CallOptions): Promise<ShipmentPage> {
    return (await send<ShipmentPage>(this.transport(), { ...options, method: "GET", path: "/v2/external/shipments", query: { ...query } })).body;
  }

  /** Every shipment matching the filters, newest first, following `page.nextCursor`. */
  async *list(query: Omit<ListShipmentsQuery, "cursor"> = {}, options?: CallOptions): AsyncGenerator<ShipmentB, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.page({ ...query, cursor }, options);
      yield* page.data;
      cursor = page.page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** Cancels a shipment before driver assignment; the answer has the request's shape. */
  cancel(shipmentId: string, request: CancelShipmentRequestA, options?: IdempotentCallOptions): Promise<{ shipment: ShipmentA; etag: string }>;
  cancel(shipmentId: string, request: CancelShipmentRequestB, options?: IdempotentCallOptions): Promise<{ shipment: ShipmentB; etag: string }>;
  async cancel(shipmentId: string, request: CancelShipmentRequestA | CancelShipmentRequestB, options?: IdempotentCallOptions): Promise<{ shipment: ShipmentA | ShipmentB; etag: string }> {
    const reply = await send<ShipmentA | ShipmentB>(this.transport(), {
      ...options,
      method: "POST",
      path: `/v2/external/shipments/${encodeURIComponent(shipmentId)}/cancel`,
      body: request,
      idempotencyKey: keyOf(options),
    });
    return { shipment: reply.body, etag: reply.headers.get("etag") ?? "" };
  }
}
