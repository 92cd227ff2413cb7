-- Logged-in client devices (POST /register_client_device): the server names each device, and a
-- device's E2EE push registration (push_devices) refers to it by that id. Devices registered for
-- push before this table named themselves: each keeps its id here where no other user's device
-- took it first, and stays valid through its push_devices row either way.
CREATE TABLE client_devices (
  id            bigserial PRIMARY KEY,
  user_id       integer NOT NULL REFERENCES users(id),
  date_created  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX client_devices_user ON client_devices (user_id);

INSERT INTO client_devices (id, user_id, date_created)
SELECT DISTINCT ON (device_id) device_id, user_id, date_created FROM push_devices ORDER BY device_id, id;
SELECT setval('client_devices_id_seq', greatest((SELECT max(device_id) FROM push_devices), 1));

-- When the provider token was last registered (push_token_last_updated_timestamp).
ALTER TABLE push_devices ADD COLUMN token_updated timestamptz;
UPDATE push_devices SET token_updated = date_updated WHERE token_id IS NOT NULL;
