-- Webhooks (1.2.0, docs/webhooks.md): subscriptions to the change feed pushed to HTTP endpoints,
-- and the log of every delivery attempt. New tables only.
SET LOCAL lock_timeout = '5s';

-- One subscription. delivered_through is its cursor (a change_log.seq): every matching change up
-- to it was answered 2xx. The batch_* columns hold the batch in flight, frozen at its first
-- attempt so that every retry sends the same bytes under the same webhook-id; lease_* say which
-- replica sends for the subscription, until when, and the fencing token of that lease (raised
-- on every new lease, so a replica whose lease was taken over cannot advance the cursor).
-- The secret (whsec_...) is read by the runtime role to sign; it is never logged. After a rotation
-- the previous secret signs too, until previous_secret_until (two signatures per delivery).
CREATE TABLE webhooks (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  url              text NOT NULL,
  resource_types   text[] NOT NULL DEFAULT '{}',
  property_id      text NOT NULL DEFAULT '',
  full_view        boolean NOT NULL DEFAULT false,
  state            text NOT NULL DEFAULT 'ACTIVE' CHECK (state IN ('ACTIVE', 'PAUSED', 'DISABLED')),
  disabled_reason  text NOT NULL DEFAULT '',
  secret           text NOT NULL,
  previous_secret  text,
  previous_secret_until timestamptz,
  delivered_through bigint NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  lease_owner      text,
  lease_expires_at timestamptz,
  lease_token      bigint NOT NULL DEFAULT 0,
  batch_id         text,
  batch_through    bigint,
  batch_body       text,
  batch_first_seq  bigint,
  batch_oldest_at  timestamptz,
  batch_attempts   integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_created ON webhooks (created_at, id);

-- Every attempt: when, which of its batch, how long, the status or the error class, the first
-- bytes of the answer and the cursor range (after, through] it carried.
CREATE TABLE webhook_deliveries (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id     uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  batch_id       text NOT NULL,
  attempt        integer NOT NULL,
  attempted_at   timestamptz NOT NULL,
  duration_ms    integer NOT NULL,
  http_status    integer NOT NULL DEFAULT 0,
  error          text NOT NULL DEFAULT '',
  response       text NOT NULL DEFAULT '',
  cursor_after   bigint NOT NULL,
  cursor_through bigint NOT NULL,
  succeeded      boolean NOT NULL
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
