-- The operators' approval queue (ShipmentAdminService.ListPendingShipments): PENDING_APPROVAL
-- shipments of every merchant, oldest first, read as an index range rather than a table scan.
CREATE INDEX "shipment_state_created_at_id_idx" ON "shipment"("state", "created_at", "id");
