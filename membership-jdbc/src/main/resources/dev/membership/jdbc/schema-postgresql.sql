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
    renewed_at  timestamptz NOT NULL
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
