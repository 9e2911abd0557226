-- Every committed change to what GetRoom reads notifies channel room_data_changed, so servers
-- can keep rooms in memory and drop them when they change (rooms/room_cache.h). Statement-level,
-- and PostgreSQL folds equal notifications of one transaction into one: a bulk change costs one.
CREATE FUNCTION notify_room_data_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('room_data_changed', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

DO $$
DECLARE
  source text;
BEGIN
  FOREACH source IN ARRAY ARRAY['properties', 'room_types', 'rooms', 'equipment', 'images', 'image_files'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION notify_room_data_changed()',
                   source || '_notify_room_data_changed', source);
  END LOOP;
END
$$;
