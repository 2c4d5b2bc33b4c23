"""The compiled transit graph: statistics, tiers, components, networkx export."""

from __future__ import annotations

import networkx as nx
import pytest

from graphkit import all_city_stats, city_graph, city_names, city_stats, load_metro
from graphkit.cities import city_path
from graphkit.errors import TransitError, UnknownCity, UnknownLine
from tests.networks import BRANCH, BRANCH_OVERLAY, DISCONNECTED, LOOP, LOOP_OVERLAY, graph_of


def test_statistics_count_lines_stations_and_transfer_stations():
    graph = graph_of(LOOP, LOOP_OVERLAY)
    stats = city_stats(graph.metro)
    assert (stats.lines, stats.stations, stats.transfer_stations) == (2, 10, 1)
    assert graph.transfer_stations() == ("L2",)


def test_difficulty_tiers_split_the_30_cities_in_thirds():
    stats = all_city_stats()
    assert len(stats) == 30
    tiers = {tier: [s for s in stats if s.difficulty == tier] for tier in ("easy", "middle", "hard")}
    assert [len(found) for found in tiers.values()] == [10, 10, 10]
    # a harder tier never has both fewer lines and fewer transfer stations than an easier one's maximum
    assert max(s.lines for s in tiers["easy"]) <= max(s.lines for s in tiers["hard"])
    assert max(s.transfer_stations for s in tiers["easy"]) <= min(s.transfer_stations for s in tiers["hard"])


def test_a_city_outside_the_30_is_placed_by_the_same_thresholds():
    tiny = load_metro({"Line 1": ["A", "B"]}, city="tiny")
    huge = load_metro({f"Line {n}": ["Hub", f"S{n}a", f"S{n}b", f"X{n % 7}"] for n in range(40)}, city="huge")
    assert city_stats(tiny).difficulty == "easy"
    assert city_stats(huge).difficulty == "hard"


def test_components_of_a_disconnected_network():
    assert graph_of(DISCONNECTED).components() == [("A", "B", "C"), ("D", "E")]


@pytest.mark.parametrize("city", city_names())
def test_every_embedded_city_is_connected(city):
    assert len(city_graph(city).components()) == 1


def test_networkx_export_joins_neighbours_on_each_line():
    graph = graph_of(BRANCH, BRANCH_OVERLAY)
    exported = graph.to_networkx()
    assert isinstance(exported, nx.Graph)
    assert exported.has_edge("M2", "B1") and not exported.has_edge("M5", "B1")
    assert exported.edges["M4", "M3"]["lines"] == ["Line B"]
    assert sorted(exported.nodes["M4"]["lines"]) == ["Line B", "Line C"]
    assert nx.is_connected(exported)


def test_networkx_export_matches_the_data_for_a_real_city():
    graph = city_graph("beijing")
    exported = graph.to_networkx()
    assert exported.number_of_nodes() == len(graph.stations)
    assert exported.has_edge("西直门站", "车公庄站")  # the loop is closed


def test_line_lookup_and_unknown_names():
    graph = city_graph("new_york")
    assert graph.resolve_line("Line 1") == "1"
    with pytest.raises(UnknownLine):
        graph.line("Line 99")
    with pytest.raises(UnknownCity, match="new_york"):
        city_path("new yrok")
    with pytest.raises(TransitError):
        from graphkit import compile_graph

        compile_graph({"Line 1": ["A"]})


def test_compiling_a_graph_imports_no_plotting_library_and_leaves_matplotlib_importable():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys\n"
        "from graphkit import city_graph\n"
        "assert city_graph('rome').least_cost('Termini Station', 'Colosseo Station')\n"
        "assert 'matplotlib' not in sys.modules, 'igraph pulled in matplotlib'\n"
        "import matplotlib.pyplot\n"  # blocked only while igraph loads
        "assert sys.modules['matplotlib'] is not None\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(root)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_compiling_and_reading_a_graph_leaves_numpy_and_igraph_unimported_until_routes_are_searched():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys\n"
        "from graphkit import city_graph\n"
        "graph = city_graph('beijing')\n"
        "assert graph.lines_at('西直门站') and graph.station_index.resolve('西直门') == '西直门站'\n"
        "assert 'numpy' not in sys.modules, 'numpy imported for names and lines'\n"
        "assert 'igraph' not in sys.modules, 'igraph imported for names and lines'\n"
        "assert graph.least_cost('西直门站', '车公庄站') == (0, 1)\n"  # a search: numpy and igraph now, as usual
        "assert sys.modules['numpy'] is not None and sys.modules['igraph'] is not None\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(root)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
