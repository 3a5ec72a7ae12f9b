"""What tests share that is not a fixture: the CLI runner, loopback servers, scripted runs, the
browser and view kits, cluster and batch helpers. Test modules import from here (or from
`agent_runtime.testing`, the public doubles); no test module imports another, and benchmarks import
only from here (tests/test_tests_layout.py holds both)."""
