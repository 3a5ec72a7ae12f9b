"""The research domain: sources and what a report may say of them. (Not named `research`: a
subpackage of that name would shadow the public function `agent_runtime.research` once imported.)

The workspace's files and how a title names it (`layout`), the ledger of every source a run
retrieved (`ledger`), the check of a citation against what its source says (`citecheck`), the
report-level audit of every cited pair (`citation_audit`), and the
finalization of a report: citations renumbered, references built, problems listed (`finalize`).

It imports the engine and the shared leaves, never the app or the actions.
"""
