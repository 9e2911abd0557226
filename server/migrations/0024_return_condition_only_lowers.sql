-- The return condition only lowers (1.5.0, docs/housekeeping.md): back in order, a room takes the
-- stricter of its own condition and the return condition of what held it, so a room taken out of
-- order DIRTY no longer comes back INSPECTED, skipping the rule "INSPECTED only from CLEAN". The
-- trigger function of migration 0020 is replaced in place (same signature and trigger), so every
-- writer, a 1.4 server in a rolling deploy too, applies the new rule.
SET LOCAL lock_timeout = '5s';

CREATE OR REPLACE FUNCTION return_room_to_condition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  since_day date;
  today     date;
BEGIN
  IF OLD.out_of_order AND NOT NEW.out_of_order THEN
    SELECT (coalesce(OLD.out_of_order_since, now()) AT TIME ZONE p.time_zone)::date, (now() AT TIME ZONE p.time_zone)::date
      INTO since_day, today FROM properties p WHERE p.id = NEW.property_id;
    NEW.housekeeping_condition := strictest_condition(ARRAY[NEW.housekeeping_condition,
      coalesce(strictest_condition(NEW.housekeeping_return_condition || ARRAY(
        SELECT b.return_condition FROM room_blocks b
        WHERE b.property_id = NEW.property_id AND b.room_number = NEW.number AND b.type = 'OUT_OF_ORDER'
          AND b.origin = 'API' AND b.start_date <= today AND (b.end_date IS NULL OR b.end_date > since_day)
          AND (b.status = 'ACTIVE' OR b.cancelled_at >= OLD.out_of_order_since))), 'DIRTY')]);
    NEW.housekeeping_updated_by := coalesce(nullif(current_setting('hotel.actor', true), ''), 'system');
    NEW.housekeeping_updated_at := now();
    NEW.housekeeping_reason := left('Back in order: ' || OLD.out_of_order_reason, 500);
  END IF;
  NEW.housekeeping_return_condition := NULL;
  RETURN NEW;
END
$$;
