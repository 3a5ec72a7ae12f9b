"""The sources a run has seen, each under a stable id `S<n>` owned by code (never by the model).

One job a module: `urls` (the canonical URL a source is known by), `records` (the record model),
`front_matter` (the head of a snapshot `sources/S<n>.md`), `snapshots` (which files a record may
name), `journal` (the ledger's two files, and appending to the journal), `ledger` (the `Ledger`:
ids, loading, saving, compaction).
"""
