"""Record pieces every task shares: the fields of a prediction row, checked fields, the invalid-answer marker."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, ClassVar, TypeVar

from benchmarks.errors import InvalidRecord

__all__ = [
    "Invalid",
    "answer_fields",
    "field_of",
    "repeat_of",
    "record_builder",
    "unmatched",
    "wrong_type",
    "prediction_row",
    "answer_type",
    "TypedPrediction",
    "check_answers",
    "score_matched",
]

R = TypeVar("R")
V = TypeVar("V")
P = TypeVar("P", bound="TypedPrediction")


@dataclass(frozen=True, slots=True)
class Invalid:
    """A response that did not parse; ``reason`` says why (``refusal`` among them).

    Attributes
    ----------
    reason : str
        Why it did not parse, for people.
    refusal : bool
        The response declines to answer.

    Examples
    --------
    >>> Invalid("no route found")
    Invalid(reason='no route found', refusal=False)
    """

    reason: str
    refusal: bool = False


def unmatched(prediction_id: str) -> str:
    """Why a prediction was skipped when no question has its id: every task's ``score_*predictions`` says so.

    Each task's batch scorer returns ``(verdicts, skipped)``, ``skipped`` holding one such message per
    prediction left out, in input order (never bare ids).

    Parameters
    ----------
    prediction_id : str
        The prediction's ``id``.

    Returns
    -------
    str
        The one-line message.

    Examples
    --------
    >>> unmatched("rome-0001")
    "prediction 'rome-0001' matches no question"
    """
    return f"prediction {prediction_id!r} matches no question"


def wrong_type(prediction_id: str, answered: str, question_id: str, question_type: str) -> str:
    """Why a prediction was skipped when its ``question`` field names another type than its question's.

    Parameters
    ----------
    prediction_id : str
        The prediction's ``id``.
    answered : str
        The type its ``question`` field names.
    question_id, question_type : str
        The question with that id, and its type.

    Returns
    -------
    str
        The one-line message.

    Examples
    --------
    >>> wrong_type("q1", "TorF1", "q1", "Counting2")
    "prediction 'q1' answers a TorF1 question; 'q1' is Counting2"
    """
    return f"prediction {prediction_id!r} answers a {answered} question; {question_id!r} is {question_type}"


def field_of(record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``record[name]``, checked to be of ``kind``; the error names the record and field.

    Parameters
    ----------
    record : mapping
        A record.
    name : str
        The field.
    kind : type or tuple of type
        What it must be (``int`` refuses a ``bool``).
    where : str
        Where the record is, for the message.

    Returns
    -------
    Any
        The field's value.

    Raises
    ------
    InvalidRecord
        The field is missing or of another type.
    """
    if name not in record:
        raise InvalidRecord(f"{where}: missing field {name!r}")
    value = record[name]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidRecord(f"{where}: field {name!r} must be {expected}, got {value!r:.80}")
    return value


def answer_fields(record: Any, where: str) -> tuple[str, str, str, int | None]:
    """``id, model, response, tokens`` of any prediction row, checked; every benchmark's predictions share them.

    A ``null`` response (a failed call) reads as ``""``: scored as invalid, not dropped.

    Parameters
    ----------
    record : Any
        A prediction row (a JSON object).
    where : str
        Where it is, for the message (file and line).

    Returns
    -------
    id, model, response : str
    tokens : int or None

    Raises
    ------
    InvalidRecord
        Not an object, or a field missing or of the wrong type.
    """
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"{where}: a prediction must be a JSON object")
    tokens = record.get("tokens")
    if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0):
        raise InvalidRecord(f"{where}: field 'tokens' must be a non-negative integer or null, got {tokens!r:.80}")
    response = record.get("response")
    if response is None:
        response = ""
    if not isinstance(response, str):
        raise InvalidRecord(f"{where}: field 'response' must be a string, got {type(response).__name__}")
    identifier = str(field_of(record, "id", (str, int), where))
    return identifier, field_of(record, "model", str, where), response, tokens


def prediction_row(prediction: Any, question: str | None) -> dict[str, Any]:
    """A prediction's row, as every task writes it: ``id, model, question, response, tokens``, then ``repeat`` when
    it is not 0 (absent means 0: single-answer rows keep their bytes).

    Parameters
    ----------
    prediction : Any
        The prediction (read by its ``id``, ``model``, ``response``, ``tokens`` and ``repeat``).
    question : str or None
        The type of question it answers (the row's ``question``).

    Returns
    -------
    dict
        The row, its keys in that order.

    Examples
    --------
    >>> from types import SimpleNamespace as Prediction
    >>> prediction_row(Prediction(id="q1", model="m", response="B", tokens=None, repeat=2), "TorF1")
    {'id': 'q1', 'model': 'm', 'question': 'TorF1', 'response': 'B', 'tokens': None, 'repeat': 2}
    """
    record: dict[str, Any] = {
        "id": prediction.id,
        "model": prediction.model,
        "question": question,
        "response": prediction.response,
        "tokens": prediction.tokens,
    }
    if prediction.repeat:
        record["repeat"] = prediction.repeat
    return record


def answer_type(record: Mapping[str, Any], types: Sequence[str], what: str, where: str) -> str | None:
    """A prediction row's ``question``: the type of question it says it answers.

    Parameters
    ----------
    record : mapping
        A prediction row.
    types : sequence of str
        The task's question types.
    what : str
        What the types are, as the error names them (``a plus type``).
    where : str
        Where the row is (``file:line``), as the error names it.

    Returns
    -------
    str or None
        One of ``types``, or ``None`` when the row leaves it out (or holds ``null``).

    Raises
    ------
    InvalidRecord
        The row's ``question`` is none of ``types``.

    Examples
    --------
    >>> answer_type({"question": "TorF1"}, ("TorF1", "counting"), "a plus type", "p.jsonl:3")
    'TorF1'
    >>> answer_type({}, ("TorF1",), "a plus type", "p.jsonl:3") is None
    True
    """
    kind = record.get("question")
    if kind is not None and kind not in types:
        raise InvalidRecord(f"{where}: field 'question' must be {what} {list(types)} or absent")
    return kind


def repeat_of(record: Mapping[str, Any], where: str) -> int:
    """A prediction row's ``repeat``: which of several answers to one request it is (0-based; absent is 0).

    Parameters
    ----------
    record : mapping
        A prediction row.
    where : str
        Where it is, for the message.

    Returns
    -------
    int

    Raises
    ------
    InvalidRecord
        ``repeat`` is not a non-negative integer.
    """
    value = record.get("repeat", 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidRecord(f"{where}: field 'repeat' must be a non-negative integer, got {value!r:.80}")
    return value


def record_builder(cls: type[R]) -> Callable[..., R]:
    """A constructor of the frozen, slotted dataclass ``cls`` that takes every field by position and sets each
    slot directly: ``build(*values) == cls(*values)``, in about half the time.

    The ``__init__`` a frozen dataclass gets calls ``object.__setattr__`` once per field; the builder calls
    each slot's own setter, which is what that call ends in. For the records made once per answer (a
    verdict, a parsed section), where that time adds up. No default is filled in and nothing is checked.

    Parameters
    ----------
    cls : type
        A frozen, slotted dataclass.

    Returns
    -------
    callable
        ``build(*values)``.

    Raises
    ------
    TypeError
        ``cls`` is not a frozen dataclass with slots, or has a ``__post_init__`` (which the builder would skip).

    Examples
    --------
    >>> build = record_builder(Invalid)
    >>> build("refusal", True) == Invalid("refusal", refusal=True)
    True
    """
    if not is_dataclass(cls) or not cls.__dataclass_params__.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"record_builder needs a frozen dataclass with slots, got {cls.__name__}")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"record_builder: {cls.__name__} has a __post_init__, which a builder would not run")
    names = [field.name for field in fields(cls)]
    arguments = ", ".join(f"value_{index}" for index in range(len(names)))
    lines = [f"def build({arguments}):", "    record = new(cls)"]
    lines += [f"    set_{index}(record, value_{index})" for index in range(len(names))]
    lines.append("    return record")
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    for index, name in enumerate(names):  # the slot's descriptor, in the class that declares it
        namespace[f"set_{index}"] = next(vars(k)[name] for k in cls.__mro__ if name in vars(k)).__set__
    exec("\n".join(lines), namespace)  # one line per field, as dataclasses writes __init__
    build = namespace["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    return build


@dataclass(frozen=True, slots=True)
class TypedPrediction:
    """One model answer to a question of a task with several question types (plus, probe): the row's
    ``question`` says which type it answers. A task subclasses it, naming its types in ``types`` and ``what``.

    Parameters
    ----------
    id : str
        The question's id.
    model : str
        The model.
    response : str
        Its answer, as written.
    tokens : int, optional
        The output tokens, when reported.
    question : str, optional
        The type the row says it answers (``None``: not said).
    repeat : int, optional
        Which answer to the same request this is (0-based).
    """

    #: the task's question types, which a row's ``question`` must be one of
    types: ClassVar[Sequence[str]] = ()
    #: what a type is called in the message when a row's ``question`` is not one
    what: ClassVar[str] = "a question type"

    id: str
    model: str
    response: str
    tokens: int | None = None
    question: str | None = None
    #: which answer to the same request this is (0-based)
    repeat: int = 0

    def to_dict(self) -> dict[str, Any]:
        return prediction_row(self, self.question)

    @classmethod
    def from_dict(cls: type[P], record: Any, *, where: str = "prediction") -> P:
        identifier, model, response, tokens = answer_fields(record, where)
        kind = answer_type(record, cls.types, cls.what, where)
        return cls(identifier, model, response, tokens, kind, repeat_of(record, where))


def check_answers(prediction: Any, question: Any) -> None:
    """Refuse to score a prediction against a question it does not answer.

    Parameters
    ----------
    prediction : Any
        A prediction (read by its ``id``).
    question : Any
        A question (read by its ``id``).

    Raises
    ------
    ValueError
        Their ids differ.

    Examples
    --------
    >>> from types import SimpleNamespace as Record
    >>> check_answers(Record(id="q2"), Record(id="q1"))
    Traceback (most recent call last):
    ValueError: prediction 'q2' answers another question than 'q1'
    """
    if prediction.id != question.id:
        raise ValueError(f"prediction {prediction.id!r} answers another question than {question.id!r}")


def score_matched(
    questions: Mapping[str, Any], predictions: Iterable[Any], score: Callable[[Any, Any], V]
) -> tuple[list[V], list[str]]:
    """Score each prediction against the question with its id; skip, with a message, those that answer none
    (:func:`unmatched`) or say they answer another type than their question's (:func:`wrong_type`).

    Parameters
    ----------
    questions : mapping
        Question id to question (with a ``type`` where predictions say one).
    predictions : iterable
        The predictions; one with a ``question`` that is not ``None`` names the type it answers.
    score : callable
        ``score(prediction, question)``: a verdict.

    Returns
    -------
    verdicts : list
        One per prediction that matches a question, in input order.
    skipped : list of str
        Why the others were skipped, one message each.

    Examples
    --------
    >>> from types import SimpleNamespace as Record
    >>> questions = {"q1": Record(id="q1", type="TorF1")}
    >>> rows = [Record(id="q1", question=None), Record(id="q9", question=None), Record(id="q1", question="TorF2")]
    >>> verdicts, skipped = score_matched(questions, rows, lambda prediction, question: question.id)
    >>> verdicts, len(skipped)
    (['q1'], 2)
    """
    verdicts: list[V] = []
    skipped: list[str] = []
    for prediction in predictions:
        question = questions.get(prediction.id)
        said = getattr(prediction, "question", None)
        if question is None:
            skipped.append(unmatched(prediction.id))
        elif said is not None and said != question.type:
            skipped.append(wrong_type(prediction.id, said, question.id, question.type))
        else:
            verdicts.append(score(prediction, question))
    return verdicts, skipped
