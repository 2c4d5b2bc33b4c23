"""Settings given as text (a notebook's environment variables), checked in one line naming the setting."""

from __future__ import annotations

import os

import pytest

from graphkit.settings import InvalidSetting, folder_list, name_list, output_folder, whole_number


@pytest.mark.parametrize(
    ("value", "expected"), [("20", 20), (" 7 ", 7), ("+3", 3), ("007", 7), (0, 0), (10_000, 10_000)]
)
def test_whole_numbers_in_range_are_read(value, expected):
    assert whole_number("N", value, low=0, high=10_000) == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("abc", "got 'abc'"),
        ("1e3", "got '1e3'"),
        ("1.0", "got '1.0'"),
        ("", "got ''"),
        (True, "got True"),
        (2.0, "got 2.0"),
        (None, "got None"),
        ("-1", "got -1"),
        ("10001", "got 10,001"),
        ("9" * 5000, "...(5002 characters)"),  # shortened, and no 4,300-digit int error on the way
    ],
)
def test_anything_else_is_refused_naming_the_setting(value, says):
    with pytest.raises(InvalidSetting) as raised:
        whole_number("N", value, low=0, high=10_000)
    message = str(raised.value)
    assert message.startswith("N: expected a whole number from 0 to 10,000, got ") and says in message
    assert isinstance(raised.value, ValueError) and len(message) < 200


def test_names_are_checked_against_the_choices():
    assert name_list("C", " rome, lisboa,rome ", ("rome", "lisboa"), what="city") == ("rome", "lisboa")
    with pytest.raises(InvalidSetting, match=r"^C: unknown city 'atlantis'$"):
        name_list("C", "rome,atlantis", ("rome", "lisboa"), what="city")
    with pytest.raises(InvalidSetting, match=r"did you mean 'lisboa'\?"):
        name_list("C", "lisbo", ("rome", "lisboa"), what="city")
    with pytest.raises(InvalidSetting, match=r"^C: expected at least one name, got ' , '$"):
        name_list("C", " , ", ("rome",), what="city")


def test_folders_exist_and_are_given_once(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "f").write_text("x")
    os.symlink(tmp_path / "a", tmp_path / "b")
    assert folder_list("R", f"{tmp_path / 'a'},{tmp_path / 'b'}") == (tmp_path / "a",)  # b leads to a
    with pytest.raises(InvalidSetting, match=r": no such folder$"):
        folder_list("R", str(tmp_path / "missing"))
    with pytest.raises(InvalidSetting, match=r"f: not a folder$"):
        folder_list("R", str(tmp_path / "f"))


def test_an_output_folder_is_neither_a_folder_read_nor_inside_one(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    os.symlink(run, tmp_path / "link")
    read = [("RUNS", run)]
    assert output_folder("OUT", str(tmp_path / "out"), read=read) == tmp_path / "out"
    assert output_folder("OUT", str(tmp_path / "running"), read=read) == tmp_path / "running"  # a prefix only
    for out in (run, run / "sub" / "deeper", tmp_path / "link", tmp_path / "link" / "sub"):
        with pytest.raises(InvalidSetting, match=r"^OUT: .* the folder .*run \(RUNS\), which is read"):
            output_folder("OUT", str(out), read=read)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidSetting, match=r"file: a file, not a folder$"):
        output_folder("OUT", str(tmp_path / "file"))
    with pytest.raises(InvalidSetting, match=r"expected a folder"):
        output_folder("OUT", "  ")
    with pytest.raises(InvalidSetting, match=r"inside the folder / \(RUNS\)"):
        output_folder("OUT", str(tmp_path / "out"), read=[("RUNS", "/")])
