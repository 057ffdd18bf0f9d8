"""A pinned package its registry no longer serves is named and skipped, never a failure:
the committed tables stay the source of every build."""

import subprocess
import sys

import pytest

from pyshim.tables import fetch
from pyshim.tables.sources import DEBIAN, PYPI, Source

pytestmark = pytest.mark.network


@pytest.mark.parametrize("source", [
    Source("gone-pypi", PYPI, "nvidia-cuda-runtime", "0.0.0.1", ("nvidia/",)),
    Source("gone-debian", DEBIAN, "libamdhip64-dev", "0.0.1-1", ("usr/include/",), "sid"),
], ids=["pypi", "debian"])
def test_a_vanished_pin_is_named(source, tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_HEADERS", str(tmp_path))
    with pytest.raises(fetch.SourceVanished) as info:
        fetch.fetch(source, quiet=True)
    assert f"{source.package}=={source.version}" in str(info.value)
    assert info.value.source is source


def test_tables_check_skips_when_a_pin_vanished(tmp_path):
    """`pyshim tables check` with a pin that no longer exists: exit 0, SKIPPED, the pin named."""
    code = (
        "import sys\n"
        "from pyshim.tables import sources\n"
        "from pyshim.tables.sources import PYPI, Source\n"
        "gone = Source('gone', PYPI, 'nvidia-cuda-runtime', '0.0.0.1', ('nvidia/',))\n"
        "sources.SOURCES = (gone,)\n"
        "import pyshim.tables.fetch as f\n"
        "f.SOURCES = sources.SOURCES\n"
        "from pyshim.cli import main\n"
        "sys.exit(main(['tables', 'check']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYSHIM_HEADERS": str(tmp_path), "PATH": "/usr/bin:/bin",
                               "HOME": str(tmp_path)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "SKIPPED" in proc.stderr and "nvidia-cuda-runtime==0.0.0.1" in proc.stderr
