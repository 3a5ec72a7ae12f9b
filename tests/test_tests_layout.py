"""The tests stand alone: a test module imports the code under test, the public doubles
(`agent_runtime.testing`) and the shared kit in `tests/support/`, never another test module; the
benchmarks import nothing of the tests but `tests/support/`. So moving or deleting one test module
breaks no other, and a benchmark never leans on a test's private helper.

A "test module" here is every module under tests/ outside tests/support/ and tests/data/ (a
test_*.py, a conftest.py, a package's __init__.py). Imports are read with `ast`, function-level ones
included; a bare `import name` counts too, as pytest puts a test folder without __init__.py on
sys.path, where it would find a sibling module by its file name."""

from __future__ import annotations

from pathlib import Path

from tests.support.import_graph import ROOT, imports_of

TESTS = ROOT / "tests"
SUPPORT = TESTS / "support"
# Scripts kept beside the data they make (not imported by any test).
DATA = TESTS / "data"


def modules_of_the_tests() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if not p.is_relative_to(SUPPORT) and not p.is_relative_to(DATA))


def bad_imports(path: Path, source: str | None = None) -> list[str]:
    """What `path` imports of the tests beyond tests/support/: a `tests.…` module, or a test module
    under the bare name pytest's sys.path would give it."""
    bare = {p.stem for p in modules_of_the_tests() if p.name != "__init__.py"}
    found = imports_of(path, packages=("tests", *bare), source=source)
    return sorted(name for name in found if name not in ("tests", "tests.support") and not name.startswith("tests.support."))


def test_no_test_module_imports_another() -> None:
    offenders = {str(p.relative_to(ROOT)): bad for p in modules_of_the_tests() if (bad := bad_imports(p))}
    assert not offenders, f"test modules that import other test modules (move what they share to tests/support/): {offenders}"


def test_the_support_kit_imports_no_test_module() -> None:
    offenders = {str(p.relative_to(ROOT)): bad for p in sorted(SUPPORT.rglob("*.py")) if (bad := bad_imports(p))}
    assert not offenders, offenders


def test_benchmarks_import_no_private_test_helper() -> None:
    benchmarks = sorted((ROOT / "benchmarks").rglob("*.py"))
    assert benchmarks
    offenders = {str(p.relative_to(ROOT)): bad for p in benchmarks if (bad := bad_imports(p))}
    assert not offenders, f"benchmarks may import tests/support/ or agent_runtime.testing only: {offenders}"


def test_the_rule_catches_an_import_of_a_test_module() -> None:
    """The rule itself: each way of importing a test module is caught, the kit is not."""
    module = TESTS / "actions" / "test_probe.py"  # a place in the tree; the file need not exist
    cases = {
        "from tests.conftest import cli_env\n": ["tests.conftest", "tests.conftest.cli_env"],
        "from tests.support.cli import cli_env\n": [],
        "import tests.support.loopback\n": [],
        "def f():\n    from tests.actions.test_finish import x\n": ["tests.actions.test_finish", "tests.actions.test_finish.x"],
        "import test_web_documents\n": ["test_web_documents"],
        "from .test_finish import x\n": ["tests.actions.test_finish", "tests.actions.test_finish.x"],
    }
    for source, expected in cases.items():
        assert bad_imports(module, source) == expected, source
