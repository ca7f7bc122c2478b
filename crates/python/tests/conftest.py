import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
DATA = pathlib.Path(__file__).resolve().parent / "data"
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="session")
def cli():
    """The mbsolve binary: $MBSOLVE_BIN, else target/release/mbsolve (built if missing)."""
    exe = pathlib.Path(os.environ.get("MBSOLVE_BIN", REPO / "target" / "release" / "mbsolve"))
    if not exe.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "mbsolve"], cwd=REPO, check=True)
    return exe
