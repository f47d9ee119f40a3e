-- Rows, each a document (the JSON of the API's object, kept as the exact bytes the server
-- wrote) under its primary key in its table, and the keys each row has in its table's
-- indexes. Keys and primary keys are bytea: they compare byte by byte as Go strings do, and
-- may hold any byte (text refuses NUL and bytes that are not UTF-8).
CREATE TABLE rows (
	tbl text COLLATE "C" NOT NULL,
	pk bytea NOT NULL,
	doc bytea NOT NULL,
	PRIMARY KEY (tbl, pk)
);

-- The keys of unique indexes: one row per key.
CREATE TABLE unique_keys (
	tbl text COLLATE "C" NOT NULL,
	idx smallint NOT NULL,
	key bytea NOT NULL,
	pk bytea NOT NULL,
	PRIMARY KEY (tbl, idx, key)
);
CREATE INDEX unique_keys_row ON unique_keys (tbl, pk);

-- The keys of ordered and counted indexes, in key order, then primary key order.
CREATE TABLE index_keys (
	tbl text COLLATE "C" NOT NULL,
	idx smallint NOT NULL,
	key bytea NOT NULL,
	pk bytea NOT NULL,
	PRIMARY KEY (tbl, idx, key, pk)
);
CREATE INDEX index_keys_row ON index_keys (tbl, pk);

-- The indexes each table had when its keys were last written: a server whose table has
-- other indexes rebuilds that table's keys from the documents when it starts.
CREATE TABLE table_defs (
	tbl text COLLATE "C" PRIMARY KEY,
	indexes text NOT NULL
);

-- Facts about the database as a whole: 'seeded' once a first reset has loaded the seed.
CREATE TABLE meta (
	name text COLLATE "C" PRIMARY KEY,
	value text NOT NULL
);

-- Write transactions lock it (it holds no rows): in ROW SHARE mode, which they share, or,
-- one that runs again after a conflict with another, in EXCLUSIVE mode, to run alone.
CREATE TABLE writers ();

-- The rows for people: every document as JSON and every primary key as text. A document
-- or key that is not UTF-8 (only a hostile client can store one) makes a query over it
-- fail; read that row from rows itself.
CREATE VIEW documents AS
	SELECT tbl AS "table", convert_from(pk, 'UTF8') AS pk, convert_from(doc, 'UTF8')::json AS doc
	FROM rows;
