-- Two database roles for one Expert Network database (deploy/README.md, "Database roles"):
--   expertnet_migrate  owns the schemas and tables: the migrations Job connects as it (DDL).
--   expertnet_app      every serving role connects as it: reads and writes rows (DML), no DDL.
-- Run once per database, as its owner or a superuser, before the first migrations Job:
--   psql "postgres://ADMIN@HOST:5432/expertnet" -f deploy/postgres/roles.sql
-- then give each role its password (\password expertnet_migrate, \password expertnet_app) and put
-- the two URLs in the two Secrets: expertnet-migrations/MIGRATION_DATABASE_URL (migrate) and
-- expertnet-secrets/DATABASE_URL (app). Running it again changes nothing.
--
-- The processes migrate at start too: with every migration already recorded by the Job, that is a
-- read of each schema's schema_migrations, which the app role may do; a release with new
-- migrations must run the Job first (the rollout order does), or its pods fail to start.
-- Search builds its pgvector HNSW indexes at run time (one per embedder and dimension,
-- services/search/pipeline/vectors.ts), which only the owner of search.documents may do: with
-- pgvector installed, the app role is a member of search_index_owner, the owner of that one table
-- with CREATE on the search schema (the last block, once the first migrations Job has run): the
-- one place the app role may change the schema, and the search schema only.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'expertnet_migrate') THEN
    CREATE ROLE expertnet_migrate LOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'expertnet_app') THEN
    CREATE ROLE expertnet_app LOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'search_index_owner') THEN
    CREATE ROLE search_index_owner NOLOGIN;
  END IF;
  EXECUTE format('GRANT CONNECT, CREATE ON DATABASE %I TO expertnet_migrate', current_database());
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO expertnet_app', current_database());
  EXECUTE format('REVOKE CREATE ON DATABASE %I FROM PUBLIC', current_database());
END $$;

-- Nothing created in the public schema by anyone but its owner.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- What expertnet_migrate creates, expertnet_app may use: the schemas (USAGE), their tables
-- (rows only), sequences and functions (the triggers' and the search's).
ALTER DEFAULT PRIVILEGES FOR ROLE expertnet_migrate GRANT USAGE ON SCHEMAS TO expertnet_app;
ALTER DEFAULT PRIVILEGES FOR ROLE expertnet_migrate GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO expertnet_app;
ALTER DEFAULT PRIVILEGES FOR ROLE expertnet_migrate GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO expertnet_app;
ALTER DEFAULT PRIVILEGES FOR ROLE expertnet_migrate GRANT EXECUTE ON FUNCTIONS TO expertnet_app;

-- Run again after the first migrations Job (search.documents exists then): search.documents is
-- owned by search_index_owner, of which both roles are members (the Job alters it, search indexes it).
GRANT search_index_owner TO expertnet_migrate;
DO $$
BEGIN
  IF to_regclass('search.documents') IS NOT NULL THEN
    ALTER TABLE search.documents OWNER TO search_index_owner;
    -- An index lives in its table's schema: building one needs CREATE there.
    GRANT CREATE ON SCHEMA search TO search_index_owner;
    GRANT search_index_owner TO expertnet_app;
  END IF;
END $$;
