import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "models" / "samples"
DATA = pathlib.Path(__file__).resolve().parent / "data"


def cxx_cli():
    """The C++ command line when one is built: $ONEMODEL_CLI, else build/rel or build/checked."""
    candidates = [os.environ.get("ONEMODEL_CLI", ""), ROOT / "build" / "rel" / "onemodel",
                  ROOT / "build" / "checked" / "onemodel"]
    for c in candidates:
        if c and pathlib.Path(c).is_file() and os.access(c, os.X_OK):
            return str(c)
    return None


@pytest.fixture
def samples():
    return SAMPLES
