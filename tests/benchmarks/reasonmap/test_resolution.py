"""Names in answers and references resolved as the overlays identify stations (Algorithm 1 on names)."""

from __future__ import annotations

from benchmarks.reasonmap.records import Prediction, Question
from benchmarks.reasonmap.resolution import AMBIGUOUS, graph_names
from benchmarks.reasonmap.scoring import score_prediction
from graphkit import city_graph, shortest_routes
from graphkit.segments import Segment


def shown_question(city: str, station_1: str, station_2: str, routes=None) -> Question:
    """A question as generation writes it: the stations as the map names them."""
    graph = city_graph(city)
    if routes is None:
        found = shortest_routes(graph, station_1, station_2).routes
        routes = tuple(graph.display_route(route).segments for route in found)
    return Question(
        id=f"{city}:{station_1}->{station_2}",
        country="",
        city=city,
        station_1=station_1,
        station_2=station_2,
        question_short="",
        question_long="",
        long_template="via_stops",
        routes=routes,
        difficulty_question="middle",
        difficulty_city="hard",
        city_line_count=len(graph.lines),
        city_transfer_count=0,
        question_transfer_count=len(routes[0]) - 1,
    )


def judged(question: Question, rows, *, kind: str = "short"):
    blocks = []
    for row in rows:
        block = f"Route Name: {row[0]}\nDeparture Stop: {row[1]}\nArrival Stop: {row[2]}"
        if len(row) > 3:
            block += f"\nVia Stops: {row[3]}"
        blocks.append(block)
    prediction = Prediction(question.id, "model", kind, "\n--\n".join(blocks))
    return score_prediction(prediction, question, city_graph(question.city))


def test_xidan_spelt_either_way_on_line_1_is_the_transfer_station():
    question = shown_question("beijing", "天安门西站", "灵境胡同站")
    assert [(s.route_name, s.arrival_stop) for s in question.routes[0]] == [
        ("Line 1", "西单站"),
        ("Line 4", "灵境胡同站"),
    ]
    for on_line_1 in ("西单站", "西单", "Xidan Station"):
        answer = [("Line 1", "天安门西站", on_line_1), ("Line 4", "西单站", "灵境胡同站")]
        assert judged(question, answer).correct == 1, on_line_1


def test_references_spelt_as_the_data_spells_them_accept_either_spelling():
    # the public data set's references say 西单 on Line 1 and 西单站 on Line 4
    as_listed = (Segment("Line 1", "天安门西站", "西单", ()), Segment("Line 4", "西单站", "灵境胡同站", ()))
    question = shown_question("beijing", "天安门西站", "灵境胡同站", routes=(as_listed,))
    answer = [("Line 1", "天安门西站", "西单站"), ("Line 4", "西单", "灵境胡同站")]
    verdict = judged(question, answer)
    assert verdict.correct == 1
    assert (
        verdict.map_score
        == judged(question, [(s.route_name, s.departure_stop, s.arrival_stop) for s in as_listed]).map_score
    )


def test_a_shared_name_resolves_within_the_sections_line():
    names = graph_names(city_graph("new_york"))
    assert names.station("125 St Station", "1") == "125 St Station@1"
    assert names.station("125 st", "6") == "125 St Station@4"
    assert names.station("125 St Station", "A") == "125 St Station@A"
    assert names.station("125 St Station") is AMBIGUOUS


def test_125_st_on_the_1_is_the_1s_station_in_via_stops():
    question = shown_question("new_york", "137 St-City College Station", "116 St-Columbia University Station")
    assert question.routes == (
        (Segment("1", "137 St-City College Station", "116 St-Columbia University Station", ("125 St Station",)),),
    )
    rows = [("1", "137 St-City College Station", "116 St-Columbia University Station", "125 St Station")]
    as_shown = judged(question, rows, kind="long")
    assert as_shown.correct == 1
    qualified = judged(question, [(*rows[0][:3], "125 St Station@1")], kind="long")
    assert as_shown.map_score == qualified.map_score
    elsewhere = judged(question, [(*rows[0][:3], "125 St Station@4")], kind="long")  # the 4's 125 St
    assert elsewhere.map_score < as_shown.map_score


def test_the_false_transfer_at_125_st_is_wrong():
    question = shown_question("new_york", "Van Cortlandt Park-242 St Station", "Woodlawn Station")
    assert question.question_transfer_count == 2
    false_transfer = [
        ("1", "Van Cortlandt Park-242 St Station", "125 St Station"),
        ("4", "125 St Station", "Woodlawn Station"),
    ]
    assert judged(question, false_transfer).correct == 0
    reference = [(s.route_name, s.departure_stop, s.arrival_stop) for s in question.routes[0]]
    assert judged(question, reference).correct == 1


def test_a_question_naming_a_shared_name_means_the_one_its_reference_rides_from():
    # the public data set may ask from "125 St Station": its reference's line says which one
    routes = (
        (
            Segment(
                "1",
                "125 St Station",
                "96 St Station",
                ("116 St-Columbia University Station", "Cathedral Pkwy(110 St) Station", "103 St Station"),
            ),
        ),
    )
    question = shown_question("new_york", "125 St Station", "96 St Station", routes=routes)
    assert judged(question, [("1", "125 St Station", "96 St Station")]).correct == 1
    assert judged(question, [("Line 1", "125 St", "96 St")]).correct == 1
    assert (
        judged(question, [("4", "125 St Station", "86 St Station"), ("6", "86 St Station", "96 St Station")]).correct
        == 0
    )
