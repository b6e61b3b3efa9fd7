-- The one-process baseline's own database: a simple schema of its own, shaped like the shipment
-- service's (same keys, unique constraints and keyset index), so the same work costs the same.
CREATE TABLE IF NOT EXISTS shipment (
    id                          UUID PRIMARY KEY,
    shipment_number             TEXT NOT NULL UNIQUE,
    merchant_id                 UUID NOT NULL,
    external_reference          TEXT NOT NULL,
    state                       TEXT NOT NULL,
    version                     BIGINT NOT NULL DEFAULT 1,
    recipient_name              TEXT NOT NULL,
    recipient_phone             TEXT NOT NULL,
    total_weight_kilograms      NUMERIC(12, 3) NOT NULL,
    cod_amount                  NUMERIC(12, 2) NOT NULL,
    currency                    TEXT NOT NULL,
    pickup_latitude_micro       INTEGER NOT NULL,
    pickup_longitude_micro      INTEGER NOT NULL,
    pickup_address_line         TEXT NOT NULL,
    pickup_city_code            TEXT NOT NULL,
    destination_latitude_micro  INTEGER NOT NULL,
    destination_longitude_micro INTEGER NOT NULL,
    destination_city_code       TEXT NOT NULL,
    price                       NUMERIC(12, 2) NOT NULL,
    distance_metres             INTEGER NOT NULL,
    created_at                  TIMESTAMPTZ(3) NOT NULL,
    UNIQUE (merchant_id, external_reference)
);
CREATE INDEX IF NOT EXISTS shipment_keyset ON shipment (merchant_id, created_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS shipment_item (
    shipment_id      UUID NOT NULL REFERENCES shipment (id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,
    description      TEXT NOT NULL,
    quantity         INTEGER NOT NULL,
    weight_kilograms NUMERIC(12, 3) NOT NULL,
    PRIMARY KEY (shipment_id, position)
);

CREATE TABLE IF NOT EXISTS idempotency_record (
    id          BIGSERIAL PRIMARY KEY,
    operation   TEXT NOT NULL,
    merchant_id UUID NOT NULL,
    client_id   TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    shipment_id UUID NOT NULL,
    snapshot    JSONB NOT NULL,
    created_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ(3) NOT NULL,
    UNIQUE (operation, merchant_id, client_id, key)
);
CREATE INDEX IF NOT EXISTS idempotency_record_expires ON idempotency_record (expires_at);

CREATE TABLE IF NOT EXISTS outbox_event (
    seq        BIGSERIAL PRIMARY KEY,
    event_id   UUID NOT NULL UNIQUE,
    topic      TEXT NOT NULL,
    key        TEXT NOT NULL,
    type       TEXT NOT NULL,
    payload    BYTEA NOT NULL,
    created_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    sent_at    TIMESTAMPTZ(3)
);
CREATE INDEX IF NOT EXISTS outbox_event_unsent ON outbox_event (sent_at, seq);
