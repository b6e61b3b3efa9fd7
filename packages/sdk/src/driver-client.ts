import { type CallOptions, send, type Transport } from "./http.js";
import { DEFAULT_RETRY_POLICY, systemClock } from "./retry.js";
import { TokenSource } from "./token.js";
import type { TawsilClientOptions } from "./client.js";
import type {
  CreateDriverMediaAssetRequest,
  DriverAvailability,
  DriverAvailabilityRequest,
  DriverJob,
  DriverLocationFix,
  DriverOffer,
  DriverOfferDecision,
  DriverStepRequest,
  DriverStepResult,
  MediaAsset,
} from "./types.js";

export interface TawsilDriverClientOptions extends Omit<TawsilClientOptions, "clientId" | "clientSecret" | "scope"> {
  /** The driver's OAuth client, issued by an operator. */
  clientId: string;
  clientSecret: string;
}

/**
 * A driver's app on the driver API (`/v2/driver`, decisions.md section 17): shift, fixes, offers,
 * jobs, steps and evidence, with the driver's own credentials. Tokens, retries and problems work as
 * in TawsilClient; a step is sent with one Idempotency-Key across its retries.
 */
export class TawsilDriverClient {
  private readonly transport: Transport;

  constructor(options: TawsilDriverClientOptions) {
    const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const clock = { ...systemClock, ...options.clock };
    const tokens = new TokenSource({ baseUrl: options.baseUrl, clientId: options.clientId, clientSecret: options.clientSecret, fetch, clock });
    this.transport = { baseUrl: options.baseUrl, fetch, clock, retry: { ...DEFAULT_RETRY_POLICY, ...options.retry }, tokens };
  }

  /** Goes on or off shift (with where the driver is, when known). */
  async setAvailability(request: DriverAvailabilityRequest, options?: CallOptions): Promise<DriverAvailability> {
    return (await send<DriverAvailability>(this.transport, { ...options, method: "PUT", path: "/v2/driver/availability", body: request })).body;
  }

  /** Sends 1 to 100 fixes, oldest first; recorded all or none. */
  async reportLocations(fixes: readonly DriverLocationFix[], options?: CallOptions): Promise<number> {
    return (await send<{ accepted: number }>(this.transport, { ...options, method: "POST", path: "/v2/driver/locations", body: { fixes } })).body.accepted;
  }

  /**
   * The driver's open offers, oldest first. With `waitSeconds` (0 to 20) and none open, the answer
   * waits up to that long for one (a long poll): an app keeps one outstanding instead of polling.
   */
  async offers(options: CallOptions & { waitSeconds?: number } = {}): Promise<DriverOffer[]> {
    const { waitSeconds, ...rest } = options;
    return (await send<{ offers: DriverOffer[] }>(this.transport, { ...rest, method: "GET", path: "/v2/driver/offers", query: { waitSeconds } })).body.offers;
  }

  async acceptOffer(offerId: string, options?: CallOptions): Promise<DriverOfferDecision> {
    return (await send<DriverOfferDecision>(this.transport, { ...options, method: "POST", path: `/v2/driver/offers/${encodeURIComponent(offerId)}/accept` })).body;
  }

  async declineOffer(offerId: string, options?: CallOptions): Promise<DriverOfferDecision> {
    return (await send<DriverOfferDecision>(this.transport, { ...options, method: "POST", path: `/v2/driver/offers/${encodeURIComponent(offerId)}/decline` })).body;
  }

  /** The shipments the driver carries now. */
  async jobs(options?: CallOptions): Promise<DriverJob[]> {
    return (await send<{ jobs: DriverJob[] }>(this.transport, { ...options, method: "GET", path: "/v2/driver/jobs" })).body.jobs;
  }

  /** Reports a step of a job; `idempotencyKey` defaults to a new one, reused by the call's retries. */
  async reportStep(shipmentId: string, request: DriverStepRequest, options: CallOptions & { idempotencyKey?: string } = {}): Promise<DriverStepResult> {
    const { idempotencyKey = globalThis.crypto.randomUUID(), ...rest } = options;
    return (await send<DriverStepResult>(this.transport, { ...rest, method: "POST", path: `/v2/driver/jobs/${encodeURIComponent(shipmentId)}/steps`, body: request, idempotencyKey })).body;
  }

  readonly media = {
    /** Declares a piece of evidence (purpose, image type, exact size); its bytes follow with `upload`. */
    create: async (request: CreateDriverMediaAssetRequest, options?: CallOptions): Promise<MediaAsset> =>
      (await send<MediaAsset>(this.transport, { ...options, method: "POST", path: "/v2/driver/media-assets", body: request })).body,
    upload: async (mediaAssetId: string, file: Blob | Uint8Array, contentType: string, options?: CallOptions): Promise<MediaAsset> =>
      (await send<MediaAsset>(this.transport, { ...options, method: "PUT", path: `/v2/driver/media-assets/${encodeURIComponent(mediaAssetId)}/content`, content: { data: file, type: contentType } })).body,
    get: async (mediaAssetId: string, options?: CallOptions): Promise<MediaAsset> =>
      (await send<MediaAsset>(this.transport, { ...options, method: "GET", path: `/v2/driver/media-assets/${encodeURIComponent(mediaAssetId)}` })).body,
  };
}
