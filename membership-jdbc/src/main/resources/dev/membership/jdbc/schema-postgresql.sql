-- membership's tables on PostgreSQL 14+, with the default table prefix "membership_". Run by the starter at startup
-- when membership.jdbc.initialize-schema is true (the default); otherwise run it (with your prefix) from Flyway or
-- Liquibase. Every statement is idempotent.

-- one row per lease: a plain group ("reports"), a partition ("tenants#3"); a released lease expires at 1970-01-01
CREATE TABLE IF NOT EXISTS membership_leases (
    name        text        PRIMARY KEY,
    node_id     text,
    incarnation text,
    address     text,
    epoch       bigint      NOT NULL,
    expires_at  timestamptz NOT NULL,
    acquired_at timestamptz,
    renewed_at  timestamptz NOT NULL,
    fires       jsonb       -- the last fire of each scheduled job of the group a holder began: [{job, at, ended}]
);

-- one row per lease's current term, written only when a term begins (never by a renewal): a transaction fence holds
-- it FOR SHARE until its transaction ends, so a take-over waits for (or ends) the older term's open transactions
CREATE TABLE IF NOT EXISTS membership_terms (
    name     text        PRIMARY KEY,
    epoch    bigint      NOT NULL,
    began_at timestamptz NOT NULL
);

-- one row per node process's heartbeat, stamped with the server's clock
CREATE TABLE IF NOT EXISTS membership_nodes (
    node_id     text        PRIMARY KEY,
    incarnation text        NOT NULL,
    address     text,
    started_at  timestamptz,
    updated_at  timestamptz NOT NULL,
    groups      text[]      NOT NULL,
    partitions  jsonb       NOT NULL
);

-- the roster: one row, written by the keeper (the default group's leader), fenced by its epoch and sequence
CREATE TABLE IF NOT EXISTS membership_roster (
    id          smallint    PRIMARY KEY CHECK (id = 1),
    version     bigint      NOT NULL,
    keeper      text,
    epoch       bigint      NOT NULL,
    sequence    bigint      NOT NULL,
    written_at  timestamptz NOT NULL,
    members     jsonb       NOT NULL,
    changes     jsonb       NOT NULL,
    assignments jsonb       NOT NULL
);

-- the cluster's generated broadcast keys (one row, "broadcast"; primary key first): rotate by putting a new key first
CREATE TABLE IF NOT EXISTS membership_keys (
    id         text        PRIMARY KEY,
    keys       text[]      NOT NULL,
    created_at timestamptz NOT NULL
);

-- the run history: one row per run, in a ring of membership.history.max-runs slots per job, partition and node process
-- (slot), so that it stays bounded by count; rows past membership.history.retention (expire_at) are deleted as runs
-- are written
CREATE TABLE IF NOT EXISTS membership_runs (
    slot       text        PRIMARY KEY,
    run        text        NOT NULL,
    process    text        NOT NULL,
    sequence   bigint      NOT NULL,
    job        text        NOT NULL,
    group_name text        NOT NULL,
    partition  integer,
    node_id    text        NOT NULL,
    epoch      bigint      NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at   timestamptz,
    outcome    text,
    error      text,
    requested_by   text,      -- an operator's action: who asked (the principal, "anonymous", a program's name)
    requested_from text,      -- an operator's action: the caller's address
    fire_at    timestamptz,   -- a scheduled fire: its instant in its schedule
    expire_at  timestamptz NOT NULL
);

-- a membership_runs table made by an earlier snapshot lacks requested_by, requested_from and fire_at, membership_leases
-- lacks fires: the starter adds them when the catalog says they are missing; from your own migrations:
--   ALTER TABLE membership_runs ADD COLUMN IF NOT EXISTS requested_by text, ADD COLUMN IF NOT EXISTS requested_from text,
--     ADD COLUMN IF NOT EXISTS fire_at timestamptz
--   ALTER TABLE membership_leases ADD COLUMN IF NOT EXISTS fires jsonb

CREATE INDEX IF NOT EXISTS membership_runs_newest ON membership_runs (started_at DESC);

CREATE INDEX IF NOT EXISTS membership_runs_by_job ON membership_runs (job, started_at DESC);

CREATE INDEX IF NOT EXISTS membership_runs_expiry ON membership_runs (expire_at);

CREATE INDEX IF NOT EXISTS membership_runs_by_group ON membership_runs (group_name, partition, started_at DESC);

CREATE INDEX IF NOT EXISTS membership_runs_by_node ON membership_runs (node_id, started_at DESC);
