/**
 * The design floor's inner service (floor/README in edge.ts): a Connect server over HTTP/2
 * cleartext, as every service is reached, whose handlers do nothing of the product's: a quote is a
 * constant, a shipment is one primary-key statement on the baseline's database through a pg pool,
 * turned into the message field by field. PORT, DATABASE_URL. Prints "listening <port>".
 */
import http2 from "node:http2";
import { create } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import pg from "pg";
import { PricingService, QuoteDeliveryResponseSchema } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { ShipmentSchema } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: 10 });
const QUOTE = create(QuoteDeliveryResponseSchema, { distanceMetres: 9120n, price: { amount: "21.27", currency: "SAR" } });
const READ = {
  name: "floor-read-shipment",
  text: "SELECT id, shipment_number, merchant_id, external_reference, state, version, recipient_name, cod_amount, currency, created_at FROM shipment WHERE merchant_id = $1 AND id = $2",
};

const handler = connectNodeAdapter({
  routes: (router) => {
    router.service(PricingService, { quoteDelivery: () => QUOTE });
    router.service(ShipmentService, {
      getShipment: async (req) => {
        const { rows } = await pool.query({ ...READ, values: [req.merchantId, req.shipmentId] });
        const row = rows[0];
        if (!row) return {};
        return {
          shipment: create(ShipmentSchema, {
            shipmentId: row.id,
            shipmentNumber: row.shipment_number,
            merchantId: row.merchant_id,
            externalReference: row.external_reference,
            recipientName: row.recipient_name,
            codAmount: row.cod_amount,
            currency: row.currency,
            version: BigInt(row.version),
          }),
        };
      },
    });
  },
});

const server = http2.createServer({}, handler);
server.listen(Number(env("PORT")), "127.0.0.1", () => console.log(`listening ${env("PORT")}`));
const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
