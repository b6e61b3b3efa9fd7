-- decisions.md section 11: events held by a pause are sent on resume if they are at most 24 h old;
-- older ones are dropped (counted in webhook_deliveries_dropped_total). A dropped delivery is
-- complete (completed_at set), so retention removes it with the others.
ALTER TYPE "delivery_status" ADD VALUE 'DROPPED';
