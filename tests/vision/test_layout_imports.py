"""The layout imports igraph as the graph does, without matplotlib (about 0.4 s of every render's start-up)."""

import subprocess
import sys


def test_a_layout_does_not_import_matplotlib():
    code = (
        "import sys\n"
        "from graphkit.cities import city_graph\n"
        "from vision.layout import grid_layout\n"
        "grid_layout(city_graph('miami'), seed=1)\n"
        "print('igraph' in sys.modules, 'matplotlib' in sys.modules)\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert shown == ["True", "False"]
