import { describe, expect, it } from "vitest";
import { databaseUrlWithTls } from "./database-tls";
import { ConfigError } from "./load-config";

const URL_ = "postgresql://runtime:pw@db.internal:5432/tawsil_shipment";
const README = new URL("../../../README.md", import.meta.url).pathname;

describe("databaseUrlWithTls", () => {
  it("leaves the url as it is when DATABASE_SSL_MODE is unset", () => {
    expect(databaseUrlWithTls(URL_, {})).toBe(URL_);
    expect(databaseUrlWithTls(`${URL_}?sslmode=verify-full`, {})).toBe(`${URL_}?sslmode=verify-full`);
  });

  it("adds verify-full and the CA path as node-postgres reads them", () => {
    const url = new URL(databaseUrlWithTls(URL_, { DATABASE_SSL_MODE: "verify-full", DATABASE_SSL_ROOT_CERT: README }));
    expect(Object.fromEntries(url.searchParams)).toEqual({ sslmode: "verify-full", sslrootcert: README });
    expect(new URL(databaseUrlWithTls(URL_, { DATABASE_SSL_MODE: "disable" })).searchParams.get("sslmode")).toBe("disable");
  });

  it("refuses TLS set in two places, a CA it cannot read, and a CA without verify-full, naming the setting", () => {
    expect(() => databaseUrlWithTls(`${URL_}?sslmode=require`, { DATABASE_SSL_MODE: "verify-full" }, "MIGRATION_DATABASE_URL")).toThrow(/MIGRATION_DATABASE_URL: carries sslmode/);
    expect(() => databaseUrlWithTls(URL_, { DATABASE_SSL_MODE: "verify-full", DATABASE_SSL_ROOT_CERT: "/nonexistent/ca.crt" })).toThrow(ConfigError);
    expect(() => databaseUrlWithTls(URL_, { DATABASE_SSL_ROOT_CERT: README })).toThrow(/DATABASE_SSL_ROOT_CERT: set DATABASE_SSL_MODE=verify-full/);
    expect(() => databaseUrlWithTls(URL_, { DATABASE_SSL_MODE: "disable", DATABASE_SSL_ROOT_CERT: README })).toThrow(/only read with DATABASE_SSL_MODE=verify-full/);
  });
});
