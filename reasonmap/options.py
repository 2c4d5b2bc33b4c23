"""Command-line options shared by several commands, defined once so that one thing has one spelling.

The model client's options (``run``, ``vdi``, ``eval``), the prompt options
(``prompts``, ``run``, ``eval``) and the help formatter that shows each
option's default. Nothing heavy is imported here: ``reasonmap --help``
stays quick, and each option's choices are its registry's (:class:`graphkit.choices.Choices`), read
when the option is checked or the command's help shown.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any

from graphkit.choices import Choices
from reasonmap.pixel_budgets import (
    PIXEL_BUDGET_RANGE,
    budget_label,
    check_pixel_budget,
    one_pixel_budget,
    parse_pixel_budgets,
)
from reasonmap.resampling_options import (
    CLUSTERS,
    RESAMPLE_RANGE,
    add_cluster_option,
    add_resampling_options,
    seed_value,
)

__all__ = [
    "TASKS",
    "GENERATED_TASKS",
    "VARIANTS",
    "WEIGHTINGS",
    "MODES",
    "SERVED_SOLVERS",
    "SOLVERS",
    "TEXTUALIZATIONS",
    "ALIAS_STRATEGIES",
    "SOURCES",
    "KINDS",
    "SPLITS",
    "seed_value",
    "comma_list",
    "DEFAULT_PIXEL_BUDGET",
    "DEFAULT_MAX_ROUTES",
    "DEFAULT_PER_TYPE",
    "EXECUTORS",
    "RAIL_MODES",
    "TIERS",
    "SCRIPTS",
    "PALETTES",
    "ENGINES",
    "DEVICES",
    "ROTATIONS",
    "DEFAULT_PIXEL_LIMIT",
    "BYTES_PER_PIXEL",
    "Help",
    "Parser",
    "RegistryHelp",
    "registry_fields",
    "add_client_options",
    "add_repeat_options",
    "parse_pixel_budgets",
    "check_pixel_budget",
    "budget_label",
    "add_prompt_options",
    "add_metro_dir",
    "add_task_option",
    "check_prompt_options",
    "client_options",
    "PIXEL_BUDGET_RANGE",
    "report_skipped",
    "CLUSTERS",
    "RESAMPLE_RANGE",
    "add_cluster_option",
    "add_resampling_options",
]

# The registries' own choices, read when an option is checked or a command's help is shown (building the parser
# imports none of them: graphkit loads igraph).
#: :func:`benchmarks.tasks.task_names`
TASKS = Choices("benchmarks.tasks:task_names")
#: the tasks whose record has a ``generation`` (:class:`benchmarks.tasks.Generation`)
GENERATED_TASKS = Choices("benchmarks.tasks:generated_task_names")
#: every task's scoring variants, each once, in the registry's order
VARIANTS = Choices("benchmarks.tasks:variant_names")
#: every task's weightings, each once
WEIGHTINGS = Choices("benchmarks.tasks:weighting_names")
#: every task's prompt modes
MODES = Choices("baselines.prompts:MODES")
#: every task's solvers, the route task's order
SOLVERS = Choices("benchmarks.tasks:solver_names")
#: the route task's symbolic solvers, which ``reasonmap serve`` answers with
SERVED_SOLVERS = Choices("baselines.solvers:SOLVERS")
#: the textualizations of a network (symbolic and alias modes)
TEXTUALIZATIONS = Choices("baselines.textualize:TEXTUALIZATIONS")
#: how the alias mode renames stations
ALIAS_STRATEGIES = Choices("baselines.alias:STRATEGIES")
#: the harnesses whose prediction files ``score --from`` reads: every task's readers (``Task.readers``)
SOURCES = Choices("benchmarks.tasks:source_names")
#: the cross-city splits of generated questions
SPLITS = Choices("benchmarks.splits:SPLITS")
#: the route questions' kinds
KINDS = Choices("benchmarks.reasonmap.records:KINDS")
EXECUTORS = Choices("graphkit.executors:EXECUTORS")
#: the transit modes ``gtfs --modes`` compiles (:data:`graphkit.gtfs.names.MODE_NAMES`)
RAIL_MODES = Choices("graphkit.gtfs.names:MODE_NAMES")
TIERS = Choices("graphkit.stats:TIERS")
SCRIPTS = Choices("graphkit.synth:SCRIPTS")
PALETTES = Choices("vision.render:PALETTES", sort=True)
ENGINES = Choices("vision.engines:ENGINES")
DEVICES = Choices("vision.engines:DEVICES")
ROTATIONS = Choices("vision.ocr:ROTATIONS")
# Numbers the help shows as defaults, written out so that the parser imports no library for them;
# tests/reasonmap/test_cli_tasks.py keeps each equal to the library's own.
#: :data:`baselines.prompts.DEFAULT_PIXEL_BUDGET`
DEFAULT_PIXEL_BUDGET = 4_000_000
#: :data:`graphkit.routes.DEFAULT_MAX_ROUTES`
DEFAULT_MAX_ROUTES = 10
#: :data:`benchmarks.plus.questions.DEFAULT_PER_TYPE` (and the probes', the same)
DEFAULT_PER_TYPE = 10
#: :data:`vision.images.DEFAULT_PIXEL_LIMIT`
DEFAULT_PIXEL_LIMIT = 300_000_000
#: :data:`vision.images.BYTES_PER_PIXEL`
BYTES_PER_PIXEL = 9


class Help(argparse.HelpFormatter):
    """Help that ends each option with its default, unless the text already says it or there is none.

    Parameters
    ----------
    prog, indent_increment, max_help_position, width
        As :class:`argparse.HelpFormatter`.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or action.option_strings == []
        ):
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"

    def _metavar_formatter(self, action: argparse.Action, default_metavar: str) -> Any:
        # argparse formats every option once as it is added (checking its metavar): registry choices not yet read
        # stand as their option's name then; the help and usage read them first (Parser.format_help)
        if isinstance(action.choices, Choices) and not action.choices.loaded and action.metavar is None:
            return super()._metavar_formatter(_Unread(action), default_metavar)
        return super()._metavar_formatter(action, default_metavar)


class RegistryHelp(str):
    """An option's help that names tasks, written from the task registry when the help is shown.

    The text is a :meth:`str.format` template over :func:`registry_fields` (``{tasks}``, ``{generated}``,
    ``{solvers}``, ``{modes}``, ``{variants}``, ``{weightings}``, ``{harnesses}``, ``{takers_<setting>}``);
    building the parser reads no registry, and a new task appears in the help by itself.

    Examples
    --------
    >>> RegistryHelp("one of {tasks}").written().startswith("one of route, plus, mapqa")
    True
    """

    __slots__ = ()

    def written(self) -> str:
        """The help, its fields filled from the registry.

        Returns
        -------
        str
            The text shown.
        """
        return str(self).format(**registry_fields())


def registry_fields() -> dict[str, str]:
    """What a :class:`RegistryHelp` may name, read from :mod:`benchmarks.tasks` (which imports the task records).

    Returns
    -------
    dict of str to str
        ``tasks``: every task, in the registry's order; ``generated``: those whose questions are generated;
        ``solvers``, ``modes`` and ``variants``: each task's symbolic solvers, prompt modes and scoring variants
        (``none`` where it has none; the default variant first); ``weightings``: each task's default
        weighting; ``harnesses``: the other harnesses whose files each task reads (the tasks reading only the
        toolkit's rows left out); ``takers_<setting>``: the generated tasks whose generation takes
        ``setting`` (``takers_per_type``: ``plus, probe``).
    """
    from benchmarks.tasks import generated_task_names, get_task, task_names

    def each(field: str) -> str:
        return "; ".join(f"{name}: {', '.join(getattr(get_task(name), field)) or 'none'}" for name in task_names())

    generations = {name: get_task(name).generation for name in generated_task_names()}
    settings = dict.fromkeys(setting for made in generations.values() if made is not None for setting in made.defaults)
    harnesses = (
        f"{name}: {', '.join(source for source in get_task(name).readers if source != 'jsonl')}"
        for name in task_names()
        if len(get_task(name).readers) > 1
    )
    return {
        "tasks": ", ".join(task_names()),
        "generated": ", ".join(generated_task_names()),
        "solvers": each("solvers"),
        "modes": each("modes"),
        "variants": each("variant_names"),
        "weightings": ", ".join(f"{name} {get_task(name).default_weighting}" for name in task_names()),
        "harnesses": "; ".join(harnesses),
        **{
            f"takers_{setting}": ", ".join(
                name for name, made in generations.items() if made is not None and setting in made.defaults
            )
            for setting in settings
        },
    }


class _Unread:
    """An action whose choices are not read yet, as argparse's metavar check sees it."""

    def __init__(self, action: argparse.Action) -> None:
        self.metavar = action.dest.upper()
        self.choices = None


_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _closest(word: str, choices: Sequence[str]) -> str | None:
    """The choice ``word`` most likely misspells, if one is close enough (as every named choice's error says)."""
    from graphkit.choices import close_choices

    found = close_choices(word, choices, limit=1)
    return found[0] if found else None


class Parser(argparse.ArgumentParser):
    """A parser whose errors name the mistake: an unknown option is reported first, by name, with the option it
    most likely misspells (not as a missing required one), and an invalid choice with the choice it most likely
    misspells (``reasonmap rout``: did you mean ``route``?).

    Parameters
    ----------
    prog, usage, description, epilog, parents, formatter_class, prefix_chars, fromfile_prefix_chars
        As :class:`argparse.ArgumentParser`.
    argument_default, conflict_handler, add_help, allow_abbrev, exit_on_error
        As :class:`argparse.ArgumentParser`.
    """

    def format_usage(self) -> str:
        self._read_choices()
        return super().format_usage()

    def format_help(self) -> str:
        self._read_choices()
        return super().format_help()

    def _read_choices(self) -> None:
        """Read the registries this parser's options choose from, and their help texts made from them, for the
        help to show."""
        for action in self._actions:
            if isinstance(action.choices, Choices):
                action.choices.names  # noqa: B018 (read now, kept)
            if isinstance(action.help, RegistryHelp):
                action.help = action.help.written()

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        if args is not None and not any(isinstance(a, argparse._SubParsersAction) for a in self._actions):
            self._check_option_names(list(args))
        return super().parse_known_args(args, namespace)

    def _check_option_names(self, args: list[str]) -> None:
        known = [option for option in self._option_string_actions if option.startswith("--")]
        for token in args:
            if token == "--":
                return
            if not token.startswith("-") or token == "-" or _NUMBER.match(token):
                continue
            name = token.split("=", 1)[0]
            if name in self._option_string_actions or any(option.startswith(name) for option in known):
                continue  # argparse itself takes it (or an abbreviation of one, or says which it is ambiguous among)
            guess = _closest(name, known)
            hint = f"; did you mean {guess}?" if guess else f" (see `{self.prog} --help`)"
            self.error(f"unrecognised argument {name}{hint}")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices and isinstance(value, str):
            choices = [str(choice) for choice in action.choices]
            guess = _closest(value, choices)
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{hint} (choose from {', '.join(map(repr, choices))})"
            )
        super()._check_value(action, value)


def add_client_options(parser: argparse.ArgumentParser, *, max_tokens_help: str | None = None) -> None:
    """The endpoint, the model and how it is asked: ``--endpoint --model --name --concurrency --max-tokens
    --temperature --timeout --max-retries --retry-errors``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    max_tokens_help : str, optional
        The help of ``--max-tokens``, where the command uses it differently.
    """
    parser.add_argument("--endpoint", required=True, metavar="URL", help="base URL, e.g. http://host:8000/v1")
    parser.add_argument("--model", required=True, help="model name served there (key: OPENAI_API_KEY)")
    parser.add_argument("--name", metavar="TAG", help="the model's name in rows and tables (default: --model)")
    parser.add_argument("--concurrency", type=int, default=4, metavar="N", help="requests in flight at once")
    parser.add_argument(
        "--max-tokens", type=int, metavar="N", help=max_tokens_help or "max_tokens of each call (default: the server's)"
    )
    parser.add_argument("--temperature", type=float, metavar="T", help="sampling temperature (default: the server's)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds one attempt may take in all (connect, headers, body)",
    )
    parser.add_argument("--max-retries", type=int, default=6, metavar="N", help="retries of a request after its first")
    parser.add_argument("--retry-errors", action="store_true", help="ask again where the output holds an error row")


def add_prompt_options(
    parser: argparse.ArgumentParser,
    *,
    maps_help: str | None = None,
    images_only: bool = False,
    several_budgets: bool = False,
) -> None:
    """How prompts are built: ``--maps --pixel-budget --textualization --alias-strategy`` (``images_only``: the
    first two, for commands that always send the map; ``several_budgets``: ``--pixel-budget`` takes a list,
    see :func:`parse_pixel_budgets`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    maps_help : str, optional
        The help of ``--maps``, where the command reads maps differently.
    images_only : bool, optional
        Only ``--maps`` and ``--pixel-budget``.
    several_budgets : bool, optional
        ``--pixel-budget`` takes a list.
    """
    parser.add_argument(
        "--maps",
        metavar="DIR",
        help=maps_help or "full: folder of map images (<city>.png or <country>__<city>.png; map QA: its image paths)",
    )
    if several_budgets:
        parser.add_argument(
            "--pixel-budget",
            type=parse_pixel_budgets,
            default=DEFAULT_PIXEL_BUDGET,
            metavar="PX,..",
            help="full: downscale larger maps to (a list such as 1M,4M,16M asks the full mode at each)",
        )
    else:
        parser.add_argument(
            "--pixel-budget",
            type=one_pixel_budget,
            default=DEFAULT_PIXEL_BUDGET,
            metavar="PX",
            help="full: downscale larger maps to (4000000, 4000k or 4M, as eval takes it)",
        )
    if images_only:
        return
    parser.add_argument(
        "--textualization",
        choices=TEXTUALIZATIONS,
        default="lines",
        help="symbolic and alias: how the network is written",
    )
    parser.add_argument(
        "--alias-strategy", choices=ALIAS_STRATEGIES, default="romanize", help="alias: how names are replaced"
    )


def add_repeat_options(parser: argparse.ArgumentParser) -> None:
    """``--repeats K --force-repeats``: each request asked K times (see :func:`baselines.client.check_repeats`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    """
    parser.add_argument(
        "--repeats", type=int, default=1, metavar="K", help="ask each request K times (needs sampling: temperature > 0)"
    )
    parser.add_argument(
        "--force-repeats", action="store_true", help="--repeats above 1 at --temperature 0 (a server that samples)"
    )


def add_metro_dir(parser: argparse.ArgumentParser) -> None:
    """``--metro-dir``: where the Metro Data of cities the toolkit does not embed lie.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    """
    parser.add_argument(
        "--metro-dir", metavar="DIR", help="Metro Data of non-embedded cities: DIR/**/<city>.json (a synth set's DIR)"
    )


def add_task_option(parser: argparse.ArgumentParser) -> None:
    """``--task``: the question file's task, where telling it from the file is not wanted.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command's parser.
    """
    parser.add_argument("--task", choices=TASKS, help="the questions' task (default: told from the file)")


def check_prompt_options(args: argparse.Namespace) -> None:
    """Refuse a ``--pixel-budget`` out of :data:`PIXEL_BUDGET_RANGE`, before anything is read or asked.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Raises
    ------
    ValueError
        Naming the option and the value.
    """
    budget = getattr(args, "pixel_budget", None)
    for value in budget if isinstance(budget, tuple) else () if budget is None else (budget,):
        check_pixel_budget(value)


def client_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`baselines.client.run_requests` that the client options give, checked
    (with ``--pixel-budget``): call it first, so that a bad value is refused before anything is read or asked.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    dict
        ``concurrency``, ``max_tokens``, ``temperature``, ``timeout``, ``max_retries`` and the other client options.

    Raises
    ------
    ValueError
        An option is out of its range (one line naming it: ``--timeout inf``, ``--concurrency 1e20``).
    """
    from baselines.client import check_options, check_repeats

    check_prompt_options(args)
    repeats = getattr(args, "repeats", None)  # the commands that take --repeats (run, eval)
    try:
        check_options(
            model=args.model,
            concurrency=args.concurrency,
            max_tokens=args.max_tokens,
            timeout=args.timeout,
            max_retries=args.max_retries,
            temperature=args.temperature,
        )
        if repeats is not None:
            check_repeats(repeats, args.temperature, force=args.force_repeats)
    except ValueError as error:  # the option as the command line spells it
        name, _, rest = str(error).partition(":")
        raise ValueError(f"--{name.replace('_', '-')}:{rest}") from None
    sampling = {} if repeats is None else {"repeats": repeats, "force_repeats": args.force_repeats}
    return {
        "endpoint": args.endpoint,
        "model": args.model,
        "name": args.name,
        "concurrency": args.concurrency,
        "max_tokens": args.max_tokens,
        "temperature": args.temperature,
        "timeout": args.timeout,
        "max_retries": args.max_retries,
        "retry_errors": args.retry_errors,
        "progress": not getattr(args, "quiet", False),
        **sampling,
    }


SHOWN_SKIPPED = 20


def comma_list(text: str) -> tuple[str, ...]:
    """A list option's value, comma-separated as every command writes lists (``--modes full,text-only``).

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    tuple of str
        The pieces, stripped.

    Raises
    ------
    argparse.ArgumentTypeError
        An empty value, or an empty piece.
    """
    items = tuple(item.strip() for item in text.split(","))
    if not text.strip() or not all(items):
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {text!r}")
    return items


def report_skipped(problems: Sequence[object], *, see: str | None = None) -> None:
    """Print the first :data:`SHOWN_SKIPPED` problems on stderr, then how many more (and where they all are).

    Parameters
    ----------
    problems : sequence
        The problems (each printed as ``str``).
    see : str, optional
        Where all of them are written, for the last line.
    """
    for problem in problems[:SHOWN_SKIPPED]:
        print(f"skipped: {problem}", file=sys.stderr)
    if len(problems) > SHOWN_SKIPPED:
        where = f" (see {see})" if see else ""
        print(f"skipped: ... and {len(problems) - SHOWN_SKIPPED} more{where}", file=sys.stderr)
