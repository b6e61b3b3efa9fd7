import type { ParseArgsConfig } from "node:util";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { AdminClient } from "./admin-client";
import { branchLines, clientLines, locationLines, merchantLines, merchantListLines, rateCardLines } from "./format";

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CommandInput {
  /** Positional arguments by the names the command declares. */
  readonly args: Readonly<Record<string, string>>;
  readonly values: Values;
  readonly admin: AdminClient;
  out(line: string): void;
  err(line: string): void;
}

export interface Command {
  readonly name: string;
  readonly positionals: readonly string[];
  readonly usage: string;
  readonly summary: string;
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  run(input: CommandInput): Promise<void>;
}

const text = { type: "string" } as const;
const STATUSES = ["DRAFT", "ACTIVE", "SUSPENDED", "TERMINATED"] as const;

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** Decimal degrees to integer microdegrees by string arithmetic, so 24.7136 is exactly 24713600. */
export function microdegrees(flag: string, value: string): number {
  const match = /^(-?)(\d{1,3})(?:\.(\d{1,6}))?$/.exec(value);
  if (!match) throw new UsageError(`--${flag} must be decimal degrees with at most 6 decimals, e.g. 24.7136 (negative: --${flag}=-46.5)`);
  const [, sign = "", whole = "0", fraction = ""] = match;
  const micro = Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0"));
  return sign === "-" ? -micro : micro;
}

/** `COLD_CHAIN=10.00` pairs of --surcharge. */
function surcharges(values: Values): { requirement: string; fee: string }[] {
  const raw = values.surcharge;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.map((item) => {
    const [requirement, fee, extra] = String(item).split("=");
    if (!requirement || fee === undefined || extra !== undefined) throw new UsageError(`--surcharge must be REQUIREMENT=FEE, e.g. COLD_CHAIN=10.00`);
    return { requirement, fee };
  });
}

const RATE_TERMS = [
  ["base-fee", "baseFee"],
  ["included-km", "includedKm"],
  ["per-km-fee", "perKmFee"],
  ["included-weight-kg", "includedWeightKg"],
  ["per-kg-fee", "perKgFee"],
  ["cod-fee-percent", "codFeePercent"],
  ["cod-fee-minimum", "codFeeMinimum"],
  ["max-cod-amount", "maxCodAmount"],
] as const;

export const COMMANDS: readonly Command[] = [
  {
    name: "merchant create",
    positionals: [],
    usage: "--code CODE --display-name NAME --legal-name NAME",
    summary: "create a merchant company (in DRAFT)",
    options: { code: text, "display-name": text, "legal-name": text },
    async run({ values, admin, out }) {
      const res = await admin.createMerchant({
        code: required(values, "code"),
        displayName: required(values, "display-name"),
        legalName: required(values, "legal-name"),
      });
      merchantLines(res.merchant).forEach(out);
    },
  },
  {
    name: "merchants list",
    positionals: [],
    usage: "[--limit N]",
    summary: "list the merchants by code: status, rate card version (or none), id",
    options: { limit: text },
    async run({ values, admin, out }) {
      const limit = optional(values, "limit") ?? "200";
      if (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) throw new UsageError("--limit must be a whole number from 1 to 1000");
      const { merchants } = await admin.listMerchants({ limit: Number(limit) });
      if (merchants.length === 0) out("no merchant yet; add one with `merchant create`");
      merchantListLines(merchants).forEach(out);
    },
  },
  {
    name: "merchant status",
    positionals: ["merchantCode", "status"],
    usage: `<merchantCode> <${STATUSES.join("|")}>`,
    summary: "move a merchant to another status",
    options: {},
    async run({ args, admin, out }) {
      const status = STATUSES.find((name) => name === args.status);
      if (!status) throw new UsageError(`status must be one of ${STATUSES.join(", ")}`);
      const res = await admin.setMerchantStatus({ merchantCode: args.merchantCode ?? "", status: MerchantStatus[status] });
      merchantLines(res.merchant).forEach(out);
    },
  },
  {
    name: "merchant show",
    positionals: ["merchantCode"],
    usage: "<merchantCode>",
    summary: "show a merchant",
    options: {},
    async run({ args, admin, out }) {
      merchantLines((await admin.getMerchantByCode({ code: args.merchantCode ?? "" })).merchant).forEach(out);
    },
  },
  {
    name: "client create",
    positionals: ["merchantCode"],
    usage: "<merchantCode> --name NAME --scopes shipments:read,shipments:write,webhooks:manage",
    summary: "create an OAuth client; prints its secret, once",
    options: { name: text, scopes: text },
    async run({ args, values, admin, out, err }) {
      const scopes = required(values, "scopes").split(",").map((scope) => scope.trim()).filter(Boolean);
      const res = await admin.createClient({ merchantCode: args.merchantCode ?? "", name: required(values, "name"), scopes });
      clientLines(res.client, [["client_secret", res.clientSecret]]).forEach(out);
      err("WARNING: store the client secret now; it is shown only this once and cannot be shown again.");
    },
  },
  {
    name: "client show",
    positionals: ["clientId"],
    usage: "<clientId>",
    summary: "show an OAuth client (never its secret)",
    options: {},
    async run({ args, admin, out }) {
      clientLines((await admin.getClient({ clientId: args.clientId ?? "" })).client).forEach(out);
    },
  },
  ...(["disable", "enable"] as const).map(
    (verb): Command => ({
      name: `client ${verb}`,
      positionals: ["clientId"],
      usage: "<clientId>",
      summary: `${verb} an OAuth client`,
      options: {},
      async run({ args, admin, out }) {
        clientLines((await admin.setClientEnabled({ clientId: args.clientId ?? "", enabled: verb === "enable" })).client).forEach(out);
      },
    }),
  ),
  {
    name: "location add",
    positionals: ["merchantCode"],
    usage: "<merchantCode> --code CODE --lat 24.7136 --lng 46.6753 --address TEXT --city RUH",
    summary: "add a saved pickup location",
    options: { code: text, lat: text, lng: text, address: text, city: text },
    async run({ args, values, admin, out }) {
      const res = await admin.addSavedLocation({
        merchantCode: args.merchantCode ?? "",
        code: required(values, "code"),
        coordinate: { latitudeMicro: microdegrees("lat", required(values, "lat")), longitudeMicro: microdegrees("lng", required(values, "lng")) },
        addressLine: required(values, "address"),
        cityCode: required(values, "city"),
      });
      locationLines(res.location).forEach(out);
    },
  },
  {
    name: "branch add",
    positionals: ["merchantCode"],
    usage: "<merchantCode> --code CODE --name NAME",
    summary: "add a branch",
    options: { code: text, name: text },
    async run({ args, values, admin, out }) {
      const res = await admin.addBranch({ merchantCode: args.merchantCode ?? "", code: required(values, "code"), name: required(values, "name") });
      branchLines(res.branch).forEach(out);
    },
  },
  {
    name: "rate-card add",
    positionals: ["merchantCode"],
    usage: `<merchantCode> ${RATE_TERMS.map(([flag]) => `--${flag} N`).join(" ")} [--surcharge REQUIREMENT=FEE ...] [--expected-version N]`,
    summary: "add the next version of a merchant's rate card (SAR, VAT excluded); it applies from now",
    options: {
      ...Object.fromEntries(RATE_TERMS.map(([flag]) => [flag, text])),
      surcharge: { type: "string", multiple: true },
      "expected-version": text,
    },
    async run({ args, values, admin, out }) {
      const terms = Object.fromEntries(RATE_TERMS.map(([flag, field]) => [field, required(values, flag)]));
      const expected = optional(values, "expected-version") ?? "0";
      if (!/^\d{1,9}$/.test(expected)) throw new UsageError("--expected-version must be a whole number");
      const res = await admin.addRateCard({
        merchantCode: args.merchantCode ?? "",
        terms: { ...terms, requirementSurcharges: surcharges(values) },
        expectedVersion: Number(expected),
      });
      rateCardLines(res.rateCard).forEach(out);
    },
  },
  {
    name: "signing-key rotate",
    positionals: [],
    usage: "",
    summary: "make a new token signing key current (old keys stay published until their tokens expire)",
    options: {},
    async run({ admin, out }) {
      out(`kid  ${(await admin.rotateSigningKey({})).kid}`);
    },
  },
];
