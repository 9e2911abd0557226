-- The columns every equipment statement returns, in the order of equipment_columns in
-- equipment/equipment_sql.h (ReadEquipment reads them by those names), and their table.
SELECT e.id::text AS id, e.property_id, e.room_number, e.name, e.type, e.manufacturer, e.model, e.serial_number,
       coalesce(to_char(e.installed_on, 'YYYY-MM-DD'), '') AS installed_on,
       coalesce(to_char(e.warranty_expires_on, 'YYYY-MM-DD'), '') AS warranty_expires_on, e.status, e.notes,
       (extract(epoch FROM e.created_at) * 1000000)::int8 AS created_at_micros
FROM equipment e
